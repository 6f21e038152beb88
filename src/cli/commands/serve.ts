/** `serve`: its options and their checks; the server itself is ../serve.ts, loaded when it runs. */
import { type Command, Option } from "commander";
import { usageError, withExamples } from "../command.js";
import { DEMO_API_KEY } from "../demo-api.js";
import { parseRateLimit } from "../rate-limit.js";
import { SERVE_ENVIRONMENT_HELP, STORAGE_HELP } from "../usage.js";
import { addStorageOptions, type StorageOptionValues, storageFlags } from "./storage.js";

interface ServeOptions extends StorageOptionValues {
  port: string;
  host: string;
  publicUrl?: string;
  toolkits?: string[];
  catalog?: boolean;
  demo: boolean;
  memory?: boolean;
  refreshLeaseMs?: string;
  rateLimit?: string;
  quiet?: boolean;
  logFormat?: string;
  allowPrivateNetworks?: boolean;
}

/** Adds `serve`. */
export function registerServe(program: Command): void {
  const serve = program
    .command("serve")
    .summary('Run a local Tools API server at /proxy/tools, with the offline "demo" toolkit')
    .description(
      `Run the Tools API at http://HOST:PORT/proxy/tools with the bundled "demo" toolkit (connect it with the API key "${DEMO_API_KEY}") ` +
        "and the toolkits of any --toolkits files. " +
        "Data persists under --data-dir (or in the --database-url database); the tables are created or upgraded at start. " +
        'When the data has no key for workspace "local" yet, ' +
        'an agent key for workspace "local", agent "agent" is created and printed once; ' +
        'make more with "tools-proxy keys create".',
    )
    .option("--port <n>", "port to listen on (0 picks a free port)", "8787")
    .option("--host <addr>", "address to listen on", "127.0.0.1")
    .option("--public-url <url>", "public origin, for OAuth redirects (default: the address listened on)")
    .option(
      "--toolkits <files...>",
      "JSON toolkit files (one toolkit or an array each), or directories of collections compiled by import openapi --out; $" +
        "{NAME} in a string is replaced by the environment variable NAME. Repeatable",
    )
    .option(
      "--catalog",
      "serve every provider of the built-in catalog; an OAuth provider reads its client from TOOLS_PROXY_<SLUG>_CLIENT_ID " +
        "and TOOLS_PROXY_<SLUG>_CLIENT_SECRET (e.g. TOOLS_PROXY_GITHUB_CLIENT_ID), else it is listed as not configured",
    )
    .option("--no-demo", 'leave out the bundled "demo" toolkit')
    .addOption(new Option("--memory", "keep everything in memory: nothing is written, a new key at every start"))
    .option(
      "--refresh-lease-ms <ms>",
      "longest hold of an OAuth refresh lease (default 60000): how long a crashed instance can hold up a connection's token refresh",
    )
    .option(
      "--rate-limit <rate>",
      "requests per API key, e.g. 600/1m, 10/s or 100/1h (a burst of that many, then one every PERIOD/N); over it, 429 with Retry-After. " +
        "Counted in Redis with --redis-url (shared by instances), else in this process. Default off (env TOOLS_PROXY_RATE_LIMIT)",
    )
    .option(
      "--allow-private-networks",
      "let connections name an http origin or a host on a private network (self-managed servers on premises); " +
        "by default an origin input must be a public https host",
    )
    .option(
      "--quiet",
      "no access log (by default, one line per request on stderr: method, path without the query, status, milliseconds, key id)",
    )
    .addOption(
      new Option(
        "--log-format <format>",
        "the access log's format: text, one readable line per request (the default), or json, one JSON object per line",
      ).choices(["text", "json"]),
    );
  addStorageOptions(serve)
    .addHelpText("after", `\n${STORAGE_HELP}\n\n${SERVE_ENVIRONMENT_HELP}`)
    .action(async (opts: ServeOptions) => {
      const port = Number(opts.port);
      if (!/^\d+$/.test(opts.port) || port > 65535) throw usageError(serve, `--port must be a number from 0 to 65535, not "${opts.port}".`);
      if (opts.publicUrl !== undefined && !/^https?:\/\/[^/]/i.test(opts.publicUrl))
        throw usageError(serve, "--public-url must be an http(s) URL such as https://tools.example.com.");
      const leaseText = opts.refreshLeaseMs;
      const refreshLeaseMs = leaseText === undefined ? undefined : Number(leaseText);
      if (leaseText !== undefined && (!/^\d+$/.test(leaseText) || refreshLeaseMs! < 100))
        throw usageError(serve, "--refresh-lease-ms must be a whole number of milliseconds, at least 100.");
      const rateText = opts.rateLimit ?? (process.env.TOOLS_PROXY_RATE_LIMIT || undefined);
      let rateLimit: ReturnType<typeof parseRateLimit> | undefined;
      try {
        rateLimit =
          rateText === undefined
            ? undefined
            : (parseRateLimit(rateText, opts.rateLimit !== undefined ? "--rate-limit" : "TOOLS_PROXY_RATE_LIMIT") ?? undefined);
      } catch (error) {
        throw usageError(serve, (error as Error).message);
      }
      if (opts.quiet && opts.logFormat !== undefined)
        throw usageError(
          serve,
          "--quiet and --log-format contradict each other: --quiet turns the access log off, --log-format sets its format. " +
            "Leave out one of them.",
        );
      const { runServe } = await import("../serve.js");
      process.exitCode = await runServe({
        port,
        host: opts.host,
        publicUrl: opts.publicUrl,
        toolkitFiles: opts.toolkits ?? [],
        catalog: opts.catalog ?? false,
        demo: opts.demo,
        refreshLeaseMs,
        rateLimit,
        storage: { ...storageFlags(opts), memory: opts.memory },
        accessLog: opts.quiet ? null : opts.logFormat === "json" ? "json" : "text",
        allowPrivateNetworks: opts.allowPrivateNetworks === true,
      });
    });
  withExamples(
    serve,
    "tools-proxy serve --port 8787 --toolkits ./acme.json",
    "TOOLS_PROXY_DATABASE_URL=postgres://app@db/app TOOLS_PROXY_SECRET=... " +
      "tools-proxy serve --host 0.0.0.0 --redis-url redis://cache:6379 --rate-limit 600/1m",
  );
}
