/**
 * `npm run bench:scale`, second part (issue 22, target 6): 1, 2 and 4 `tools-proxy serve`
 * processes on one PostgreSQL database and one Redis, with the load spread over them, and what
 * must not be lost: no errors, one token refresh per expiry across all of them (a local OAuth
 * token endpoint counts them), the rate limit shared, a refresh lease freed after its holder is
 * killed (SIGKILL). Then the database round trips of each route, counted in process with a
 * Kysely log hook. Needs `npm run build` (it runs dist/cli/main.js). A report: exits 0.
 *
 * Environment: BENCH_SECONDS (per run, default 4), BENCH_CONNECTIONS (default 10, spread over
 * the instances), BENCH_TOKEN_TTL (access token lifetime, seconds, default 4), BENCH_REDIS_URL.
 */
import { type ChildProcessWithoutNullStreams, spawn } from "node:child_process";
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { Kysely, PostgresDialect } from "kysely";
import pg from "pg";
import { createCredentialCipher } from "../src/credentials/cipher.js";
import { sealCredential } from "../src/credentials/sealing.js";
import { createToolsHandler, issueApiKey } from "../src/index.js";
import { sqlStore } from "../src/store/sql/index.js";
import { runLoad, type Sample } from "./load.js";
import { positive, progress, report } from "./report.js";
import { createDatabase } from "./scale-fill.js";

const SECONDS = positive("BENCH_SECONDS", 4);
const CONNECTIONS = positive("BENCH_CONNECTIONS", 10);
const TOKEN_TTL = positive("BENCH_TOKEN_TTL", 4);
const REDIS_URL = process.env.BENCH_REDIS_URL ?? "redis://127.0.0.1:6379";
const BIN = fileURLToPath(new URL("../dist/cli/main.js", import.meta.url));
const SECRET = `bench-instances-${Math.random().toString(36).slice(2)}-0123456789abcdef`;
const LEASE_MS = 2000;

/** The provider: a token endpoint that counts refreshes, and an API that takes only live tokens. */
function provider() {
  const live = new Map<string, number>();
  const refreshes: number[] = [];
  let tokenDelayMs = 0;
  let refused = 0;
  const server = createServer((req, res) => {
    let body = "";
    req.on("data", (chunk) => (body += chunk));
    req.on("end", () => {
      if (req.url === "/token") {
        const grant = new URLSearchParams(body).get("grant_type");
        if (grant === "refresh_token") refreshes.push(Date.now()); // counted on arrival, answered after any delay
        const answer = () => {
          if (grant !== "refresh_token") return send(res, 400, { error: "unsupported_grant_type" });
          const token = `at_${Math.random().toString(36).slice(2)}`;
          live.set(token, Date.now() + TOKEN_TTL * 1000);
          send(res, 200, { access_token: token, token_type: "Bearer", expires_in: TOKEN_TTL, refresh_token: "rt_bench" });
        };
        return tokenDelayMs ? setTimeout(answer, tokenDelayMs) : answer();
      }
      const token = /^Bearer (.+)$/.exec(req.headers.authorization ?? "")?.[1];
      const expires = token ? live.get(token) : undefined;
      if (expires === undefined || expires < Date.now()) {
        refused++;
        return send(res, 401, { error: "invalid_token" });
      }
      send(res, 200, { id: "item_1" });
    });
  });
  return {
    server,
    refreshes,
    refused: () => refused,
    setTokenDelay: (ms: number) => {
      tokenDelayMs = ms;
    },
    issue(ttlSeconds: number) {
      const token = `at_${Math.random().toString(36).slice(2)}`;
      live.set(token, Date.now() + ttlSeconds * 1000);
      return token;
    },
  };
}

function send(res: import("node:http").ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { "content-type": "application/json", "content-length": Buffer.byteLength(text) });
  res.end(text);
}

interface Serve {
  child: ChildProcessWithoutNullStreams;
  api: string;
  stop(): Promise<void>;
  kill(): Promise<void>;
}

async function startServe(args: string[], env: Record<string, string>): Promise<Serve> {
  const child = spawn(process.execPath, [BIN, "serve", "--port", "0", "--quiet", ...args], { env: { ...process.env, ...env } });
  let out = "";
  let err = "";
  child.stdout.setEncoding("utf8").on("data", (chunk: string) => (out += chunk));
  child.stderr.setEncoding("utf8").on("data", (chunk: string) => (err += chunk));
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`serve did not start in 30 s: ${err}`)), 30_000);
    child.stdout.on("data", () => out.includes("Press Ctrl+C") && (clearTimeout(timer), resolve()));
    void exited.then(() => (clearTimeout(timer), reject(new Error(`serve exited: ${err}`))));
  });
  const api = /listening on (http:\/\/\S+)/.exec(out)![1]!;
  const signal = (name: NodeJS.Signals) => async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill(name);
    await exited;
  };
  return { child, api, stop: signal("SIGTERM"), kill: signal("SIGKILL") };
}

async function main(): Promise<void> {
  if (!existsSync(BIN)) {
    console.log(`instances: skipped: ${BIN} does not exist; run \`npm run build\` first.`);
    return;
  }
  const oauth = provider();
  await new Promise<void>((resolve) => oauth.server.listen(0, "127.0.0.1", resolve));
  const origin = `http://127.0.0.1:${(oauth.server.address() as AddressInfo).port}`;
  const database = await createDatabase("postgres", "instances");
  const dir = mkdtempSync(join(tmpdir(), "tp-instances-"));
  const running: Serve[] = [];
  try {
    const toolkitFile = join(dir, "acme.json");
    writeFileSync(
      toolkitFile,
      JSON.stringify({
        slug: "acme",
        name: "Acme",
        description: "The bench's OAuth provider on loopback.",
        baseUrl: origin,
        auth: {
          type: "oauth2",
          authorizationUrl: `${origin}/authorize`,
          tokenUrl: `${origin}/token`,
          clientId: "bench",
          clientSecret: "bench",
        },
        tools: [{ slug: "ACME_GET_ITEM", name: "Get item", description: "Reads one item.", method: "GET", path: "/items/1" }],
      }),
    );
    const store = sqlStore({ url: database.url });
    await store.migrate();
    const { key } = await issueApiKey(store, { workspaceId: "local", agentId: "agent" });
    const connectionId = `conn_bench_${Math.random().toString(36).slice(2)}`;
    const now = new Date();
    const cipher = createCredentialCipher(SECRET);
    const seal = (accessToken: string, ttl: number) =>
      sealCredential({ cipher }, connectionId, {
        type: "oauth2",
        accessToken,
        refreshToken: "rt_bench",
        tokenType: "Bearer",
        expiresIn: ttl,
      });
    await store.createConnection({
      id: connectionId,
      workspaceId: "local",
      agentId: "agent",
      toolkit: "acme",
      label: "bench",
      remoteUser: "bench",
      status: "active",
      statusReason: null,
      credentials: await seal(oauth.issue(TOKEN_TTL), TOKEN_TTL),
      scopes: [],
      params: {},
      credentialsExpireAt: new Date(Date.now() + TOKEN_TTL * 1000),
      createdAt: now,
      updatedAt: now,
      version: 1,
    });
    const env = { TOOLS_PROXY_SECRET: SECRET, TOOLS_PROXY_DATABASE_URL: database.url, TOOLS_PROXY_REDIS_URL: REDIS_URL };
    const baseArgs = ["--no-demo", "--toolkits", toolkitFile, "--data-dir", join(dir, "data"), "--refresh-lease-ms", String(LEASE_MS)];
    const body = JSON.stringify({ tool: "ACME_GET_ITEM", arguments: {}, connection_id: connectionId });

    console.log(`several instances (issue 22, target 6): serve processes on one PostgreSQL database and one Redis (${REDIS_URL})`);
    console.log(
      `load: POST /execute of an OAuth tool whose token lives ${TOKEN_TTL} s, ${CONNECTIONS} connections spread over the instances, ${SECONDS} s`,
    );
    const rows = [["instances", "req/s (sum)", "errors", "refreshes", "token lifetimes elapsed", "refused by the API"]];
    for (const count of [1, 2, 4]) {
      progress(`starting ${count} instance(s)`);
      const instances = await Promise.all(Array.from({ length: count }, () => startServe(baseArgs, env)));
      running.push(...instances);
      const before = oauth.refreshes.length;
      const refusedBefore = oauth.refused();
      const started = Date.now();
      progress(`load on ${count} instance(s)`);
      const share = Array.from({ length: count }, (_, i) => Math.floor(CONNECTIONS / count) + (i < CONNECTIONS % count ? 1 : 0));
      const samples: Sample[] = await Promise.all(
        instances.map((serve, i) =>
          runLoad(
            { url: `${serve.api}/execute`, method: "POST", headers: { "x-api-key": key, "content-type": "application/json" }, body },
            Math.max(1, share[i]!),
            SECONDS,
          ),
        ),
      );
      const elapsed = (Date.now() - started) / 1000;
      rows.push([
        String(count),
        samples.reduce((n, s) => n + s.rps, 0).toFixed(0),
        String(samples.reduce((n, s) => n + s.failures, 0)),
        String(oauth.refreshes.length - before),
        (elapsed / TOKEN_TTL).toFixed(1),
        String(oauth.refused() - refusedBefore),
      ]);
      await Promise.all(instances.map((serve) => serve.stop()));
      running.length = 0;
    }
    progress("");
    printTable(rows);
    console.log(
      `  refreshes: a token is refreshed once it is within a quarter of its lifetime of expiry, so about ${(4 / 3).toFixed(2)} per lifetime elapsed is one per expiry; several instances must not make more`,
    );
    console.log("");

    // The rate limit, counted in Redis: 2 instances, a burst of 20 per key, 40 requests alternating.
    progress("rate limit shared by 2 instances");
    const limited = await Promise.all([0, 1].map(() => startServe([...baseArgs, "--rate-limit", "20/1m"], env)));
    running.push(...limited);
    const statuses: number[] = [];
    for (let i = 0; i < 40; i++) {
      const response = await fetch(`${limited[i % 2]!.api}/connections`, { headers: { "x-api-key": key } });
      await response.arrayBuffer();
      statuses.push(response.status);
    }
    await Promise.all(limited.map((serve) => serve.stop()));
    running.length = 0;
    const accepted = statuses.filter((s) => s === 200).length;
    const refused = statuses.filter((s) => s === 429).length;
    console.log(
      `rate limit 20/1m per key on 2 instances, 40 requests alternating: ${accepted} accepted, ${refused} refused (429): ${accepted === 20 && refused === 20 ? "shared (MET)" : "NOT shared"}`,
    );

    // A refresh lease held by a killed instance frees itself after --refresh-lease-ms.
    progress("a killed lease holder");
    const [a, b] = await Promise.all([0, 1].map(() => startServe(baseArgs, env)));
    running.push(a!, b!);
    await store.updateConnection(connectionId, { credentialsExpireAt: new Date(Date.now() - 1000), updatedAt: new Date() });
    oauth.setTokenDelay(60_000);
    const refreshesBefore = oauth.refreshes.length;
    const headers = { "x-api-key": key, "content-type": "application/json" };
    void fetch(`${a!.api}/execute`, { method: "POST", headers, body }).catch(() => {});
    while (oauth.refreshes.length === refreshesBefore) await new Promise((resolve) => setTimeout(resolve, 20));
    await a!.kill();
    const killedAt = Date.now();
    oauth.setTokenDelay(0);
    const onB = await fetch(`${b!.api}/execute`, { method: "POST", headers, body });
    const answer = (await onB.json()) as { successful?: boolean };
    const [held, takeover] = oauth.refreshes.slice(refreshesBefore);
    const after = takeover === undefined ? null : takeover - held!;
    const met = answer.successful === true && after !== null && after >= LEASE_MS - 100;
    console.log(
      `refresh lease (${LEASE_MS} ms) of an instance killed mid-refresh (SIGKILL ${killedAt - held!} ms after it took the lease): ` +
        `the other instance refreshed ${after === null ? "never" : `${after} ms after the holder`}, and its call ${answer.successful ? "succeeded" : `failed (${onB.status})`}: ` +
        `${met ? "the lease expired and was taken over, never shared (MET)" : "NOT MET"}`,
    );
    await b!.stop();
    running.length = 0;
    await store.close();
    console.log("");

    await roundTrips(database.url, toolkitFile, origin);
  } finally {
    await Promise.all(running.map((serve) => serve.kill()));
    oauth.server.close();
    await database.drop().catch(() => {});
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * Database round trips per request of each route, counted by a Kysely log hook on a handler in
 * this process (the same code `serve` runs), on a warm handler.
 */
async function roundTrips(url: string, toolkitFile: string, origin: string): Promise<void> {
  let queries: string[] = [];
  const db = new Kysely<any>({
    dialect: new PostgresDialect({ pool: new pg.Pool({ connectionString: url, max: 2 }) }),
    log: (event) => {
      if (event.level === "query") queries.push(event.query.sql);
    },
  });
  const store = sqlStore({ db });
  const { parseToolkitFile } = await import("../src/index.js");
  const { readFileSync } = await import("node:fs");
  const toolkits = parseToolkitFile(readFileSync(toolkitFile, "utf8"));
  const tools = createToolsHandler({ store, secret: SECRET, toolkits });
  const agent = await issueApiKey(store, { workspaceId: "local", agentId: "agent" });
  const service = await issueApiKey(store, { kind: "service", workspaceId: "local" });
  const [connection] = await store.listConnections({ workspaceId: "local", agentId: "agent" });
  const base = "http://bench.invalid/proxy/tools";
  const calls: Array<[string, () => Request]> = [
    ["unknown key -> 401", () => new Request(`${base}/connections`, { headers: { "x-api-key": `pak_${"x".repeat(43)}` } })],
    ["GET /connections (agent)", () => new Request(`${base}/connections`, { headers: { "x-api-key": agent.key } })],
    ["GET /connections?limit=50 (service)", () => new Request(`${base}/connections?limit=50`, { headers: { "x-api-key": service.key } })],
    ["GET /search", () => new Request(`${base}/search?limit=5`, { headers: { "x-api-key": agent.key } })],
    [
      "POST /execute (connection_id given)",
      () =>
        new Request(`${base}/execute`, {
          method: "POST",
          headers: { "x-api-key": agent.key, "content-type": "application/json" },
          body: JSON.stringify({ tool: "ACME_GET_ITEM", arguments: {}, connection_id: connection!.id }),
        }),
    ],
    [
      "POST /execute (one connection, none named)",
      () =>
        new Request(`${base}/execute`, {
          method: "POST",
          headers: { "x-api-key": agent.key, "content-type": "application/json" },
          body: JSON.stringify({ tool: "ACME_GET_ITEM", arguments: {} }),
        }),
    ],
    [
      "POST /proxy",
      () =>
        new Request(`${base}/proxy`, {
          method: "POST",
          headers: { "x-api-key": agent.key, "content-type": "application/json" },
          body: JSON.stringify({ toolkit: "acme", method: "GET", url: `${origin}/items/1` }),
        }),
    ],
  ];
  console.log("database round trips per request (Kysely log hook, warm handler, PostgreSQL)");
  for (const [label, request] of calls) {
    await (await tools(request())).arrayBuffer(); // warm: a refresh, if due, is not counted
    queries = [];
    const response = await tools(request());
    await response.arrayBuffer();
    const kinds = queries.map((q) =>
      q
        .split(/\s+/)
        .slice(0, 4)
        .join(" ")
        .replace(/"tools_proxy_/g, '"'),
    );
    console.log(`  ${label.padEnd(44)} ${String(queries.length).padStart(2)}  (${response.status}; ${kinds.join(" | ")})`);
  }
  await tools.close();
  await db.destroy();
}

function printTable(rows: string[][]): void {
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => r[i]!.length)));
  for (const [index, row] of rows.entries()) {
    console.log(`  ${row.map((cell, i) => cell.padStart(widths[i]!)).join("  ")}`);
    if (index === 0) console.log(`  ${widths.map((w) => "-".repeat(w)).join("  ")}`);
  }
}

report(main);
