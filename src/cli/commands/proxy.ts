/** `proxy <method> <url>`: a request to a toolkit's own API, with the connection's credential added by the server. */
import { readFileSync } from "node:fs";
import type { Command } from "commander";
import type { ProxyRequest } from "../../client/types.js";
import { agentOption, collect, jsonOption, usageError, withExamples } from "../command.js";
import { CliError } from "../errors.js";
import { readStdinText } from "../prompt.js";
import { interruptSignal, openClient } from "../session.js";
import { jsonOrString, printResult } from "./execute.js";

const METHODS = ["GET", "POST", "PUT", "PATCH", "DELETE"] as const;

interface ProxyOptions {
  toolkit: string;
  header?: string[];
  body?: string;
  bodyFile?: string;
  connection?: string;
  include?: boolean;
  json?: boolean;
  agent?: string;
}

/** Adds `proxy <method> <url>`. */
export function registerProxy(program: Command): void {
  const proxy = program
    .command("proxy")
    .argument("<method>", METHODS.join(", "))
    .argument("<url>", "the full URL, under one of the toolkit's base URLs")
    .description("Send a request to a toolkit's API through the server, which adds the connection's credential")
    .requiredOption("--toolkit <toolkit>", "the toolkit whose connection to use")
    .option("-H, --header <header>", '"Name: value" (repeatable)', collect)
    .option("--body <body>", 'the body: JSON when it parses as JSON, else text; "@FILE" reads a local file, "-" stdin')
    .option("--body-file <stagingKey>", "a staged file (from `tools-proxy upload`) sent as the raw body")
    .option("--connection <id>", "the connection to use, when you have several for the toolkit")
    .option("-i, --include", "print the upstream status and headers before the body")
    .addOption(jsonOption())
    .addOption(agentOption())
    .action(async (methodText: string, url: string, opts: ProxyOptions) => {
      const method = methodText.toUpperCase() as ProxyRequest["method"];
      if (!METHODS.includes(method)) throw usageError(proxy, `the method must be one of ${METHODS.join(", ")}, not "${methodText}".`);
      if (opts.body !== undefined && opts.bodyFile !== undefined) throw usageError(proxy, "give --body or --body-file, not both.");
      const request: ProxyRequest = {
        toolkit: opts.toolkit,
        method,
        url,
        headers: headers(proxy, opts.header),
        connection_id: opts.connection,
      };
      if (opts.body !== undefined) request.body = jsonOrString(await bodyText(opts.body));
      if (opts.bodyFile !== undefined) request.bodyFile = opts.bodyFile;
      const { client } = openClient(opts);
      const result = await client.proxy(request, { signal: interruptSignal() });
      const head = opts.include
        ? [`HTTP ${result.status ?? "(no answer)"}`, ...Object.entries(result.headers).map(([name, value]) => `${name}: ${value}`), ""]
        : undefined;
      printResult(result, opts.json, "the proxied request failed", head);
    });
  withExamples(
    proxy,
    "tools-proxy proxy GET http://127.0.0.1:8787/demo-api/v1/notes --toolkit demo",
    `tools-proxy proxy POST https://api.acme.test/v1/items --toolkit acme --body '{"name":"x"}' -H "X-Trace: 1"`,
  );
}

function headers(command: Command, lines: string[] = []): Record<string, string> | undefined {
  if (!lines.length) return undefined;
  const result: Record<string, string> = {};
  for (const line of lines) {
    const colon = line.indexOf(":");
    if (colon < 1) throw usageError(command, `--header takes "Name: value", not "${line}".`);
    result[line.slice(0, colon).trim()] = line.slice(colon + 1).trim();
  }
  return result;
}

async function bodyText(body: string): Promise<string> {
  if (body === "-") return readStdinText("the body");
  if (!body.startsWith("@")) return body;
  try {
    return readFileSync(body.slice(1), "utf8");
  } catch (error) {
    throw new CliError(`cannot read the body file ${body.slice(1)} (${(error as NodeJS.ErrnoException).code ?? "error"}).`);
  }
}
