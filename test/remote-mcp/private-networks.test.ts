/**
 * Every request of a remote MCP server's OAuth (discovery, registration, token, refresh,
 * revocation) goes through the address-checking fetch unless the handler sets
 * `allowPrivateNetworks`, on the origins the deployer named too: an authorization server listed
 * in `authorizationServers` whose name resolves to a private address is refused at POST /auth, and
 * one whose name is rebound to a private address after POST /auth is refused at the code exchange.
 *
 * The names resolve through the handler's `lookup` option, and the address check is the real one
 * (`createGuardedFetch` and the socket's checked lookup); only undici's socket layer is replaced by
 * an in-process emulation of the servers, which answers a request once the checked lookup handed it
 * an address, so that "public" names need no network. The handler's own `fetch` must never be used.
 */
import { afterEach, describe, expect, it, vi } from "vitest";
import { createToolsHandler, defineToolkit, issueApiKey, memoryStore } from "../../src/index.js";

const MCP = "https://mcp.public.example";
const AS = "https://auth.listed.example";
const PUBLIC = "93.184.216.34";

/** What each name resolves to, changed by the tests. */
const dns = new Map<string, string>();
/** Requests the emulated servers answered, as "METHOD url". */
const reached: string[] = [];
/** Requests the handler's own fetch was asked to send: none may be. */
const unchecked: string[] = [];
/** Changes the authorization server's metadata, per test. */
let metadataOf = (metadata: Record<string, unknown>): unknown => metadata;
/** Where the protected resource metadata redirects to, if anywhere, per test. */
let redirectTo: string | undefined;

vi.mock("undici", () => {
  type Lookup = (host: string, options: object, callback: (error: Error | null, address: unknown) => void) => void;
  class Agent {
    constructor(readonly options: { connect?: { lookup?: Lookup } } = {}) {}
  }
  async function fetch(input: string | URL | Request, init: RequestInit & { dispatcher?: Agent } = {}): Promise<Response> {
    const url = new URL(input instanceof Request ? input.url : String(input));
    const lookup = init.dispatcher?.options.connect?.lookup;
    if (!lookup) throw new TypeError("fetch failed", { cause: new Error("no checked lookup") });
    // As a socket does: the name is resolved by the agent's lookup before anything is sent.
    await new Promise((resolve, reject) =>
      lookup(url.hostname, { all: true }, (error, address) =>
        error ? reject(new TypeError("fetch failed", { cause: error })) : resolve(address),
      ),
    );
    reached.push(`${init.method ?? "GET"} ${url.href}`);
    return emulate(url, init);
  }
  return { Agent, fetch };
});

function json(body: unknown, status = 200): Response {
  return new Response(JSON.stringify(body), { status, headers: { "content-type": "application/json" } });
}

/** The MCP server (its own protected resource metadata) and the authorization server it names. */
function emulate(url: URL, init: RequestInit): Response {
  if (url.origin === MCP && url.pathname === "/mcp") {
    return new Response(null, {
      status: 401,
      headers: { "www-authenticate": `Bearer resource_metadata="${MCP}/.well-known/oauth-protected-resource/mcp"` },
    });
  }
  if (url.href === `${MCP}/.well-known/oauth-protected-resource/mcp`) {
    if (redirectTo) return new Response(null, { status: 302, headers: { location: redirectTo } });
    return json({ resource: `${MCP}/mcp`, authorization_servers: [AS] });
  }
  if (url.href === `${AS}/.well-known/oauth-authorization-server`) {
    return json(
      metadataOf({
        issuer: AS,
        authorization_endpoint: `${AS}/authorize`,
        token_endpoint: `${AS}/token`,
        code_challenge_methods_supported: ["S256"],
      }),
    );
  }
  if (url.href === `${AS}/token` && init.method === "POST") {
    return json({ access_token: "emulated-access", token_type: "Bearer", expires_in: 3600 });
  }
  return new Response("not found", { status: 404 });
}

afterEach(() => {
  dns.clear();
  reached.length = 0;
  unchecked.length = 0;
  metadataOf = (metadata) => metadata;
  redirectTo = undefined;
});

async function setup() {
  const store = memoryStore();
  const toolkit = defineToolkit({
    slug: `remote-${Math.random().toString(36).slice(2, 10)}`,
    name: "Remote",
    description: "A remote MCP server whose authorization server is on a listed origin.",
    mcp: { url: `${MCP}/mcp`, authorizationServers: [AS] },
    clientId: "configured-client",
  });
  const handler = createToolsHandler({
    store,
    secret: "remote-mcp-private-networks-secret-of-at-least-thirty-two-bytes",
    publicUrl: "https://app.test",
    toolkits: [toolkit],
    lookup: async (hostname) => (dns.has(hostname) ? [{ address: dns.get(hostname)!, family: 4 }] : []),
    fetch: async (input) => {
      unchecked.push(String(input instanceof Request ? input.url : input));
      throw new TypeError("fetch failed");
    },
  });
  const { key } = await issueApiKey(store, { workspaceId: "w", agentId: "agent" });
  const startAuth = async () => {
    const response = await handler(
      new Request(`https://app.test${handler.basePath}/auth`, {
        method: "POST",
        headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
        body: JSON.stringify({ toolkit: toolkit.slug }),
      }),
    );
    return { status: response.status, json: (await response.json()) as { error?: string; authorizationUrl?: string } };
  };
  return { handler, startAuth };
}

describe("a remote MCP server's OAuth without allowPrivateNetworks", () => {
  it("refuses at POST /auth a listed authorization server whose name resolves to a private address, and sends it nothing", async () => {
    dns.set("mcp.public.example", PUBLIC);
    dns.set("auth.listed.example", "10.0.0.7");
    const { startAuth } = await setup();
    const answer = await startAuth();
    expect(answer.status, JSON.stringify(answer.json)).toBe(400);
    expect(answer.json.error).toBe(
      `The authorization server's metadata at ${AS} is not on a public address (auth.listed.example resolves to a non-public address (private)), ` +
        "so tools-proxy will not use it; it connects remote MCP servers and their authorization servers only on public addresses, unless the deployer sets allowPrivateNetworks.",
    );
    expect(reached.filter((r) => r.includes("auth.listed.example"))).toEqual([]);
    expect(unchecked).toEqual([]);
  });

  it("refuses the token request at the callback when the listed authorization server's name is rebound to a private address", async () => {
    dns.set("mcp.public.example", PUBLIC);
    dns.set("auth.listed.example", PUBLIC);
    const { handler, startAuth } = await setup();
    const started = await startAuth();
    expect(started.status, JSON.stringify(started.json)).toBe(200);
    const authorizationUrl = new URL(started.json.authorizationUrl!);
    expect(authorizationUrl.origin).toBe(AS);
    expect(reached).toContain(`GET ${AS}/.well-known/oauth-authorization-server`);

    dns.set("auth.listed.example", "127.0.0.1");
    const callback = new URL(`https://app.test${handler.basePath}/auth/callback`);
    callback.searchParams.set("code", "emulated-code");
    callback.searchParams.set("state", authorizationUrl.searchParams.get("state")!);
    callback.searchParams.set("iss", AS);
    const done = await handler(new Request(callback, { headers: { accept: "application/json" } }));
    const text = await done.text();
    expect(done.status, text).toBe(400);
    expect(JSON.parse(text).error).toMatch(/auth\.listed\.example resolves to a non-public address \(loopback\)/);
    expect(reached).not.toContain(`POST ${AS}/token`);
    expect(unchecked).toEqual([]);
  });

  it("refuses a discovered endpoint on a private address outside the named origins before sending it anything", async () => {
    dns.set("mcp.public.example", PUBLIC);
    dns.set("auth.listed.example", PUBLIC);
    metadataOf = (metadata) => ({ ...metadata, token_endpoint: "https://10.1.2.3/token" });
    const { startAuth } = await setup();
    const answer = await startAuth();
    expect(answer.status, JSON.stringify(answer.json)).toBe(400);
    expect(answer.json.error).toMatch(/The token endpoint "https:\/\/10\.1\.2\.3\/token" is not on a public address \(it is private\)/);
    expect(unchecked).toEqual([]);
  });

  it("refuses a metadata redirect to a private address before following it", async () => {
    dns.set("mcp.public.example", PUBLIC);
    redirectTo = "https://169.254.169.254/latest/meta-data";
    const { startAuth } = await setup();
    const answer = await startAuth();
    expect(answer.status, JSON.stringify(answer.json)).toBe(400);
    expect(answer.json.error).toMatch(
      /metadata's redirect target "https:\/\/169\.254\.169\.254\/latest\/meta-data" is not on a public address \(it is link-local\)/,
    );
    expect(reached.filter((r) => r.includes("169.254"))).toEqual([]);
  });
});
