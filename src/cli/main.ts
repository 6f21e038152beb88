/**
 * The `tools-proxy` command (CONTRACT section 6): `serve` runs a local server with the Tools API
 * at /proxy/tools and the offline `demo` toolkit; `keys create` explains why it cannot work yet.
 *
 * Exit codes: 0 success, 1 failure (bad toolkit file, port in use, ...), 2 usage error.
 * Nothing here ever prints a credential except the agent key that `serve` creates, once, on stdout.
 */
import { readFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { parseArgs, type ParseArgsConfig } from "node:util";
import { createUndiciFetch, toNodeHandler } from "../../adapters/node.js";
import { issueApiKey } from "../credentials/api-keys.js";
import { createToolsHandler, type ToolsHandler } from "../handler.js";
import type { Logger } from "../logger.js";
import type { Toolkit } from "../toolkits/define.js";
import { parseToolkitFile } from "../toolkits/json.js";
import { DEMO_API_KEY, DEMO_API_PATH, createDemoApi } from "./demo-api.js";
import { demoToolkit } from "./demo-toolkit.js";

/** A mistake in the command line: message on stderr, exit code 2. `command` names the help to read. */
class UsageError extends Error {
  constructor(
    message: string,
    readonly command = "",
  ) {
    super(message);
  }
}

const USAGE = `Usage: tools-proxy <command> [options]

Commands:
  serve         Run a local Tools API server at /proxy/tools, with the offline "demo" toolkit
  keys create   Create an API key for an agent (needs persistent data: not available yet)

Run "tools-proxy <command> --help" for the options of a command.

Example:
  tools-proxy serve --port 8787
`;

const SERVE_USAGE = `Usage: tools-proxy serve [options]

Runs the Tools API at http://HOST:PORT/proxy/tools with the bundled "demo" toolkit (connect it
with the API key "${DEMO_API_KEY}") and the toolkits of any --toolkits files. Data is kept in
memory: at every start a new agent key is created for workspace "local", agent "agent", and
printed once.

Options:
  --port N             Port to listen on (default 8787; 0 picks a free port)
  --host ADDR          Address to listen on (default 127.0.0.1)
  --public-url URL     Public origin, for OAuth redirects (default: the address listened on)
  --toolkits FILE ...  JSON toolkit files (one toolkit or an array each); \${NAME} in a string
                       is replaced by the environment variable NAME. Repeatable.
  --no-demo            Leave out the bundled "demo" toolkit
  --data-dir DIR       Persist data in DIR (not available yet: data is kept in memory)
  -h, --help           Show this help

Environment:
  TOOLS_PROXY_SECRET   At least 32 bytes; encrypts stored credentials (default: random per start)

Example:
  tools-proxy serve --port 8787 --toolkits ./acme.json
`;

const KEYS_USAGE = `Usage: tools-proxy keys create --workspace W --agent A [--data-dir DIR]

Creates an agent API key in the server's data and prints it once. This version keeps its data in
memory, inside the running "serve" process, so this command cannot reach it yet: "serve" prints
an agent key at every start instead. It will work once persistent data (--data-dir) arrives.

Example:
  tools-proxy keys create --workspace local --agent agent
`;

const NO_PERSISTENCE = "this version keeps its data in memory, so there is no data directory yet; persistent data (--data-dir) arrives in a later version.";

async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  if (command === undefined) throw new UsageError("a command is missing.");
  if (command === "-h" || command === "--help" || command === "help") return print(USAGE);
  if (command === "serve") return serve(rest);
  if (command === "keys") {
    const [sub, ...keysArgs] = rest;
    if (sub === "-h" || sub === "--help") return print(KEYS_USAGE);
    if (sub !== "create") throw new UsageError(sub ? `unknown command "keys ${sub}"; the only one is "keys create".` : 'missing "create" after "keys".', "keys");
    return keysCreate(keysArgs);
  }
  throw new UsageError(`unknown command "${command}".`);
}

/** `parseArgs` in strict mode, turning its errors into usage errors. */
function parse<O extends NonNullable<ParseArgsConfig["options"]>>(command: string, args: string[], options: O) {
  try {
    return parseArgs({ args, options: { ...options, help: { type: "boolean", short: "h" } }, strict: true, allowPositionals: true, tokens: true });
  } catch (error) {
    const message = (error as Error).message;
    const unknown = /^Unknown option '([^']+)'/.exec(message);
    throw new UsageError(unknown ? `unknown option "${unknown[1]}".` : message.split("\n")[0]!, command);
  }
}

async function keysCreate(args: string[]): Promise<number> {
  const { values, positionals } = parse("keys create", args, { workspace: { type: "string" }, agent: { type: "string" }, "data-dir": { type: "string" } });
  if (values.help) return print(KEYS_USAGE);
  if (positionals.length) throw new UsageError(`unexpected argument "${positionals[0]}".`, "keys create");
  if (!values.workspace || !values.agent) throw new UsageError("--workspace and --agent are required.", "keys create");
  process.stderr.write(
    `tools-proxy keys create: ${NO_PERSISTENCE} Until then, "tools-proxy serve" creates an agent key at each start and prints it once.\n`,
  );
  return 1;
}

async function serve(args: string[]): Promise<number> {
  const parsed = parse("serve", args, {
    port: { type: "string", default: "8787" },
    host: { type: "string", default: "127.0.0.1" },
    "public-url": { type: "string" },
    toolkits: { type: "string", multiple: true },
    "no-demo": { type: "boolean" },
    "data-dir": { type: "string" },
  });
  const { values } = parsed;
  if (values.help) return print(SERVE_USAGE);
  const files = toolkitFiles(parsed.tokens);
  const port = Number(values.port);
  if (!/^\d+$/.test(values.port) || port > 65535) throw new UsageError(`--port must be a number from 0 to 65535, not "${values.port}".`, "serve");
  const publicUrl = values["public-url"];
  if (publicUrl !== undefined && !/^https?:\/\/[^/]/i.test(publicUrl)) throw new UsageError("--public-url must be an http(s) URL such as https://tools.example.com.", "serve");
  if (values["data-dir"] !== undefined) return fail(`--data-dir: ${NO_PERSISTENCE} Run without --data-dir to keep data in memory.`);
  const secret = process.env.TOOLS_PROXY_SECRET || undefined;
  if (secret && new TextEncoder().encode(secret).length < 32) return fail("TOOLS_PROXY_SECRET must be at least 32 bytes; generate one with `openssl rand -base64 32`.");

  const extra: Toolkit[] = [];
  for (const file of files) {
    let text: string;
    try {
      text = readFileSync(file, "utf8");
    } catch (error) {
      return fail(`cannot read the toolkit file ${file} (${(error as NodeJS.ErrnoException).code ?? "error"}).`);
    }
    try {
      extra.push(...parseToolkitFile(text, { env: process.env, source: file }));
    } catch (error) {
      return fail((error as Error).message);
    }
  }

  const demoApi = values["no-demo"] ? null : createDemoApi();
  let tools: ToolsHandler | null = null;
  const outboundFetch = createUndiciFetch();
  const server = createServer(
    toNodeHandler(async (request) => {
      if (demoApi && new URL(request.url).pathname.startsWith(`${DEMO_API_PATH}/`)) return demoApi(request);
      return tools ? tools(request) : Response.json({ error: "The server is starting; retry in a moment.", code: "unavailable" }, { status: 503 });
    }),
  );
  const address = await listen(server, port, values.host);
  if (typeof address === "string") return fail(address);
  const origin = originOf(address);
  try {
    // No store options: the handler's own in-memory defaults, which need no secret.
    tools = createToolsHandler({
      secret,
      publicUrl: publicUrl ?? origin,
      toolkits: [...(demoApi ? [demoToolkit(origin)] : []), ...extra],
      logger: stderrLogger,
      fetch: outboundFetch, // pooled keep-alive connections instead of the global fetch
    });
  } catch (error) {
    server.close();
    void outboundFetch.close().catch(() => {});
    return fail((error as Error).message);
  }
  const { store, blobStore } = tools.context;
  const { key } = await issueApiKey(store, { workspaceId: "local", agentId: "agent" });
  const sweep = setInterval(() => void Promise.resolve(blobStore.deleteExpired(new Date())).catch(() => {}), 60_000);
  sweep.unref();

  const toolkits = await tools.context.registry.list();
  process.stdout.write(
    [
      `tools-proxy: listening on ${origin}${tools.context.basePath}`,
      `toolkits: ${toolkits.map((t) => `${t.slug} (${t.tools.length} tools)`).join(", ") || "none"}`,
      `agent key for workspace "local", agent "agent" (printed once; data is in memory, so each start makes a new key):`,
      "",
      `  ${key}`,
      "",
      ...(demoApi ? [`demo toolkit: connect it with the API key "${DEMO_API_KEY}"; its API is ${origin}${DEMO_API_PATH}`] : []),
      "Press Ctrl+C to stop.",
      "",
    ].join("\n"),
  );
  return new Promise<number>((resolve) => {
    let stopping = false;
    const stop = (signal: NodeJS.Signals) => {
      if (stopping) return resolve(1); // a second signal: stop now
      stopping = true;
      process.stderr.write(`tools-proxy: ${signal} received, stopping\n`);
      clearInterval(sweep);
      server.close(() => {
        void outboundFetch.close().catch(() => {}); // not awaited: the process exits next
        resolve(0);
      });
      server.closeIdleConnections();
      setTimeout(() => server.closeAllConnections(), 3000).unref();
    };
    process.on("SIGINT", stop);
    process.on("SIGTERM", stop);
  });
}

/**
 * The `--toolkits` files: each value of the option, plus the arguments that directly follow it,
 * so that `--toolkits a.json b.json` and `--toolkits toolkits/*.json` work. Any other bare
 * argument is a usage error.
 */
function toolkitFiles(tokens: ReturnType<typeof parseArgs>["tokens"] = []): string[] {
  const files: string[] = [];
  let afterToolkits = false;
  for (const token of tokens) {
    if (token.kind === "option") {
      afterToolkits = token.name === "toolkits";
      if (afterToolkits && token.value !== undefined) files.push(token.value);
    } else if (token.kind === "positional" && afterToolkits) {
      files.push(token.value);
    } else if (token.kind === "positional") {
      throw new UsageError(`unexpected argument "${token.value}".`, "serve");
    } else {
      afterToolkits = false;
    }
  }
  return files;
}

/** Listens and resolves the bound address, or an error sentence when the port is unavailable. */
function listen(server: Server, port: number, host: string): Promise<AddressInfo | string> {
  return new Promise((resolve) => {
    server.once("error", (error: NodeJS.ErrnoException) => {
      if (error.code === "EADDRINUSE") resolve(`port ${port} on ${host} is already in use; pick another with --port.`);
      else resolve(`cannot listen on ${host}:${port} (${error.code ?? error.message}).`);
    });
    server.listen(port, host, () => resolve(server.address() as AddressInfo));
  });
}

/** The origin a local client reaches the server at; "all interfaces" is reached via loopback. */
function originOf(address: AddressInfo): string {
  const host = address.address === "0.0.0.0" ? "127.0.0.1" : address.address === "::" ? "::1" : address.address;
  return `http://${host.includes(":") ? `[${host}]` : host}:${address.port}`;
}

/** Library warnings and errors, already redacted by the library, as lines on stderr. */
const stderrLogger: Logger = {
  warn: (message, fields) => process.stderr.write(`warn: ${message}${fields ? ` ${JSON.stringify(fields)}` : ""}\n`),
  error: (message, fields) => process.stderr.write(`error: ${message}${fields ? ` ${JSON.stringify(fields)}` : ""}\n`),
};

function print(text: string): number {
  process.stdout.write(text);
  return 0;
}

function fail(message: string): number {
  process.stderr.write(`tools-proxy: ${message}\n`);
  return 1;
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error: unknown) => {
    if (error instanceof UsageError) {
      process.stderr.write(`tools-proxy: ${error.message}\nRun "tools-proxy ${error.command ? `${error.command} ` : ""}--help" for usage.\n`);
      process.exit(2);
    }
    process.stderr.write(`tools-proxy: unexpected failure: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(1);
  },
);
