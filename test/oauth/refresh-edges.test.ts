/**
 * Token refresh against a scripted token endpoint, for the answers and races a real provider does
 * not produce on demand: when a token is due (from its stored expiry, so without waiting), what a
 * refresh answer leaves in the stored connection, each way a refresh fails, a save that meets a
 * concurrent edit or a deleted connection, a lease held elsewhere, and a 401 after another process
 * refreshed. Every case checks what the provider and the API received, the stored row, the answer
 * and the log, and no case lets a token into an answer, a log line or an event.
 */
import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { z } from "zod";
import { sealCredential } from "../../src/credentials/sealing.js";
import {
  bearer,
  type Credential,
  createCredentialCipher,
  createToolsHandler,
  defineTool,
  defineToolkit,
  issueApiKey,
  type LeaseStore,
  memoryStore,
  oauth2,
  ToolRunError,
  type ToolsEvents,
  type ToolsStore,
} from "../../src/index.js";

const RUN = Math.random().toString(36).slice(2, 10);
const SECRET = `refresh-edges-secret-${RUN}-0123456789abcdef`;
const CLIENT_SECRET = `client-secret-${RUN}-0123456789`;
const cipher = createCredentialCipher(SECRET);

/** One answer of the scripted token endpoint: JSON (an object) or raw text. */
interface Answer {
  status?: number;
  body: Record<string, unknown> | string;
}

let server: Server;
let origin: string;
/** The token endpoint's next answers, first in first out; when empty it issues a rotated pair. */
const script: Answer[] = [];
/** Runs when a token request arrives, before it is answered (a race another process wins). */
let onTokenRequest: (() => Promise<void>) | undefined;
/** Runs when the API is about to refuse a token with a 401. */
let onRefused: (() => Promise<void>) | undefined;
const tokenRequests: Array<{ grantType: string | null; refreshToken: string | null; basic: boolean }> = [];
const apiRequests: Array<[string, number]> = [];
/** Access tokens the API accepts. */
const valid = new Set<string>();
/** Every token issued or stored by these tests: none may appear in an answer, a log line or an event. */
const secrets = new Set<string>([SECRET, CLIENT_SECRET]);
let counter = 0;

const token = (kind: string) => {
  const value = `${kind}-${RUN}-${++counter}-abcdefghij`;
  secrets.add(value);
  return value;
};

async function readBody(req: IncomingMessage): Promise<string> {
  let body = "";
  for await (const chunk of req) body += chunk;
  return body;
}

beforeAll(async () => {
  server = createServer(async (req, res) => {
    const url = new URL(req.url ?? "/", "http://x");
    if (url.pathname === "/token") {
      const form = new URLSearchParams(await readBody(req));
      tokenRequests.push({
        grantType: form.get("grant_type"),
        refreshToken: form.get("refresh_token"),
        basic: (req.headers.authorization ?? "").startsWith("Basic "),
      });
      await onTokenRequest?.();
      const answer: Answer = script.shift() ?? {
        body: { access_token: token("at"), token_type: "Bearer", expires_in: 3600, refresh_token: token("rt") },
      };
      if (typeof answer.body === "object" && typeof answer.body.access_token === "string") valid.add(answer.body.access_token);
      res.writeHead(answer.status ?? 200, { "content-type": "application/json", "cache-control": "no-store" });
      res.end(typeof answer.body === "string" ? answer.body : JSON.stringify(answer.body));
      return;
    }
    const bearer = (req.headers.authorization ?? "").replace(/^Bearer /, "");
    const ok = valid.has(bearer);
    if (!ok) await onRefused?.();
    apiRequests.push([bearer, ok ? 200 : 401]);
    res
      .writeHead(ok ? 200 : 401, { "content-type": "application/json" })
      .end(JSON.stringify(ok ? { ok: true } : { error: "invalid_token" }));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterEach(() => {
  vi.useRealTimers();
  vi.restoreAllMocks();
  script.length = 0;
  onTokenRequest = undefined;
  onRefused = undefined;
});
afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
});

/** The toolkit of the scripted provider; `bearer` declares it as it would be after switching to a plain bearer token. */
function scriptedToolkit(scheme: "oauth2" | "bearer" = "oauth2") {
  return defineToolkit({
    slug: "scripted",
    name: "Scripted",
    description: "An API behind a scripted OAuth provider.",
    baseUrl: `${origin}/api`,
    auth:
      scheme === "bearer"
        ? bearer()
        : oauth2({
            authorizationUrl: `${origin}/authorize`,
            tokenUrl: `${origin}/token`,
            clientId: "scripted-client",
            clientSecret: CLIENT_SECRET,
            scopes: ["read"],
          }),
    tools: [
      defineTool({
        slug: "SCRIPTED_ME",
        name: "Me",
        description: "Reads the account.",
        input: z.object({}),
        run: async (_args, ctx) => {
          const response = await ctx.fetch(`${origin}/api/me`);
          if (!response.ok) throw new ToolRunError(`The API answered ${response.status}.`, { upstreamStatus: response.status });
          return response.json();
        },
      }),
    ],
  });
}

/** A handler over `store`, with its answers, log lines and events recorded. */
async function setup(
  options: { store?: ToolsStore; leases?: LeaseStore; scheme?: "oauth2" | "bearer"; fetch?: typeof fetch; refreshLeaseMs?: number } = {},
) {
  const store = options.store ?? memoryStore();
  const logs: Array<{ level: string; message: string; fields: unknown }> = [];
  const events: Array<{ event: string; payload: unknown }> = [];
  const answers: string[] = [];
  const record = (level: string) => (message: string, fields?: Record<string, unknown>) => void logs.push({ level, message, fields });
  const hook =
    <E extends keyof ToolsEvents>(event: E) =>
    (payload: ToolsEvents[E]) =>
      void events.push({ event, payload });
  const handler = createToolsHandler({
    store,
    ...(options.leases ? { leases: options.leases } : {}),
    ...(options.fetch ? { fetch: options.fetch } : {}),
    ...(options.refreshLeaseMs ? { refreshLeaseMs: options.refreshLeaseMs } : {}),
    secret: SECRET,
    publicUrl: "https://app.test",
    toolkits: [scriptedToolkit(options.scheme)],
    logger: { debug: record("debug"), info: record("info"), warn: record("warn"), error: record("error") },
    hooks: { "token.refreshed": hook("token.refreshed"), "connection.expired": hook("connection.expired") },
  });
  const { key } = await issueApiKey(store, { workspaceId: "ws1", agentId: "agent-s" });
  secrets.add(key);

  /** Stores a connection whose access token the API accepts, expiring `expiresInMs` from now (null: never). */
  async function insert(credential: Partial<Extract<Credential, { type: "oauth2" }>> = {}, expiresInMs: number | null = 3600_000) {
    const id = `conn_scripted_${++counter}`;
    const full = { type: "oauth2" as const, accessToken: token("at"), refreshToken: token("rt"), tokenType: "Bearer", ...credential };
    valid.add(full.accessToken);
    const now = new Date();
    await store.createConnection({
      id,
      workspaceId: "ws1",
      agentId: "agent-s",
      toolkit: "scripted",
      label: "Scripted",
      remoteUser: "",
      status: "active",
      statusReason: null,
      credentials: await sealCredential({ cipher }, id, full),
      scopes: ["read"],
      params: {},
      credentialsExpireAt: expiresInMs === null ? null : new Date(now.getTime() + expiresInMs),
      createdAt: now,
      updatedAt: now,
      version: 1,
    });
    return { id, credential: full };
  }

  async function send(method: string, path: string, body?: unknown) {
    const response = await handler(
      new Request(`https://app.test/proxy/tools${path}`, {
        method,
        headers: { "x-api-key": key, "content-type": "application/json" },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      }),
    );
    const text = await response.text();
    answers.push(`${JSON.stringify(Object.fromEntries(response.headers))} ${text}`);
    return { status: response.status, headers: response.headers, json: JSON.parse(text) };
  }

  const execute = (connectionId: string) => send("POST", "/execute", { tool: "SCRIPTED_ME", connection_id: connectionId });

  async function stored(connectionId: string) {
    const row = (await store.getConnection(connectionId))!;
    return { row, credential: JSON.parse(await cipher.decrypt(row.credentials, row.id)) as Extract<Credential, { type: "oauth2" }> };
  }

  function assertNoLeaks() {
    const outputs = [
      ...answers,
      ...logs.map((l) => `${l.message} ${JSON.stringify(l.fields)}`),
      ...events.map((e) => JSON.stringify(e.payload)),
    ];
    const leaks = outputs.flatMap((output) =>
      [...secrets].filter((secret) => output.includes(secret)).map((s) => `${s.slice(0, 8)}… in ${output}`),
    );
    expect(leaks).toEqual([]);
  }

  return { handler, store, logs, events, insert, send, execute, stored, assertNoLeaks };
}

const refreshesSince = (mark: number) => tokenRequests.slice(mark).length;

/** Another process's refresh: the connection's stored access token becomes `accessToken` (which the API accepts), due in an hour. */
async function refreshElsewhere(store: ToolsStore, id: string, accessToken: string): Promise<void> {
  valid.add(accessToken);
  const row = (await store.getConnection(id))!;
  const credential = JSON.parse(await cipher.decrypt(row.credentials, id));
  await store.updateConnection(id, {
    updatedAt: new Date(),
    credentials: await sealCredential({ cipher }, id, { ...credential, accessToken }),
    credentialsExpireAt: new Date(Date.now() + 3600_000),
  });
}

describe("a token is refreshed before the call when it is within a quarter of its lifetime (at most 60 s) of expiry", () => {
  it.each([
    ["expires in 10 min, lifetime 1 h", 600_000, 3600, false],
    ["expires in 30 s, lifetime 1 h (margin 60 s)", 30_000, 3600, true],
    ["expires in 30 s, lifetime 60 s (margin 15 s)", 30_000, 60, false],
    ["expires in 10 s, lifetime 60 s (margin 15 s)", 10_000, 60, true],
    ["expires in 30 s, lifetime not known (margin 60 s)", 30_000, undefined, true],
    ["expired a minute ago", -60_000, 3600, true],
    ["never expires", null, 3600, false],
  ])("%s: refreshed %s", async (_name, expiresInMs, lifetime, refreshed) => {
    const s = await setup();
    const { id, credential } = await s.insert(lifetime === undefined ? {} : { expiresIn: lifetime }, expiresInMs);
    const mark = tokenRequests.length;
    const apiMark = apiRequests.length;
    expect((await s.execute(id)).json).toMatchObject({ successful: true, data: { ok: true } });
    expect(refreshesSince(mark)).toBe(refreshed ? 1 : 0);
    const sent = apiRequests.slice(apiMark).map(([t]) => t);
    expect(sent).toEqual([(await s.stored(id)).credential.accessToken]);
    expect(sent[0] === credential.accessToken).toBe(!refreshed);
    s.assertNoLeaks();
  });
});

describe("a connection made while the toolkit used OAuth, after it switched to a bearer token", () => {
  it("sends the stored token as it is, and never refreshes it, even past its expiry", async () => {
    const s = await setup({ scheme: "bearer" });
    const { id, credential } = await s.insert({}, -60_000);
    const mark = tokenRequests.length;
    const apiMark = apiRequests.length;
    expect((await s.execute(id)).json).toMatchObject({ successful: true, data: { ok: true } });
    expect(refreshesSince(mark)).toBe(0);
    expect(apiRequests.slice(apiMark)).toEqual([[credential.accessToken, 200]]);
  });
});

describe("a connection whose provider gives no lifetime", () => {
  it("is stored without an expiry by the code exchange (with the scopes granted), and is not refreshed before a 401", async () => {
    const s = await setup();
    const started = await s.send("POST", "/auth", { toolkit: "scripted" });
    expect(started.status).toBe(200);
    const state = new URL(started.json.authorizationUrl).searchParams.get("state")!;
    const accessToken = token("at");
    script.push({ body: { access_token: accessToken, token_type: "Bearer", refresh_token: token("rt"), scope: " read  write " } });
    const mark = tokenRequests.length;
    const callback = await s.send("GET", `/auth/callback?code=code-${RUN}&state=${state}`);
    expect(callback.json).toEqual({ status: "connected", connectionId: expect.stringMatching(/^conn_/) });
    expect(tokenRequests.slice(mark).map((r) => r.grantType)).toEqual(["authorization_code"]);
    const { row, credential } = await s.stored(callback.json.connectionId);
    expect(row.credentialsExpireAt).toBeNull();
    expect(row.scopes).toEqual(["read", "write"]);
    expect(credential).toEqual({ type: "oauth2", accessToken, refreshToken: expect.any(String), tokenType: "bearer" });
    expect((await s.execute(row.id)).json.successful).toBe(true);
    expect(tokenRequests.slice(mark)).toHaveLength(1);
    s.assertNoLeaks();
  });
});

describe("what a refresh stores", () => {
  it("a rotating provider: the new pair, the lifetime and expiry, the granted scopes, the old ID token, and the event", async () => {
    const s = await setup();
    const { id, credential } = await s.insert({ idToken: "id-token-kept-0123456789", expiresIn: 3600 }, -1000);
    secrets.add("id-token-kept-0123456789");
    const next = { access_token: token("at"), refresh_token: token("rt"), token_type: "Bearer", expires_in: 1800, scope: " read  write " };
    script.push({ body: next });
    const mark = tokenRequests.length;
    const before = Date.now();

    expect((await s.execute(id)).json.successful).toBe(true);
    expect(tokenRequests.slice(mark)).toEqual([{ grantType: "refresh_token", refreshToken: credential.refreshToken, basic: true }]);
    const { row, credential: saved } = await s.stored(id);
    expect(saved).toEqual({
      type: "oauth2",
      accessToken: next.access_token,
      refreshToken: next.refresh_token,
      tokenType: "bearer",
      idToken: "id-token-kept-0123456789",
      expiresIn: 1800,
    });
    expect(row.scopes).toEqual(["read", "write"]);
    expect(row.credentialsExpireAt!.getTime()).toBeGreaterThanOrEqual(before + 1800_000);
    expect(row.credentialsExpireAt!.getTime()).toBeLessThanOrEqual(Date.now() + 1800_000);
    expect(s.events).toEqual([
      {
        event: "token.refreshed",
        payload: { connectionId: id, toolkit: "scripted", expiresAt: row.credentialsExpireAt, rotated: true },
      },
    ]);
    s.assertNoLeaks();
  });

  it.each([
    ["sends none", {}],
    ["sends the same one back", { same: true }],
  ])("a provider that does not rotate (%s): the old refresh token is kept, and the event says not rotated", async (_how, how) => {
    const s = await setup();
    const { id, credential } = await s.insert({}, -1000);
    const accessToken = token("at");
    script.push({
      body: {
        access_token: accessToken,
        token_type: "Bearer",
        expires_in: 3600,
        ...("same" in how ? { refresh_token: credential.refreshToken } : {}),
      },
    });
    expect((await s.execute(id)).json.successful).toBe(true);
    const { row, credential: saved } = await s.stored(id);
    expect(saved).toEqual({ type: "oauth2", accessToken, refreshToken: credential.refreshToken, tokenType: "bearer", expiresIn: 3600 });
    expect(row.scopes).toEqual(["read"]);
    expect(s.events.map((e) => e.payload)).toEqual([expect.objectContaining({ connectionId: id, rotated: false })]);
  });

  it("an answer without a lifetime: no expiry is stored, and the token is not refreshed again before a 401", async () => {
    const s = await setup();
    const { id } = await s.insert({ expiresIn: 3600 }, -1000);
    const accessToken = token("at");
    script.push({ body: { access_token: accessToken, token_type: "Bearer" } });
    expect((await s.execute(id)).json.successful).toBe(true);
    const { row, credential } = await s.stored(id);
    expect(row.credentialsExpireAt).toBeNull();
    expect(credential).not.toHaveProperty("expiresIn");
    expect(credential).not.toHaveProperty("idToken");
    expect(s.events.map((e) => e.payload)).toEqual([expect.objectContaining({ expiresAt: null })]);
    const mark = tokenRequests.length;
    expect((await s.execute(id)).json.successful).toBe(true);
    expect(refreshesSince(mark)).toBe(0);
  });

  it("refreshes again when the refreshed token is due in its turn (nothing of the first refresh is reused)", async () => {
    const s = await setup();
    const { id } = await s.insert({}, -1000);
    const mark = tokenRequests.length;
    expect((await s.execute(id)).json.successful).toBe(true);
    const first = await s.stored(id);
    await s.store.updateConnection(id, { updatedAt: new Date(), credentialsExpireAt: new Date(Date.now() - 1000) });
    expect((await s.execute(id)).json.successful).toBe(true);
    const second = await s.stored(id);
    expect(refreshesSince(mark)).toBe(2);
    expect(tokenRequests.slice(mark).map((r) => r.refreshToken)).toEqual([expect.any(String), first.credential.refreshToken]);
    expect(second.credential.accessToken).not.toBe(first.credential.accessToken);
  });
});

describe("a refresh that fails", () => {
  it("without a refresh token: the connection expires with the reason, the call is a 409, nothing is sent", async () => {
    const s = await setup();
    const { id } = await s.insert({ refreshToken: undefined }, -1000);
    const mark = tokenRequests.length;
    const apiMark = apiRequests.length;
    const res = await s.execute(id);
    expect(res.status).toBe(409);
    const reason = "The provider gave no refresh token and the access token expired.";
    expect(res.json).toEqual({
      code: "connection_required",
      error: `Connection "${id}" is expired. ${reason} Reconnect it with POST /auth {"toolkit":"scripted"}.`,
    });
    expect((await s.stored(id)).row).toMatchObject({ status: "expired", statusReason: reason });
    expect(s.events).toEqual([{ event: "connection.expired", payload: { connectionId: id, toolkit: "scripted", reason } }]);
    expect(refreshesSince(mark)).toBe(0);
    expect(apiRequests.slice(apiMark)).toEqual([]);
  });

  it.each([
    [
      "with a description",
      { error: "invalid_grant", error_description: "the grant was revoked" },
      " (invalid_grant: the grant was revoked).",
    ],
    ["without one", { error: "invalid_grant" }, " (invalid_grant)."],
  ])("invalid_grant %s: the connection expires with the provider's reason", async (_how, body, tail) => {
    const s = await setup();
    const { id } = await s.insert({}, -1000);
    script.push({ status: 400, body });
    const res = await s.execute(id);
    expect(res.status).toBe(409);
    const reason = `The provider refused the refresh token${tail}`;
    expect((await s.stored(id)).row).toMatchObject({ status: "expired", statusReason: reason });
    expect(res.json.error).toContain(reason);
    expect(s.events).toEqual([{ event: "connection.expired", payload: { connectionId: id, toolkit: "scripted", reason } }]);
    s.assertNoLeaks();
  });

  it.each([
    ["another error (invalid_client)", { status: 401, body: { error: "invalid_client" } }],
    ["an answer that is not JSON and quotes the refresh token", { status: 200, body: "" }],
  ])("%s: 503 with Retry-After, the connection stays active, and the warning holds no token", async (_how, answer) => {
    const s = await setup();
    // A short refresh token: a JSON parse error quotes a body of up to about 20 characters whole.
    const refreshToken = `rt-${RUN}-${++counter}`;
    secrets.add(refreshToken);
    const { id, credential } = await s.insert({ refreshToken }, -1000);
    script.push(answer.body === "" ? { status: 200, body: refreshToken } : answer);
    const res = await s.execute(id);
    expect(res.status).toBe(503);
    expect(res.json).toEqual({ code: "unavailable", error: expect.stringMatching(/token endpoint could not refresh/) });
    expect(res.headers.get("retry-after")).toBe("5");
    const { row, credential: kept } = await s.stored(id);
    expect(row.status).toBe("active");
    expect(kept).toEqual(credential);
    expect(s.logs.filter((l) => l.message === "token refresh failed")).toHaveLength(1);
    if (answer.body === "") expect(JSON.stringify(s.logs)).toContain("[redacted]");
    s.assertNoLeaks();
  });
});

describe("saving the refreshed tokens", () => {
  /** A store whose connection writes first run `before` (another process's write, or a deletion). */
  function racingStore(before: (store: ToolsStore, id: string) => Promise<void>, times = 1) {
    const store = memoryStore();
    let left = times;
    const saves: number[] = [];
    const racing: ToolsStore = {
      ...store,
      async updateConnection(id, patch, expectedVersion) {
        if (patch.credentials && left > 0) {
          left--;
          await before(store, id);
        }
        if (patch.credentials) saves.push(expectedVersion ?? -1);
        return store.updateConnection(id, patch, expectedVersion);
      },
    };
    return { store: racing, saves };
  }

  it("after a concurrent edit of another field: saved on the newer version, keeping both", async () => {
    const { store, saves } = racingStore(
      async (inner, id) => void (await inner.updateConnection(id, { updatedAt: new Date(), label: "Renamed meanwhile" })),
    );
    const s = await setup({ store });
    const { id, credential: before } = await s.insert({}, -1000);
    const apiMark = apiRequests.length;
    expect((await s.execute(id)).json.successful).toBe(true);
    const { row, credential } = await s.stored(id);
    expect(row.label).toBe("Renamed meanwhile");
    expect(credential.accessToken).not.toBe(before.accessToken);
    expect(apiRequests.slice(apiMark)).toEqual([[credential.accessToken, 200]]);
    expect(saves).toEqual([1, 2]);
  });

  it("gives up after five conflicting saves: 503, and the old tokens stay", async () => {
    const { store, saves } = racingStore(
      async (inner, id) => void (await inner.updateConnection(id, { updatedAt: new Date(), label: `edit ${Math.random()}` })),
      100,
    );
    const s = await setup({ store });
    const { id, credential } = await s.insert({}, -1000);
    const res = await s.execute(id);
    expect(res.status).toBe(503);
    expect(res.json).toEqual({ code: "unavailable", error: "The refreshed token could not be saved; retry shortly." });
    expect(res.headers.get("retry-after")).toBe("1");
    expect(saves).toHaveLength(5);
    expect((await s.stored(id)).credential).toEqual(credential);
  });

  it("after another process saved newer tokens (it took the lease once this one's ran out): the first save wins, and the call uses its token", async () => {
    const theirs = { type: "oauth2" as const, accessToken: token("at"), refreshToken: token("rt"), tokenType: "Bearer" };
    valid.add(theirs.accessToken);
    const { store, saves } = racingStore(
      async (inner, id) =>
        void (await inner.updateConnection(id, {
          updatedAt: new Date(),
          credentials: await sealCredential({ cipher }, id, theirs),
          credentialsExpireAt: new Date(Date.now() + 3600_000),
        })),
    );
    const s = await setup({ store });
    const { id } = await s.insert({}, -1000);
    const apiMark = apiRequests.length;
    const res = await s.execute(id);
    expect(res.json, JSON.stringify(res.json)).toMatchObject({ successful: true });
    expect((await s.stored(id)).credential).toEqual(theirs);
    expect(apiRequests.slice(apiMark)).toEqual([[theirs.accessToken, 200]]);
    expect(saves).toEqual([1]);
    expect(s.events.filter((e) => e.event === "token.refreshed")).toEqual([]);
    expect(s.logs).toContainEqual({
      level: "warn",
      message: "a newer credential was saved while this refresh was out; it is kept and this refresh dropped",
      fields: { connectionId: id },
    });
    s.assertNoLeaks();
  });

  it("after the connection expired meanwhile: 409 connection_required, and the expiry stays", async () => {
    const { store } = racingStore(
      async (inner, id) =>
        void (await inner.updateConnection(id, { updatedAt: new Date(), status: "expired", statusReason: "Revoked meanwhile." })),
    );
    const s = await setup({ store });
    const { id } = await s.insert({}, -1000);
    const apiMark = apiRequests.length;
    const res = await s.execute(id);
    expect(res.status).toBe(409);
    expect(res.json).toMatchObject({ code: "connection_required" });
    expect((await s.stored(id)).row).toMatchObject({ status: "expired", statusReason: "Revoked meanwhile." });
    expect(apiRequests.slice(apiMark)).toEqual([]);
    s.assertNoLeaks();
  });

  it("of a connection deleted meanwhile: 404, and nothing is stored", async () => {
    const { store } = racingStore(async (inner, id) => void (await inner.deleteConnection(id)));
    const s = await setup({ store });
    const { id } = await s.insert({}, -1000);
    const res = await s.execute(id);
    expect(res.status).toBe(404);
    expect(res.json).toEqual({ code: "not_found", error: `Connection "${id}" was deleted while its token was being refreshed.` });
    expect(await s.store.getConnection(id)).toBeNull();
  });
});

describe("the refresh lease, held by another process", () => {
  /** The store's own leases, refused `refusals` times first; `onRefuse` runs at each refusal. */
  function busyLeases(store: ToolsStore, refusals: number, onRefuse?: (attempt: number) => Promise<void> | void) {
    let attempt = 0;
    const releases: string[] = [];
    const acquires: string[] = [];
    const leases: LeaseStore = {
      async acquire(name, holder, ttlMs) {
        acquires.push(name);
        if (attempt < refusals) {
          await onRefuse?.(attempt);
          attempt++;
          return false;
        }
        return store.acquireLease(name, holder, ttlMs, new Date());
      },
      async release(name, holder) {
        releases.push(name);
        await store.releaseLease(name, holder);
      },
    };
    return { leases, releases, acquires };
  }

  it("once it is free, this call refreshes: one token request, and the lease is released", async () => {
    const store = memoryStore();
    const { leases, releases } = busyLeases(store, 2);
    const s = await setup({ store, leases });
    const { id } = await s.insert({}, -1000);
    const mark = tokenRequests.length;
    expect((await s.execute(id)).json.successful).toBe(true);
    expect(refreshesSince(mark)).toBe(1);
    expect(releases).toEqual([`oauth-refresh:${id}`]);
  });

  it("when the holder refreshed meanwhile, this call uses its token, sends no token request, and does not take the lease", async () => {
    const store = memoryStore();
    let id = "";
    const theirs = token("at");
    const { leases, acquires } = busyLeases(store, 1, () => refreshElsewhere(store, id, theirs));
    const s = await setup({ store, leases });
    ({ id } = await s.insert({}, -1000));
    const mark = tokenRequests.length;
    const apiMark = apiRequests.length;
    expect((await s.execute(id)).json.successful).toBe(true);
    expect(refreshesSince(mark)).toBe(0);
    expect(apiRequests.slice(apiMark)).toEqual([[theirs, 200]]);
    expect(acquires).toHaveLength(1);
  });

  it("when another process refreshed and let go of the lease just before this call took it, this call uses its token", async () => {
    const store = memoryStore();
    let id = "";
    const theirs = token("at");
    const leases: LeaseStore = {
      async acquire(name, holder, ttlMs) {
        await refreshElsewhere(store, id, theirs);
        return store.acquireLease(name, holder, ttlMs, new Date());
      },
      release: (name, holder) => store.releaseLease(name, holder),
    };
    const s = await setup({ store, leases });
    ({ id } = await s.insert({}, -1000));
    const mark = tokenRequests.length;
    const apiMark = apiRequests.length;
    expect((await s.execute(id)).json.successful).toBe(true);
    expect(refreshesSince(mark)).toBe(0);
    expect(apiRequests.slice(apiMark)).toEqual([[theirs, 200]]);
  });

  it("when the holder expired the connection meanwhile (invalid_grant), this call is a 409 and sends nothing", async () => {
    const store = memoryStore();
    let id = "";
    const { leases } = busyLeases(store, 1, async () => {
      await store.updateConnection(id, { updatedAt: new Date(), status: "expired", statusReason: "Refused elsewhere." });
    });
    const s = await setup({ store, leases });
    ({ id } = await s.insert({}, -1000));
    const mark = tokenRequests.length;
    const apiMark = apiRequests.length;
    const res = await s.execute(id);
    expect(res.status).toBe(409);
    expect(res.json.error).toBe(`Connection "${id}" is expired. Refused elsewhere. Reconnect it with POST /auth {"toolkit":"scripted"}.`);
    expect(refreshesSince(mark)).toBe(0);
    expect(apiRequests.slice(apiMark)).toEqual([]);
  });

  it("when the holder expired the connection as this call takes the lease, this call is a 409 and sends nothing", async () => {
    const store = memoryStore();
    let id = "";
    const leases: LeaseStore = {
      async acquire(name, holder, ttlMs) {
        await store.updateConnection(id, { updatedAt: new Date(), status: "expired", statusReason: null });
        return store.acquireLease(name, holder, ttlMs, new Date());
      },
      release: (name, holder) => store.releaseLease(name, holder),
    };
    const s = await setup({ store, leases });
    ({ id } = await s.insert({}, -1000));
    const mark = tokenRequests.length;
    const res = await s.execute(id);
    expect(res.status).toBe(409);
    expect(res.json.error).toBe(`Connection "${id}" is expired. Reconnect it with POST /auth {"toolkit":"scripted"}.`);
    expect(refreshesSince(mark)).toBe(0);
  });

  it("when the connection was deleted while waiting: 404, nothing sent", async () => {
    const store = memoryStore();
    let id = "";
    const { leases } = busyLeases(store, 1, async () => void (await store.deleteConnection(id)));
    const s = await setup({ store, leases });
    ({ id } = await s.insert({}, -1000));
    const mark = tokenRequests.length;
    const res = await s.execute(id);
    expect(res.status).toBe(404);
    expect(res.json).toEqual({ code: "not_found", error: `Connection "${id}" no longer exists.` });
    expect(refreshesSince(mark)).toBe(0);
  });

  it("held past 30 s: 503 with Retry-After, and no token request", async () => {
    const store = memoryStore();
    vi.useFakeTimers({ toFake: ["Date"], now: Date.now() });
    // The clock jumps 31 s at the third refusal; the waits between attempts are real (and short).
    const { leases } = busyLeases(store, 1000, (attempt) => {
      if (attempt === 2) vi.setSystemTime(Date.now() + 31_000);
    });
    const s = await setup({ store, leases });
    const { id } = await s.insert({}, -1000);
    const mark = tokenRequests.length;
    const res = await s.execute(id);
    expect(res.status).toBe(503);
    expect(res.json).toEqual({ code: "unavailable", error: expect.stringMatching(/being refreshed elsewhere/) });
    expect(res.headers.get("retry-after")).toBe("5");
    expect(refreshesSince(mark)).toBe(0);
  });

  it("a waiter asks the lease store again after 25 ms, doubling up to 400 ms, each wait jittered between half and one and a half", async () => {
    // Fake clock and timers: each wait is read off the clock, not measured. Jitter fixed at 0.8.
    vi.spyOn(Math, "random").mockReturnValue(0.3);
    vi.useFakeTimers({ toFake: ["setTimeout", "Date"], now: Date.now() });
    const asked: number[] = [];
    const leases: LeaseStore = {
      acquire() {
        asked.push(Date.now());
        if (asked.length === 8) vi.setSystemTime(Date.now() + 31_000);
        return false;
      },
      release() {},
    };
    const s = await setup({ leases });
    const { id } = await s.insert({}, -1000);
    let settled = false;
    const answer = s.execute(id).finally(() => (settled = true));
    while (!settled) {
      await vi.advanceTimersToNextTimerAsync();
      await new Promise((resolve) => setImmediate(resolve));
    }
    expect((await answer).status).toBe(503);
    expect(asked.slice(1).map((at, i) => at - asked[i]!)).toEqual([20, 40, 80, 160, 320, 320, 320]);
  });

  it("a token request that hangs is given up on before the lease runs out, so no second holder can refresh while it is out", async () => {
    // Fake clock and timers, AbortSignal.timeout included (vitest cannot fake it): nothing is measured.
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout", "Date"], now: Date.now() });
    vi.spyOn(AbortSignal, "timeout").mockImplementation((ms) => {
      const controller = new AbortController();
      setTimeout(() => controller.abort(new DOMException("The operation timed out.", "TimeoutError")), ms);
      return controller.signal;
    });
    const store = memoryStore();
    let leaseEnds = 0;
    const leases: LeaseStore = {
      async acquire(name, holder, ttlMs) {
        leaseEnds = Date.now() + ttlMs;
        return store.acquireLease(name, holder, ttlMs, new Date());
      },
      release: (name, holder) => store.releaseLease(name, holder),
    };
    let abandonedAt = 0;
    // The token endpoint never answers; the request ends only when its signal aborts.
    const hanging: typeof fetch = (_input, init) =>
      new Promise((_resolve, reject) =>
        init?.signal?.addEventListener("abort", () => {
          abandonedAt = Date.now();
          reject(init.signal!.reason);
        }),
      );
    const s = await setup({ store, leases, fetch: hanging, refreshLeaseMs: 1000 });
    const { id } = await s.insert({}, -1000);
    let settled = false;
    const answer = s.execute(id).finally(() => (settled = true));
    while (!settled) {
      await vi.advanceTimersToNextTimerAsync();
      await new Promise((resolve) => setImmediate(resolve));
    }
    expect((await answer).json).toMatchObject({ code: "unavailable" });
    expect(abandonedAt).toBeGreaterThan(0);
    expect(abandonedAt).toBeLessThan(leaseEnds);
  });

  it("a release that fails: the call still gets the new token, and a warning says the lease expires by itself", async () => {
    const store = memoryStore();
    const leases: LeaseStore = {
      acquire: (name, holder, ttlMs) => store.acquireLease(name, holder, ttlMs, new Date()),
      release: async () => {
        throw new Error("lease store down");
      },
    };
    const s = await setup({ store, leases });
    const { id, credential } = await s.insert({}, -1000);
    expect((await s.execute(id)).json.successful).toBe(true);
    expect((await s.stored(id)).credential.accessToken).not.toBe(credential.accessToken);
    expect(s.logs.filter((l) => l.level === "warn")).toEqual([
      {
        level: "warn",
        message: "refresh lease release failed; it expires by itself",
        fields: { connectionId: id, error: expect.objectContaining({ message: "lease store down" }) },
      },
    ]);
  });
});

describe("after a 401", () => {
  it("when another process already refreshed, the call retries with the stored token and sends no token request", async () => {
    const s = await setup();
    const { id, credential } = await s.insert({}, 3600_000);
    valid.delete(credential.accessToken);
    const theirs = token("at");
    onRefused = async () => {
      onRefused = undefined;
      valid.add(theirs);
      await s.store.updateConnection(id, {
        updatedAt: new Date(),
        credentials: await sealCredential({ cipher }, id, { ...credential, accessToken: theirs }),
      });
    };
    const mark = tokenRequests.length;
    const apiMark = apiRequests.length;
    expect((await s.execute(id)).json.successful).toBe(true);
    expect(apiRequests.slice(apiMark)).toEqual([
      [credential.accessToken, 401],
      [theirs, 200],
    ]);
    expect(refreshesSince(mark)).toBe(0);
  });

  it("a refreshed token that cannot be sent in a header: connection_required, and nothing more is sent", async () => {
    const s = await setup();
    const { id, credential } = await s.insert({}, 3600_000);
    valid.delete(credential.accessToken);
    const broken = `${token("at")}\r\nX-Injected: 1`;
    secrets.add(broken);
    script.push({ body: { access_token: broken, token_type: "Bearer", expires_in: 3600 } });
    const apiMark = apiRequests.length;
    const res = await s.execute(id);
    expect(res.json).toMatchObject({
      successful: false,
      code: "connection_required",
      error: expect.stringMatching(new RegExp(`connection "${id}" cannot be used: its accessToken contains a line break`)),
    });
    expect(apiRequests.slice(apiMark)).toEqual([[credential.accessToken, 401]]);
    s.assertNoLeaks();
  });
});
