/**
 * The grant engine unit by unit, with a scripted grant in place of `GRANTS.clientCredentials` and a
 * real handler context on a memory store (the HTTP flows beside this file prove the real grants):
 * when a token is asked for (none, within the margin, refused with 401), that concurrent callers
 * and two processes on one store share one request, what is sealed and saved, and what each
 * failure becomes (a refusal: 400 or an expired connection; anything else: a 503), never with a
 * secret in an error, a log line or an event.
 */
import { afterEach, describe, expect, it } from "vitest";
import type { HandlerContext } from "../../src/context/context.js";
import { createHandlerContext } from "../../src/context/create.js";
import { ToolsError } from "../../src/core/errors.js";
import type { ClientCredentialsScheme, JwtBearerScheme } from "../../src/credentials/auth-schemes.js";
import type { GrantCredential } from "../../src/credentials/grant-schemes.js";
import { openCredential, sealCredential } from "../../src/credentials/sealing.js";
import { renewableToken, usableCredential } from "../../src/grants/fresh.js";
import { GRANTS, type Grant, GrantError, type GrantedToken, type GrantRequest, grantFirstToken } from "../../src/grants/index.js";
import { freshGrant } from "../../src/grants/renew.js";
import { defineToolkit } from "../../src/index.js";
import { memoryStore } from "../../src/store/memory.js";
import type { ConnectionRecord, ToolsStore } from "../../src/store/types.js";

const RUN = Math.random().toString(36).slice(2, 10);
const SECRET = `engine-secret-${RUN}-0123456789abcdef0123456789`;
const CLIENT_SECRET = `client-secret-${RUN}-abcdef`;

const scheme: ClientCredentialsScheme = { type: "clientCredentials", tokenUrl: "https://auth.acme.test/token" };
const serviceAccount: JwtBearerScheme = { type: "jwtBearer", signer: "serviceAccount", tokenUrl: "https://auth.acme.test/jwt" };
const toolkit = defineToolkit({
  slug: "acme",
  name: "Acme",
  description: "An API.",
  baseUrl: "https://api.acme.test/v1",
  auth: [scheme, serviceAccount, { type: "bearer" }],
  tools: [],
});

/** The scripted grant: each call takes the next answer (a token, or an error thrown). */
const original = { clientCredentials: GRANTS.clientCredentials, jwtBearer: GRANTS.jwtBearer };
let script: Array<GrantedToken | Error> = [];
let calls: GrantRequest[] = [];
/** Resolves the calls held back by `hold()`; none are held by default. */
let gate: Promise<void> = Promise.resolve();
let issued = 0;

function fakeGrant(): void {
  const grants = GRANTS as Record<string, Grant>;
  grants.clientCredentials = grants.jwtBearer = async (request) => {
    calls.push(request);
    await gate;
    const next = script.shift() ?? { accessToken: `token-${RUN}-${++issued}`, expiresIn: 3600 };
    if (next instanceof Error) throw next;
    return next;
  };
}

function hold(): () => void {
  let release!: () => void;
  gate = new Promise((resolve) => {
    release = resolve;
  });
  return release;
}

afterEach(() => {
  Object.assign(GRANTS, original);
  script = [];
  calls = [];
  gate = Promise.resolve();
});

interface Rig {
  ctx: HandlerContext;
  store: ToolsStore;
  logged: string[];
  events: Array<[string, unknown]>;
}

function rig(store: ToolsStore = memoryStore()): Rig {
  const logged: string[] = [];
  const events: Array<[string, unknown]> = [];
  const line = (message: string, fields?: Record<string, unknown>) => logged.push(`${message} ${JSON.stringify(fields ?? {})}`);
  const ctx = createHandlerContext({
    store,
    secret: SECRET,
    toolkits: [toolkit],
    logger: { warn: line, error: line, info: line },
    hooks: {
      "token.refreshed": (event: unknown) => {
        events.push(["token.refreshed", event]);
      },
      "connection.expired": (event: unknown) => {
        events.push(["connection.expired", event]);
      },
    },
    refreshLeaseMs: 60_000,
    apiKeyCache: { ttlMs: 0, maxEntries: 0 },
    connectPage: {},
    basePath: "",
    allowedReturnOrigins: [],
    timeouts: { toolMs: 30_000, proxyMs: 30_000 },
    uploads: undefined,
    maxResponseBytes: 1_000_000,
  } as unknown as Parameters<typeof createHandlerContext>[0]);
  fakeGrant();
  return { ctx, store, logged, events };
}

let connections = 0;

/** A stored grant connection with this credential, expiring `expiresInMs` from now (never when null). */
async function connect(
  { ctx, store }: Rig,
  credential: Partial<GrantCredential> = {},
  expiresInMs: number | null = 3_600_000,
  params: Record<string, string> = { region: "eu" },
): Promise<{ connection: ConnectionRecord; credential: GrantCredential }> {
  const id = `conn_${RUN}_${++connections}`;
  const full: GrantCredential = {
    type: "clientCredentials",
    secrets: { clientId: "client-id", clientSecret: CLIENT_SECRET },
    ...credential,
  };
  const now = new Date();
  const connection: ConnectionRecord = {
    id,
    workspaceId: "ws",
    agentId: "agent",
    toolkit: "acme",
    label: "Acme",
    remoteUser: "",
    status: "active",
    statusReason: null,
    credentials: await sealCredential(ctx, id, full),
    scopes: [],
    params,
    credentialsExpireAt: expiresInMs === null ? null : new Date(Date.now() + expiresInMs),
    createdAt: now,
    updatedAt: now,
    version: 1,
  } as ConnectionRecord;
  await store.createConnection(connection);
  return { connection, credential: full };
}

/** What the store holds for the connection, opened. */
async function stored({ ctx, store }: Rig, id: string) {
  const row = (await store.getConnection(id)) as ConnectionRecord;
  return { row, credential: (await openCredential(ctx, row)) as GrantCredential };
}

async function failure(promise: Promise<unknown>): Promise<ToolsError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ToolsError);
  return error as ToolsError;
}

function expectNoSecret(text: string, ...secrets: string[]) {
  for (const secret of [CLIENT_SECRET, ...secrets]) expect(text).not.toContain(secret);
}

describe("freshGrant: when a token is asked for", () => {
  it("a token far from expiry is used as it is, without reading the store or asking", async () => {
    const r = rig();
    const { connection, credential } = await connect(r, { accessToken: "kept", expiresIn: 3600 });
    let reads = 0;
    const get = r.store.getConnection.bind(r.store);
    r.store.getConnection = (id) => {
      reads++;
      return get(id);
    };
    const fresh = await freshGrant(r.ctx, toolkit, scheme, connection, credential);
    expect(fresh).toEqual({ connection, credential });
    expect(calls).toHaveLength(0);
    expect(reads).toBe(0);
  });

  it("a connection without a token yet, or one without an expiry: asked for only when there is no token", async () => {
    const r = rig();
    const none = await connect(r, {}, null);
    const fresh = await freshGrant(r.ctx, toolkit, scheme, none.connection, none.credential);
    expect(calls).toHaveLength(1);
    expect((fresh.credential as GrantCredential).accessToken).toBe(`token-${RUN}-${issued}`);

    const forever = await connect(r, { accessToken: "no-expiry" }, null);
    const kept = await freshGrant(r.ctx, toolkit, scheme, forever.connection, forever.credential);
    expect((kept.credential as GrantCredential).accessToken).toBe("no-expiry");
    expect(calls).toHaveLength(1);
  });

  it("within the margin: a quarter of the token's lifetime, at most a minute", async () => {
    const r = rig();
    // A one-hour token 30 s from expiry is inside the 60 s margin.
    const hour = await connect(r, { accessToken: "hour", expiresIn: 3600 }, 30_000);
    await freshGrant(r.ctx, toolkit, scheme, hour.connection, hour.credential);
    expect(calls).toHaveLength(1);
    // A 100 s token 30 s from expiry is outside its 25 s margin: kept (a fixed minute would renew it).
    const short = await connect(r, { accessToken: "short", expiresIn: 100 }, 30_000);
    const kept = await freshGrant(r.ctx, toolkit, scheme, short.connection, short.credential);
    expect((kept.credential as GrantCredential).accessToken).toBe("short");
    // The same token 20 s from expiry is inside it.
    const due = await connect(r, { accessToken: "due", expiresIn: 100 }, 20_000);
    await freshGrant(r.ctx, toolkit, scheme, due.connection, due.credential);
    expect(calls).toHaveLength(2);
  });

  it("a token the API refused (401) is renewed while it is still the stored one; an older one is not", async () => {
    const r = rig();
    const { connection, credential } = await connect(r, { accessToken: "refused", expiresIn: 3600 });
    const older = await freshGrant(r.ctx, toolkit, scheme, connection, credential, "an-older-token");
    expect((older.credential as GrantCredential).accessToken).toBe("refused");
    expect(calls).toHaveLength(0);

    const renewed = await freshGrant(r.ctx, toolkit, scheme, connection, credential, "refused");
    expect(calls).toHaveLength(1);
    expect((renewed.credential as GrantCredential).accessToken).toBe(`token-${RUN}-${issued}`);
    // The 401 of a second caller with the same stale token finds the renewed one stored: no second request.
    const again = await freshGrant(r.ctx, toolkit, scheme, connection, credential, "refused");
    expect((again.credential as GrantCredential).accessToken).toBe(`token-${RUN}-${issued}`);
    expect(calls).toHaveLength(1);
  });

  it("a connection reconnected with another mode meanwhile is not given a grant token", async () => {
    const r = rig();
    const { connection, credential } = await connect(r, { accessToken: "old", expiresIn: 3600 }, 1000);
    // Reconnected as a bearer token (no expiry) after this caller read the row.
    await r.store.updateConnection(connection.id, {
      credentials: await sealCredential(r.ctx, connection.id, { type: "bearer", token: "typed-bearer" } as never),
      credentialsExpireAt: new Date(Date.now() + 1000),
      updatedAt: new Date(),
    });
    const fresh = await freshGrant(r.ctx, toolkit, scheme, connection, credential);
    expect(fresh.credential).toEqual({ type: "bearer", token: "typed-bearer" });
    expect(calls).toHaveLength(0);
  });
});

describe("freshGrant: exactly once", () => {
  it("ten concurrent callers in one handler share one request", async () => {
    const r = rig();
    const { connection, credential } = await connect(r, { accessToken: "due", expiresIn: 3600 }, 1000);
    const release = hold();
    const all = Array.from({ length: 10 }, () => freshGrant(r.ctx, toolkit, scheme, connection, credential));
    await expect.poll(() => calls.length).toBe(1);
    release();
    const tokens = new Set((await Promise.all(all)).map((f) => (f.credential as GrantCredential).accessToken));
    expect(tokens).toEqual(new Set([`token-${RUN}-${issued}`]));
    expect(calls).toHaveLength(1);
  });

  it("two processes on one store: the lease holder asks, the other waits and uses what it saved", async () => {
    const store = memoryStore();
    const a = rig(store);
    const b = rig(store);
    const { connection, credential } = await connect(a, { accessToken: "due", expiresIn: 3600 }, 1000);
    const release = hold();
    const first = freshGrant(a.ctx, toolkit, scheme, connection, credential);
    await expect.poll(() => calls.length).toBe(1);
    const second = freshGrant(b.ctx, toolkit, scheme, connection, credential);
    release();
    const [x, y] = await Promise.all([first, second]);
    expect(calls).toHaveLength(1);
    expect((y.credential as GrantCredential).accessToken).toBe((x.credential as GrantCredential).accessToken);
  });
});

describe("freshGrant: what is saved", () => {
  it("the grant gets the opened secrets, the config and a live signal; the token is sealed with its expiry and the answer's config", async () => {
    const r = rig();
    const { connection, credential } = await connect(r, { accessToken: "due", expiresIn: 3600 }, 1000);
    script = [{ accessToken: `new-${RUN}`, expiresIn: 1200, config: { teamId: "t-9" } }];
    const before = Date.now();
    const fresh = await freshGrant(r.ctx, toolkit, scheme, connection, credential);
    const after = Date.now();

    expect(calls[0]?.credential).toEqual({ clientId: "client-id", clientSecret: CLIENT_SECRET });
    expect(calls[0]?.config).toEqual({ region: "eu" });
    expect(calls[0]?.scheme).toBe(scheme);
    expect(calls[0]?.toolkit).toBe(toolkit);
    expect(calls[0]?.signal.aborted).toBe(false);

    const next = {
      type: "clientCredentials",
      secrets: { clientId: "client-id", clientSecret: CLIENT_SECRET },
      accessToken: `new-${RUN}`,
      expiresIn: 1200,
    };
    const { row, credential: opened } = await stored(r, connection.id);
    expect(opened).toEqual(next);
    expect(fresh.credential).toEqual(next);
    expect(fresh.connection).toEqual(row);
    expect(row.params).toEqual({ region: "eu", teamId: "t-9" });
    expect(row.version).toBe(2);
    expect(row.updatedAt.getTime()).toBeGreaterThanOrEqual(before);
    const expiresAt = row.credentialsExpireAt?.getTime() ?? 0;
    expect(expiresAt).toBeGreaterThanOrEqual(before + 1_200_000);
    expect(expiresAt).toBeLessThanOrEqual(after + 1_200_000);
    await expect
      .poll(() => r.events)
      .toEqual([["token.refreshed", { connectionId: connection.id, toolkit: "acme", expiresAt: row.credentialsExpireAt, rotated: false }]]);
    expectNoSecret(JSON.stringify(r.events), `new-${RUN}`);
  });

  it("an answer without a lifetime: saved without one and without an expiry, the config left as it was", async () => {
    const r = rig();
    const { connection, credential } = await connect(r, { accessToken: "due", expiresIn: 3600 }, 1000);
    script = [{ accessToken: `forever-${RUN}` }];
    const fresh = await freshGrant(r.ctx, toolkit, scheme, connection, credential);
    const { row, credential: opened } = await stored(r, connection.id);
    expect(opened).toEqual({ type: "clientCredentials", secrets: credential.secrets, accessToken: `forever-${RUN}` });
    // Strictly: no `expiresIn: undefined` key either, in the sealed JSON or in what the caller gets.
    expect(fresh.credential).toStrictEqual(opened);
    expect(row.credentialsExpireAt).toBeNull();
    expect(row.params).toEqual({ region: "eu" });
    await expect
      .poll(() => r.events)
      .toEqual([["token.refreshed", { connectionId: connection.id, toolkit: "acme", expiresAt: null, rotated: false }]]);
  });

  it("a newer credential saved while the request was out is kept, and this token dropped", async () => {
    const r = rig();
    const { connection, credential } = await connect(r, { accessToken: "due", expiresIn: 3600 }, 1000);
    const newer: GrantCredential = { type: "clientCredentials", secrets: credential.secrets, accessToken: "reconnected", expiresIn: 3600 };
    const release = hold();
    const fresh = freshGrant(r.ctx, toolkit, scheme, connection, credential);
    await expect.poll(() => calls.length).toBe(1);
    await r.store.updateConnection(connection.id, {
      credentials: await sealCredential(r.ctx, connection.id, newer),
      credentialsExpireAt: new Date(Date.now() + 3_600_000),
      updatedAt: new Date(),
    });
    release();
    expect((await fresh).credential).toEqual(newer);
    expect((await stored(r, connection.id)).credential).toEqual(newer);
    expect(r.events).toEqual([]);
    expect(r.logged.join("\n")).toContain("a newer credential was saved");
  });
});

describe("freshGrant: failures", () => {
  it("a refusal expires the connection with the provider's sentence: reconnect, not retry", async () => {
    const r = rig();
    const { connection, credential } = await connect(r, { accessToken: "due", expiresIn: 3600 }, 1000);
    script = [new GrantError("refused", "Acme refused the client (invalid_client).")];
    const error = await failure(freshGrant(r.ctx, toolkit, scheme, connection, credential));
    expect(error.code).toBe("connection_required");
    expect(error.message).toContain("Acme refused the client (invalid_client).");
    const { row } = await stored(r, connection.id);
    expect(row.status).toBe("expired");
    expect(row.statusReason).toBe("Acme refused the client (invalid_client).");
    await expect.poll(() => r.events.map(([name]) => name)).toEqual(["connection.expired"]);
    expect(r.logged).toEqual([]);
  });

  it("an answer without the declared fields is a 503 naming the field; the connection stays active", async () => {
    const r = rig();
    const { connection, credential } = await connect(r, { accessToken: `due-${RUN}`, expiresIn: 3600 }, 1000);
    script = [new GrantError("answer", "The token answer has no access_token.")];
    const error = await failure(freshGrant(r.ctx, toolkit, scheme, connection, credential));
    expect(error.code).toBe("unavailable");
    expect(error.status).toBe(503);
    expect(error.retryAfter).toBe(5);
    expect(error.message).toBe(
      "The provider could not give the connection a new token; retry shortly. The token answer has no access_token.",
    );
    expect((await stored(r, connection.id)).row.status).toBe("active");
    expect(r.logged).toHaveLength(1);
  });

  it("an outage is a 503 that keeps the connection; the log line redacts the secrets and the token, the answer says nothing of the error", async () => {
    const r = rig();
    const { connection, credential } = await connect(r, { accessToken: `due-${RUN}`, expiresIn: 3600 }, 1000);
    script = [new TypeError(`fetch failed for client-id:${CLIENT_SECRET} with due-${RUN}`)];
    const error = await failure(freshGrant(r.ctx, toolkit, scheme, connection, credential));
    expect(error.code).toBe("unavailable");
    expect(error.retryAfter).toBe(5);
    expect(error.message).toBe("The provider could not give the connection a new token; retry shortly.");
    const { row, credential: opened } = await stored(r, connection.id);
    expect(row.status).toBe("active");
    expect(opened.accessToken).toBe(`due-${RUN}`);
    expect(r.logged).toHaveLength(1);
    expect(r.logged[0]).toContain("token grant failed");
    expect(r.logged[0]).toContain(connection.id);
    expect(r.logged[0]).toContain("fetch failed for");
    expectNoSecret(r.logged.join("\n"), `due-${RUN}`, "client-id");
    expect(r.events).toEqual([]);
  });

  it("an outage of a connection without a token yet: the secrets redacted still", async () => {
    const r = rig();
    const { connection, credential } = await connect(r, {}, null);
    script = [new TypeError(`no route for ${CLIENT_SECRET}`)];
    await failure(freshGrant(r.ctx, toolkit, scheme, connection, credential));
    expect(r.logged[0]).toContain("no route for");
    expectNoSecret(r.logged.join("\n"));
  });

  it("a ToolsError from the grant (a timeout, a refused address) keeps its sentence in the 503", async () => {
    const r = rig();
    const { connection, credential } = await connect(r, { accessToken: "due", expiresIn: 3600 }, 1000);
    script = [new ToolsError("invalid_request", "The token URL's address is not allowed.")];
    const error = await failure(freshGrant(r.ctx, toolkit, scheme, connection, credential));
    expect(error.code).toBe("unavailable");
    expect(error.message).toBe(
      "The provider could not give the connection a new token; retry shortly. The token URL's address is not allowed.",
    );
  });
});

describe("grantFirstToken", () => {
  const secrets = { clientId: "client-id", clientSecret: CLIENT_SECRET };

  it("the first token with its lifetime, expiry and the answer's config; the grant gets the typed secrets and config", async () => {
    const r = rig();
    script = [{ accessToken: `first-${RUN}`, expiresIn: 600, config: { teamId: "t-1" } }];
    const before = Date.now();
    const first = await grantFirstToken(r.ctx, toolkit, scheme, secrets, { region: "us" });
    const after = Date.now();
    expect(first.credential).toEqual({ type: "clientCredentials", secrets, accessToken: `first-${RUN}`, expiresIn: 600 });
    expect(first.config).toEqual({ teamId: "t-1" });
    const at = first.credentialsExpireAt?.getTime() ?? 0;
    expect(at).toBeGreaterThanOrEqual(before + 600_000);
    expect(at).toBeLessThanOrEqual(after + 600_000);
    expect(calls).toHaveLength(1);
    expect(calls[0]).toMatchObject({ scheme, toolkit, credential: secrets, config: { region: "us" } });
    expect(calls[0]?.signal.aborted).toBe(false);
  });

  it("a token without a lifetime: no expiry, no lifetime, an empty config", async () => {
    const r = rig();
    script = [{ accessToken: `first-${RUN}` }];
    const first = await grantFirstToken(r.ctx, toolkit, scheme, secrets, {});
    expect(first).toEqual({
      credential: { type: "clientCredentials", secrets, accessToken: `first-${RUN}` },
      credentialsExpireAt: null,
      config: {},
    });
    expect("expiresIn" in first.credential).toBe(false);
  });

  it("a deployer's client that is not configured: a 400 with the scheme's sentence, and no request", async () => {
    const r = rig();
    const unconfigured = { ...scheme, unconfigured: "Set TOOLS_PROXY_ACME_CLIENT_ID and TOOLS_PROXY_ACME_CLIENT_SECRET." };
    const error = await failure(grantFirstToken(r.ctx, toolkit, unconfigured, {}, {}));
    expect(error.code).toBe("invalid_request");
    expect(error.status).toBe(400);
    expect(error.message).toBe(unconfigured.unconfigured);
    expect(calls).toHaveLength(0);
    // An empty sentence is no sentence: the scheme is configured.
    await grantFirstToken(r.ctx, toolkit, { ...scheme, unconfigured: "" }, secrets, {});
    expect(calls).toHaveLength(1);
  });

  it("a refusal or an incomplete answer: a 400 with the provider's sentence", async () => {
    const r = rig();
    for (const kind of ["refused", "answer"] as const) {
      script = [new GrantError(kind, `Acme said no (${kind}).`)];
      const error = await failure(grantFirstToken(r.ctx, toolkit, scheme, secrets, {}));
      expect(error.code).toBe("invalid_request");
      expect(error.message).toBe(`Acme said no (${kind}).`);
    }
    expect(r.logged).toEqual([]);
  });

  it("a ToolsError from the grant passes as it is", async () => {
    const r = rig();
    const thrown = new ToolsError("unavailable", "The token request timed out; retry shortly.", { retryAfter: 2 });
    script = [thrown];
    expect(await failure(grantFirstToken(r.ctx, toolkit, scheme, secrets, {}))).toBe(thrown);
  });

  it("an outage: a 503 naming the toolkit, logged without the secrets, the error's text kept out of the answer", async () => {
    const r = rig();
    script = [new TypeError(`connect ECONNREFUSED client-id:${CLIENT_SECRET}`)];
    const error = await failure(grantFirstToken(r.ctx, toolkit, scheme, secrets, {}));
    expect(error.code).toBe("unavailable");
    expect(error.retryAfter).toBe(5);
    expect(error.message).toBe("Acme could not be asked for a token; try again shortly.");
    expect(r.logged).toHaveLength(1);
    expect(r.logged[0]).toContain("could not get a first token from the provider");
    expect(r.logged[0]).toContain('"toolkit":"acme"');
    expect(r.logged[0]).toContain("ECONNREFUSED");
    expectNoSecret(r.logged.join("\n"), "client-id");
  });
});

describe("usableCredential and renewableToken", () => {
  it("a grant connection gets its token renewed through the toolkit's scheme of that type, 401 included", async () => {
    const r = rig();
    const { connection } = await connect(r, { accessToken: "refused", expiresIn: 3600 });
    const kept = await usableCredential(r.ctx, toolkit, connection);
    expect((kept.credential as GrantCredential).accessToken).toBe("refused");
    expect(calls).toHaveLength(0);
    const renewed = await usableCredential(r.ctx, toolkit, connection, "refused");
    expect(calls).toHaveLength(1);
    expect(calls[0]?.scheme).toBe(scheme);
    expect((renewed.credential as GrantCredential).accessToken).toBe(`token-${RUN}-${issued}`);

    // A toolkit with several grant modes: the one of the credential's type, not the first.
    const jwt = await connect(r, { type: "jwtBearer", secrets: { serviceAccountKey: "{}" } }, null);
    await usableCredential(r.ctx, toolkit, jwt.connection);
    expect(calls[1]?.scheme).toBe(serviceAccount);
  });

  it("a grant connection of a toolkit that dropped the mode is returned as stored, without a request", async () => {
    const r = rig();
    const { connection, credential } = await connect(r, {}, null);
    const bearerOnly = defineToolkit({
      slug: "acme",
      name: "Acme",
      description: "An API.",
      baseUrl: "https://api.acme.test/v1",
      auth: { type: "bearer" },
      tools: [],
    });
    expect(await usableCredential(r.ctx, bearerOnly, connection)).toEqual({ connection, credential });
    expect(calls).toHaveLength(0);
  });

  it("any other credential goes to the OAuth path, which returns a bearer token as it is", async () => {
    const r = rig();
    const { connection } = await connect(r);
    const bearer = { type: "bearer", token: "typed" };
    await r.store.updateConnection(connection.id, {
      credentials: await sealCredential(r.ctx, connection.id, bearer as never),
      updatedAt: new Date(),
    });
    const row = (await r.store.getConnection(connection.id)) as ConnectionRecord;
    expect(await usableCredential(r.ctx, toolkit, row, "typed")).toEqual({ connection: row, credential: bearer });
    expect(calls).toHaveLength(0);
  });

  it("renewableToken: an OAuth or grant credential's token, no other", () => {
    expect(renewableToken({ type: "oauth2", accessToken: "a" })).toBe("a");
    expect(renewableToken({ type: "clientCredentials", accessToken: "b" })).toBe("b");
    expect(renewableToken({ type: "appInstallation", accessToken: "c" })).toBe("c");
    expect(renewableToken({ type: "bearer", accessToken: "d" })).toBeUndefined();
  });
});

describe("a service account key file in a failure's log line", () => {
  // A key file as Google writes it: the PEM's line breaks escaped inside the JSON text, so neither
  // the parsed key nor its base64 body on one line is a substring of the secret as typed.
  const body = `MIIEvQIBADANBgkqhkiG9w0BAQEFAASC${RUN}`;
  const pem = `-----BEGIN PRIVATE KEY-----\n${body.slice(0, 20)}\n${body.slice(20)}\n-----END PRIVATE KEY-----\n`;
  const keyFile = JSON.stringify({ type: "service_account", client_email: "bot@acme.test", private_key: pem });

  it("a renewal's outage: neither the key nor its body is logged", async () => {
    const r = rig();
    const { connection, credential } = await connect(r, { type: "jwtBearer", secrets: { serviceAccountKey: keyFile } }, null);
    script = [new TypeError(`cannot import ${pem} (${body})`)];
    await failure(freshGrant(r.ctx, toolkit, serviceAccount, connection, credential));
    expect(r.logged[0]).toContain("cannot import");
    expect(r.logged[0]).not.toContain(body);
    expect(r.logged[0]).not.toContain(body.slice(0, 20));
  });

  it("connecting: neither the key nor its body is logged", async () => {
    const r = rig();
    script = [new TypeError(`cannot import ${pem} (${body})`)];
    await failure(grantFirstToken(r.ctx, toolkit, serviceAccount, { serviceAccountKey: keyFile }, {}));
    expect(r.logged[0]).toContain("cannot import");
    expect(r.logged[0]).not.toContain(body);
    expect(r.logged[0]).not.toContain(body.slice(0, 20));
  });
});
