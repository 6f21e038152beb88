/**
 * `tools-proxy serve`, once its options are checked (commands/serve.ts): loads the toolkit files,
 * opens the storage, listens, prints the banner (and the first agent key, once), and serves until
 * SIGINT or SIGTERM. Resolves with the exit code. Loaded only when `serve` runs, so that the
 * client commands start without the server's modules.
 */
import { readFileSync, statSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { createUndiciFetch, handleClientError, toNodeHandler } from "../../adapters/node.js";
import { catalogToolkits, getProvider, loadToolkitFile } from "../catalog/index.js";
import { isCatalogMade } from "../catalog/made.js";
import { createSafeLogger, type Logger } from "../core/logger.js";
import { createToolsHandler, type ToolsHandler } from "../handler.js";
import { memoryRateLimitStore } from "../limits/memory.js";
import { rateLimit } from "../limits/rate-limit.js";
import type { LimitsHook, RateLimitRule } from "../limits/types.js";
import { redisApiKeyRevocations } from "../redis/revocations.js";
import type { Toolkit } from "../toolkits/define.js";
import { toolCount } from "../toolkits/lazy.js";
import { searchIndex } from "../toolkits/search.js";
import { createAccessLog, type LogFormat } from "./access-log.js";
import { createDemoApi, DEMO_API_KEY, DEMO_API_PATH } from "./demo-api.js";
import { demoToolkit } from "./demo-toolkit.js";
import { CliError, UsageError } from "./errors.js";
import { firstAgentKey } from "./keys.js";
import { describeRateLimit } from "./rate-limit.js";
import { openStorage, SettingsError, type Storage, type StorageFlags, storageFailure } from "./settings.js";
import { commandName } from "./usage.js";

/** The checked options of `serve`. */
export interface ServeSettings {
  port: number;
  host: string;
  publicUrl: string | undefined;
  toolkitFiles: string[];
  /** Serve every catalog provider (`--catalog`), each configured from its environment variables. */
  catalog: boolean;
  demo: boolean;
  refreshLeaseMs: number | undefined;
  /** Requests per API key (`--rate-limit`), counted in Redis with --redis-url, else in this process; undefined: no limit. */
  rateLimit: RateLimitRule | undefined;
  storage: StorageFlags;
  /** The access log's format; null: no access log (`--quiet`). */
  accessLog: LogFormat | null;
  /** Lets connections name http origins and hosts on private networks (`--allow-private-networks`). */
  allowPrivateNetworks?: boolean;
}

/** Runs the server until SIGINT or SIGTERM and resolves with the exit code; a failure to start throws a CliError (exit 1). */
export async function runServe(settings: ServeSettings): Promise<number> {
  const extra: Toolkit[] = [];
  const files = new Map<Toolkit, string>();
  for (const file of settings.toolkitFiles) {
    if (isDirectory(file)) {
      for (const toolkit of await collectionToolkits(file)) {
        extra.push(toolkit);
        files.set(toolkit, file);
      }
      continue;
    }
    let text: string;
    try {
      text = readFileSync(file, "utf8");
    } catch (error) {
      throw new CliError(`cannot read the toolkit file ${file} (${(error as NodeJS.ErrnoException).code ?? "error"}).`);
    }
    try {
      for (const toolkit of loadToolkitFile(text, { env: process.env, source: file })) {
        extra.push(toolkit);
        files.set(toolkit, file);
      }
    } catch (error) {
      throw new CliError((error as Error).message);
    }
  }
  if (settings.catalog) {
    for (const toolkit of extra) assertNoCatalogClash(toolkit, files.get(toolkit)!);
    // A provider a file configures (`{ "provider": "github", ... }`) is served as the file says.
    const given = new Set(extra.map((toolkit) => toolkit.slug));
    extra.push(...catalogToolkits({ env: process.env }).filter((toolkit) => !given.has(toolkit.slug)));
  }

  let storage: Storage;
  try {
    storage = await openStorage(settings.storage);
  } catch (error) {
    if (error instanceof SettingsError) throw error.usage ? new UsageError(error.message, "serve") : new CliError(error.message);
    throw error;
  }
  try {
    await storage.migrate();
  } catch (error) {
    await storage.close();
    throw new CliError(storageFailure(error));
  }

  const demoApi = settings.demo ? createDemoApi() : null;
  let tools: ToolsHandler | null = null;
  const outboundFetch = createUndiciFetch();
  const accessLog = settings.accessLog ? createAccessLog(settings.accessLog) : null;
  const listener = toNodeHandler(async (request) => {
    accessLog?.noteRequest(request);
    if (demoApi && new URL(request.url).pathname.startsWith(`${DEMO_API_PATH}/`)) return demoApi(request);
    return tools
      ? tools.answer(request) // the answers as made: the Node bridge writes whole ones directly
      : Response.json({ error: "The server is starting; retry in a moment.", code: "unavailable" }, { status: 503 });
  });
  const server = createServer(accessLog ? accessLog.wrap(listener) : listener);
  server.on("clientError", handleClientError);
  const address = await listen(server, settings.port, settings.host);
  if (typeof address === "string") {
    await storage.close();
    throw new CliError(address);
  }
  const origin = originOf(address);
  try {
    tools = createToolsHandler({
      store: storage.store,
      blobStore: storage.blobStore,
      secret: storage.secret,
      ...(storage.leases ? { leases: storage.leases } : {}),
      ...(storage.redis ? { apiKeyRevocations: redisApiKeyRevocations(storage.redis, { onError: warnRevocationsDown }) } : {}),
      ...(settings.refreshLeaseMs !== undefined ? { refreshLeaseMs: settings.refreshLeaseMs } : {}),
      ...limitsOption(
        settings.rateLimit
          ? rateLimit({ ...settings.rateLimit, store: storage.rateLimitStore ?? memoryRateLimitStore(), logger: stderrLogger })
          : undefined,
        accessLog,
      ),
      publicUrl: settings.publicUrl ?? origin,
      toolkits: [...(demoApi ? [demoToolkit(origin)] : []), ...extra],
      logger: stderrLogger,
      fetch: outboundFetch, // pooled keep-alive connections instead of the global fetch
      allowPrivateNetworks: settings.allowPrivateNetworks === true,
    });
  } catch (error) {
    server.close();
    void outboundFetch.close().catch(() => {});
    await storage.close();
    throw new CliError((error as Error).message);
  }
  let key: Awaited<ReturnType<typeof firstAgentKey>>;
  try {
    key = await firstAgentKey(storage.store);
  } catch (error) {
    server.close();
    await storage.close();
    throw new CliError(storageFailure(error));
  }
  // Expired staged files, OAuth authorizations and leases: the handler's own sweeper (sweepIntervalMs).

  const toolkits = await tools.registry.list();
  // The search index, made now rather than on the first search (seconds for a collection of
  // a hundred thousand tools).
  searchIndex(toolkits);
  const command = commandName();
  process.stdout.write(
    [
      `tools-proxy: listening on ${origin}${tools.basePath}`,
      toolkitsLine(toolkits),
      ...storage.describe,
      ...(settings.rateLimit ? [rateLimitLine(settings.rateLimit, storage.rateLimitStore ? storage.redisHost : undefined)] : []),
      ...(key
        ? [`agent key ${key.id} for workspace "local", agent "agent" (printed once; only its hash is stored):`, "", `  ${key.key}`, ""]
        : [
            "agent keys: the data already has one; " +
              `make another with "${command} keys create --workspace local --agent agent" (same storage options)`,
          ]),
      ...(demoApi ? [`demo toolkit: connect it with the API key "${DEMO_API_KEY}"; its API is ${origin}${DEMO_API_PATH}`] : []),
      `sign in from the command line: ${command} login --url ${origin} --workspace local`,
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
      server.close(() => {
        void outboundFetch.close().catch(() => {}); // not awaited: the process exits next
        // The sweeper first (it may be using the blob store), then the database pool.
        void tools!
          .close()
          .then(() => storage.close())
          .catch(() => {})
          .finally(() => resolve(0));
      });
      server.closeIdleConnections();
      setTimeout(() => server.closeAllConnections(), 3000).unref();
      setTimeout(() => resolve(0), 6000); // a database that does not answer must not hold up the exit
    };
    process.on("SIGINT", stop);
    process.on("SIGTERM", stop);
  });
}

function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

/** The toolkits of a compiled collection (`import openapi --out DIR`), its tools loaded on first use. */
async function collectionToolkits(dir: string): Promise<Toolkit[]> {
  const { isCollection, loadCollection } = await import("../collection/load.js");
  if (!isCollection(dir)) {
    throw new CliError(
      `${dir} is a directory without a collection: make one with ${commandName()} import openapi <documents...> --out ${dir}.`,
    );
  }
  try {
    return loadCollection(dir, { env: process.env });
  } catch (error) {
    throw new CliError(`${dir}: ${(error as Error).message}`);
  }
}

/**
 * With --catalog, a file's toolkit that has a catalog provider's slug and is not that provider's
 * `{ "provider": ... }` entry (an `import openapi` of GitHub's own document is `github`) would
 * replace the provider; two toolkits with one slug are an error, so this refuses it and says what to do.
 */
function assertNoCatalogClash(toolkit: Toolkit, file: string): void {
  const provider = getProvider(toolkit.slug);
  if (!provider || isCatalogMade(toolkit)) return;
  throw new CliError(
    `${file}: the toolkit "${toolkit.slug}" has the slug of the catalog's ${provider.name}, which --catalog serves too, ` +
      "and two toolkits cannot share a slug. To serve its tools beside the catalog's, give it another slug " +
      `(${commandName()} import openapi <document> --slug ${toolkit.slug}_api, or edit "slug" in the file); ` +
      `to configure the catalog's ${provider.name} from a file, write { "provider": "${toolkit.slug}", "clientId": "\${...}" } instead.`,
  );
}

/** The handler's `limits`: the rate limit, if any, behind the access log's hook that notes each request's key id. */
function limitsOption(rateLimited: LimitsHook | undefined, accessLog: ReturnType<typeof createAccessLog> | null): { limits?: LimitsHook } {
  if (accessLog) return { limits: accessLog.limits(rateLimited) };
  return rateLimited ? { limits: rateLimited } : {};
}

/** The banner's rate-limit line: the rule, and where it is counted (never a Redis password). */
function rateLimitLine(rule: RateLimitRule, redisHost: string | undefined): string {
  const where = redisHost ? `counted in Redis at ${redisHost}, shared by every instance using it` : "counted in this process";
  return `rate limit: ${describeRateLimit(rule)} per API key (${where}); over it, 429 with Retry-After`;
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

/** Said once per Redis outage: what a revoked key does meanwhile. */
function warnRevocationsDown(error: Error): void {
  createSafeLogger(stderrLogger).log(
    "warn",
    "API key revocations cannot reach Redis; until it is back, another instance's revoked key is refused here within 5 s (the API key cache)",
    { error },
  );
}

/** Whether the toolkit's OAuth mode waits for its client (POST /auth for it is a 400 that says what to set). */
function oauthUnconfigured(toolkit: Toolkit): boolean {
  return toolkit.authModes.some((mode) => mode.type === "oauth2" && mode.unconfigured);
}

/** The toolkits served: each by name, or for a catalog's worth a count and what is left to configure. */
function toolkitsLine(toolkits: Toolkit[]): string {
  if (toolkits.length <= 12) {
    const each = toolkits.map((t) => `${t.slug} (${toolCount(t)} tools${oauthUnconfigured(t) ? ", OAuth not configured" : ""})`);
    return `toolkits: ${each.join(", ") || "none"}`;
  }
  const tools = toolkits.reduce((sum, t) => sum + toolCount(t), 0);
  const unconfigured = toolkits.filter(oauthUnconfigured).length;
  return (
    `toolkits: ${toolkits.length} with ${tools} tools; ${unconfigured} OAuth providers are not configured ` +
    "(set TOOLS_PROXY_<SLUG>_CLIENT_ID and TOOLS_PROXY_<SLUG>_CLIENT_SECRET)"
  );
}
