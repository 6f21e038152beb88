/**
 * OAuth whose endpoints are under an origin input (docs/guide/auth/origin-inputs.md): a JSON
 * toolkit writes `"authorizationUrl": "{instance}/oauth/authorize"`, and every OAuth request goes
 * to the origin the connection named. The client is a public one (PKCE, no secret), since a
 * secret would go to whatever server a connection names. Two handlers share one store:
 *
 * - with `allowPrivateNetworks` (its `fetch` sends the instances' hosts to a local emulation of a
 *   self-managed GitLab, whose OAuth is documented at https://docs.gitlab.com/api/oauth2/): the
 *   authorization URL, the code exchange, the identify lookup, the proxy, a refresh and the
 *   revocation all reach the connection's own instance, and a second connection's instance is
 *   another host;
 * - without it, names resolving to 127.0.0.1 are refused at each step (the origin given to
 *   `POST /auth`, the code exchange after the name rebinds, a refresh, the revocation, and the
 *   identify lookup of a toolkit whose sign-in is on a fixed host) with the address check's error,
 *   and the handler's own `fetch` is never used for them.
 */
import { createHash } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { catalogToolkit } from "../../../src/catalog/index.js";
import { createToolsHandler, issueApiKey, memoryStore, parseToolkitFile, type ToolsHandler } from "../../../src/index.js";
import { type EmulatedAnswer, type EmulatedRequest, form, mint, startEmulation } from "./emulation.js";

const ONE = "git.acme-origin.dev";
const TWO = "gitlab.beta-origin.dev";
const PUBLIC = "93.184.215.14"; // never connected to: the name rebinds before any request
const CLIENT_ID = mint("app-");
const CALLBACK = "http://tools.test/proxy/tools/auth/callback";

const file = JSON.stringify({
  slug: "selfhosted-git",
  name: "Self-hosted Git",
  description: "A Git server each connection names, with OAuth on that server.",
  baseUrl: "{instance}/api/v4",
  inputs: [{ name: "instance", label: "Server URL", type: "origin" }],
  auth: {
    type: "oauth2",
    authorizationUrl: "{instance}/oauth/authorize",
    tokenUrl: "{instance}/oauth/token",
    revocationUrl: "{instance}/oauth/revoke",
    clientId: CLIENT_ID,
    scopes: ["api"],
    identify: { url: "/user", remoteUser: "username" },
  },
  tools: [],
});

/** Per host: the codes issued, the live access and refresh tokens, the revoked tokens. */
const state = new Map<
  string,
  { codes: Set<string>; challenges: Map<string, string>; access: Set<string>; refresh: Set<string>; revoked: string[] }
>();
const of = (host: string) => {
  if (!state.has(host)) state.set(host, { codes: new Set(), challenges: new Map(), access: new Set(), refresh: new Set(), revoked: [] });
  return state.get(host)!;
};

function tokens(host: string) {
  const access = mint("glpat-"); // GitLab's OAuth tokens are opaque; the prefix only marks them here
  const refresh = mint("glrt-");
  of(host).access.add(access);
  of(host).refresh.add(refresh);
  return { access_token: access, token_type: "Bearer", expires_in: 7200, refresh_token: refresh, scope: "api", created_at: 1 };
}

function emulate(request: EmulatedRequest): EmulatedAnswer {
  const { host, method, path, query } = request;
  const at = of(host);
  if (path === "/oauth/authorize") {
    if (query.get("client_id") !== CLIENT_ID || query.get("redirect_uri") !== CALLBACK) return { status: 400, body: "bad client" };
    if (query.get("code_challenge_method") !== "S256") return { status: 400, body: "PKCE required" };
    const code = mint("code-");
    at.codes.add(code);
    at.challenges.set(code, query.get("code_challenge") ?? "");
    return { status: 302, headers: { location: `${CALLBACK}?code=${code}&state=${query.get("state")}` } };
  }
  if (method === "POST" && path === "/oauth/token") {
    const body = form(request);
    // A public (non-confidential) application: its id, and PKCE's verifier instead of a secret.
    if (body.client_id !== CLIENT_ID || body.client_secret !== undefined) return { status: 401, body: { error: "invalid_client" } };
    const challenge = at.challenges.get(body.code ?? "");
    if (body.grant_type === "authorization_code" && at.codes.delete(body.code ?? "") && body.redirect_uri === CALLBACK) {
      if (
        !challenge ||
        createHash("sha256")
          .update(body.code_verifier ?? "")
          .digest("base64url") !== challenge
      )
        return { status: 400, body: { error: "invalid_grant" } };
      return { body: tokens(host) };
    }
    if (body.grant_type === "refresh_token" && at.refresh.delete(body.refresh_token ?? "")) return { body: tokens(host) };
    return { status: 400, body: { error: "invalid_grant" } };
  }
  if (method === "POST" && path === "/oauth/revoke") {
    at.revoked.push(form(request).token ?? "");
    return { body: {} };
  }
  const token = /^Bearer (.+)$/.exec(request.headers.authorization ?? "")?.[1] ?? "";
  if (!at.access.has(token)) return { status: 401, body: { message: "401 Unauthorized" } };
  if (path === "/api/v4/user") return { body: { id: 7, username: host === ONE ? "ada" : "grace" } };
  if (path === "/api/v4/projects") return { body: [{ id: 1, path_with_namespace: "acme/site" }] };
  return { status: 404, body: { message: "404 Not Found" } };
}

let emulation: Awaited<ReturnType<typeof startEmulation>>;
const store = memoryStore();
const secret = `origin-oauth-${mint("")}`;
let key: string;
let lax: ToolsHandler;
let strict: ToolsHandler;
/** What the strict handler's names resolve to. */
const dns = new Map<string, string>();
/** Requests the strict handler's own `fetch` was asked to send: none may be, its toolkit's origin is the connection's. */
const strictFetchCalls: string[] = [];
const strictLogs: string[] = [];

beforeAll(async () => {
  emulation = await startEmulation([ONE, TWO], emulate);
  const toolkits = parseToolkitFile(file);
  lax = createToolsHandler({ store, secret, publicUrl: "http://tools.test", toolkits, fetch: emulation.fetch, allowPrivateNetworks: true });
  strict = createToolsHandler({
    store,
    secret,
    publicUrl: "http://tools.test",
    toolkits,
    fetch: async (input) => {
      strictFetchCalls.push(String(input instanceof Request ? input.url : input));
      throw new TypeError("fetch failed");
    },
    lookup: async (hostname) => (dns.has(hostname) ? [{ address: dns.get(hostname)!, family: 4 }] : []),
    logger: {
      debug: () => {},
      info: () => {},
      warn: (message, fields) => void strictLogs.push(`${message} ${JSON.stringify(fields ?? {})}`),
      error: (message, fields) => void strictLogs.push(`${message} ${JSON.stringify(fields ?? {})}`),
    },
  });
  ({ key } = await issueApiKey(store, { workspaceId: "ws1", agentId: "agent-1" }));
});
afterAll(() => emulation?.close());

async function call(handler: ToolsHandler, method: string, path: string, body?: unknown) {
  const response = await handler(
    new Request(`http://tools.test/proxy/tools${path}`, {
      method,
      headers: { "x-api-key": key, "content-type": "application/json" },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    }),
  );
  const text = await response.text();
  return { status: response.status, text, json: text ? JSON.parse(text) : null };
}

/** The person's browser at the instance, then back at the handler's callback. */
async function consent(handler: ToolsHandler, authorizationUrl: string) {
  const atProvider = await emulation.fetch(authorizationUrl);
  expect(atProvider.status, await atProvider.clone().text()).toBe(302);
  const response = await handler(new Request(atProvider.headers.get("location")!, { headers: { accept: "application/json" } }));
  return { status: response.status, json: await response.json() };
}

async function connectLax(instance: string) {
  const started = await call(lax, "POST", "/auth", { toolkit: "selfhosted-git", config: { instance } });
  expect(started.status, started.text).toBe(200);
  const done = await consent(lax, started.json.authorizationUrl);
  expect(done.status, JSON.stringify(done.json)).toBe(200);
  return { authorizationUrl: new URL(started.json.authorizationUrl), connectionId: done.json.connectionId as string };
}

const projects = (handler: ToolsHandler, connectionId: string, host = ONE) =>
  call(handler, "POST", "/proxy", {
    toolkit: "selfhosted-git",
    method: "GET",
    url: `https://${host}/api/v4/projects`,
    connection_id: connectionId,
  });

describe("OAuth endpoints under an origin input, private networks allowed", () => {
  let connectionId: string;

  it("authorizes, exchanges the code and identifies the account at the connection's own instance", async () => {
    const made = await connectLax(`https://${ONE}`);
    connectionId = made.connectionId;
    expect(made.authorizationUrl.origin + made.authorizationUrl.pathname).toBe(`https://${ONE}/oauth/authorize`);
    const exchange = emulation.requests.filter((r) => r.host === ONE && r.path === "/oauth/token").at(-1)!;
    expect(form(exchange)).toMatchObject({ grant_type: "authorization_code", client_id: CLIENT_ID, redirect_uri: CALLBACK });
    expect(form(exchange).client_secret).toBeUndefined();
    expect(emulation.requests.some((r) => r.host === ONE && r.path === "/api/v4/user")).toBe(true);
    const listed = await call(lax, "GET", "/connections?toolkit=selfhosted-git");
    expect(listed.json.connections.find((c: { id: string }) => c.id === connectionId)).toMatchObject({
      remoteUser: "ada",
      config: { instance: `https://${ONE}` },
    });
  });

  it("proxies to the instance and refreshes there when its token is refused", async () => {
    of(ONE).access.clear();
    const before = emulation.requests.filter((r) => r.host === ONE && r.path === "/oauth/token").length;
    const res = await projects(lax, connectionId);
    expect(res.json, res.text).toMatchObject({ successful: true, data: [{ path_with_namespace: "acme/site" }] });
    const refreshes = emulation.requests.filter((r) => r.host === ONE && r.path === "/oauth/token").slice(before);
    expect(refreshes.map((r) => form(r).grant_type)).toEqual(["refresh_token"]);
  });

  it("a second connection's OAuth goes to its own instance, not the first one's", async () => {
    const oneBefore = emulation.requests.filter((r) => r.host === ONE).length;
    const made = await connectLax(`https://${TWO}`);
    expect(made.authorizationUrl.origin).toBe(`https://${TWO}`);
    expect(emulation.requests.filter((r) => r.host === TWO).map((r) => r.path)).toEqual([
      "/oauth/authorize",
      "/oauth/token",
      "/api/v4/user",
    ]);
    expect(emulation.requests.filter((r) => r.host === ONE).length).toBe(oneBefore);
    expect((await call(lax, "DELETE", `/connections/${made.connectionId}`)).status).toBe(204);
    expect(of(TWO).revoked.length).toBeGreaterThan(0);
    expect(of(ONE).revoked).toEqual([]);
  });

  it("deleting the connection revokes its token at its instance", async () => {
    const [refresh] = of(ONE).refresh;
    expect((await call(lax, "DELETE", `/connections/${connectionId}`)).status).toBe(204);
    expect(of(ONE).revoked).toContain(refresh);
  });
});

describe("the catalog's gitlab-self-managed, connected with OAuth", () => {
  it("connects with the deployer's non-confidential application on the instance the person names", async () => {
    const gitlab = createToolsHandler({
      store,
      secret,
      publicUrl: "http://tools.test",
      toolkits: [catalogToolkit("gitlab-self-managed", { clientId: CLIENT_ID })],
      fetch: emulation.fetch,
      allowPrivateNetworks: true,
    });
    const started = await call(gitlab, "POST", "/auth", {
      toolkit: "gitlab-self-managed",
      mode: "oauth2",
      config: { instance: `https://${TWO}` },
    });
    expect(started.status, started.text).toBe(200);
    const url = new URL(started.json.authorizationUrl);
    expect(url.origin + url.pathname).toBe(`https://${TWO}/oauth/authorize`);
    expect(url.searchParams.get("scope")).toBe("api");
    const done = await consent(gitlab, url.href);
    expect(done.status, JSON.stringify(done.json)).toBe(200);
    const exchange = emulation.requests.filter((r) => r.host === TWO && r.path === "/oauth/token").at(-1)!;
    expect(form(exchange).client_secret).toBeUndefined();
    const listed = await call(gitlab, "GET", "/connections?toolkit=gitlab-self-managed");
    expect(listed.json.connections.find((c: { id: string }) => c.id === done.json.connectionId)).toMatchObject({ remoteUser: "grace" });
    // Given a secret, the mode is not offered: it says to unset it.
    const withSecret = catalogToolkit("gitlab-self-managed", { clientId: CLIENT_ID, clientSecret: "a-secret-value" });
    expect(withSecret.authModes.find((mode) => mode.type === "oauth2")).toMatchObject({ unconfigured: expect.stringContaining("unset") });
  });
});

describe("OAuth endpoints under an origin input, checked at every request", () => {
  const onlyEmulated = () => emulation.requests.length;

  it("refuses, at POST /auth, an origin whose name resolves to a loopback address", async () => {
    dns.set(ONE, "127.0.0.1");
    const before = onlyEmulated();
    const res = await call(strict, "POST", "/auth", { toolkit: "selfhosted-git", config: { instance: `https://${ONE}` } });
    expect(res.status).toBe(400);
    expect(res.json.error).toContain("config.instance is not allowed: its host resolves to a non-public address (loopback)");
    expect(onlyEmulated()).toBe(before);
  });

  it("refuses the code exchange when the name rebinds after the authorization started", async () => {
    dns.set(ONE, PUBLIC);
    const started = await call(strict, "POST", "/auth", { toolkit: "selfhosted-git", config: { instance: `https://${ONE}` } });
    expect(started.status, started.text).toBe(200);
    const url = new URL(started.json.authorizationUrl);
    expect(url.origin + url.pathname).toBe(`https://${ONE}/oauth/authorize`);
    dns.set(ONE, "127.0.0.1");
    const response = await strict(
      new Request(`${CALLBACK}?code=${mint("code-")}&state=${url.searchParams.get("state")}`, { headers: { accept: "application/json" } }),
    );
    expect(response.status).toBe(400);
    const status = await call(strict, "GET", `/auth/${started.json.authorizationId}`);
    expect(status.json).toMatchObject({
      status: "failed",
      error: expect.stringContaining(`origin ${ONE} resolves to a non-public address (loopback)`),
    });
    expect(strictFetchCalls).toEqual([]);
  });

  it("refuses a refresh and the revocation at an instance that now resolves to 127.0.0.1", async () => {
    const { connectionId } = await connectLax(`https://${ONE}`);
    // The token has expired: the next use refreshes it before anything else is sent.
    await store.updateConnection(connectionId, { updatedAt: new Date(), credentialsExpireAt: new Date(Date.now() - 1000) });
    const before = onlyEmulated();
    dns.set(ONE, "127.0.0.1");
    const mark = strictLogs.length;
    const res = await projects(strict, connectionId);
    expect(res.status, res.text).toBe(503);
    expect(res.json.error).toContain("could not refresh");
    expect(strictLogs.slice(mark).join("\n")).toContain(`origin ${ONE} resolves to a non-public address (loopback)`);

    const revokeMark = strictLogs.length;
    expect((await call(strict, "DELETE", `/connections/${connectionId}`)).status).toBe(204);
    expect(strictLogs.slice(revokeMark).join("\n")).toContain(`origin ${ONE} resolves to a non-public address (loopback)`);
    expect(onlyEmulated()).toBe(before);
    expect(strictFetchCalls).toEqual([]);
  });
});

describe("the origin typed on the connect page", () => {
  /** Opens the connect link `POST /auth` gave without the origin, and submits `instance` on its page. */
  async function typeOrigin(handler: ToolsHandler, instance: string) {
    const started = await call(handler, "POST", "/auth", { toolkit: "selfhosted-git" });
    expect(started.status, started.text).toBe(200);
    const page = await (await handler(new Request(started.json.authorizationUrl))).text();
    const csrf = /name="csrf" value="([^"]+)"/.exec(page)?.[1] ?? "";
    return handler(
      new Request(started.json.authorizationUrl, {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded" },
        body: new URLSearchParams({ csrf, "input.instance": instance }).toString(),
      }),
    );
  }

  it("sends the person on to the authorize page of the instance they typed", async () => {
    const response = await typeOrigin(lax, `https://${TWO}`);
    expect(response.status).toBe(303);
    const location = new URL(response.headers.get("location")!);
    expect(location.origin + location.pathname).toBe(`https://${TWO}/oauth/authorize`);
  });

  it("refuses, on the page, an instance whose name resolves to a loopback address", async () => {
    dns.set(ONE, "127.0.0.1");
    const response = await typeOrigin(strict, `https://${ONE}`);
    expect(response.status).toBe(400);
    expect(await response.text()).toContain("resolves to a non-public address (loopback)");
  });
});

describe("identification under an origin input", () => {
  it("is refused when the connection's origin resolves to 127.0.0.1, though the token came from a fixed host", async () => {
    // Sign-in at a fixed host the handler's fetch reaches; the API, and its who-am-I lookup, on the connection's origin.
    const AUTH = "login.fixed-origin.dev";
    const regional = parseToolkitFile(
      JSON.stringify({
        ...JSON.parse(file),
        slug: "regional-api",
        auth: {
          ...JSON.parse(file).auth,
          authorizationUrl: `https://${AUTH}/oauth/authorize`,
          tokenUrl: `https://${AUTH}/oauth/token`,
          revocationUrl: undefined,
        },
      }),
    );
    const auth = await startEmulation([AUTH], emulate);
    const warnings: string[] = [];
    try {
      const handler = createToolsHandler({
        store,
        secret,
        publicUrl: "http://tools.test",
        toolkits: regional,
        fetch: auth.fetch,
        lookup: async (hostname) => (dns.has(hostname) ? [{ address: dns.get(hostname)!, family: 4 }] : []),
        logger: { warn: (message, fields) => void warnings.push(`${message} ${JSON.stringify(fields ?? {})}`) },
      });
      dns.set(ONE, PUBLIC);
      const started = await call(handler, "POST", "/auth", { toolkit: "regional-api", config: { instance: `https://${ONE}` } });
      expect(started.status, started.text).toBe(200);
      dns.set(ONE, "127.0.0.1");
      const atProvider = await auth.fetch(started.json.authorizationUrl);
      const done = await handler(new Request(atProvider.headers.get("location")!, { headers: { accept: "application/json" } }));
      expect(done.status).toBe(400);
      expect(auth.requests.map((r) => r.path)).toEqual(["/oauth/authorize", "/oauth/token"]);
      const status = await call(handler, "GET", `/auth/${started.json.authorizationId}`);
      expect(status.json).toMatchObject({ status: "failed", error: expect.stringContaining("did not say which account") });
      expect(warnings.join("\n")).toContain(`origin ${ONE} resolves to a non-public address (loopback)`);
    } finally {
      await auth.close();
    }
  });
});

describe("an OAuth endpoint template in a JSON toolkit", () => {
  const withAuth = (auth: Record<string, unknown>, inputs: unknown[] = [{ name: "instance", label: "Server", type: "origin" }]) =>
    JSON.stringify({ ...JSON.parse(file), inputs, auth: { ...JSON.parse(file).auth, ...auth } });

  it("takes a public client only: a secret would go to whatever server a connection names", () => {
    for (const auth of [{ clientSecret: "s3cret-value" }, { tokenEndpointAuthMethod: "client_secret_post" }]) {
      expect(() => parseToolkitFile(withAuth(auth))).toThrow("would send the client's secret to any server a connection names");
    }
  });

  it("may begin with an origin input only", () => {
    expect(() => parseToolkitFile(withAuth({}, [{ name: "instance", label: "Server" }]))).toThrow(
      'begins with {instance}; declare instance as an input of type "origin"',
    );
    expect(() => parseToolkitFile(withAuth({ tokenUrl: "https://{instance}.example.com/token" }))).toThrow(
      'origin input "instance" may only begin a URL',
    );
    expect(() => parseToolkitFile(withAuth({ tokenUrl: "{instance}x/token" }))).toThrow("auth.tokenUrl");
  });
});
