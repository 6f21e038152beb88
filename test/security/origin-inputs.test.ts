/**
 * Origin inputs (docs/guide/auth/origin-inputs.md): a connection names a whole origin,
 * and that must never become a way into the deployer's network. The OWASP SSRF prevention cheat
 * sheet's address forms go through `POST /auth` and each is a 400 naming the input, while a real
 * listener on 127.0.0.1 counts the connections it gets (none). Names resolve through a real DNS
 * server on 127.0.0.1 (test/support/dns-server.ts): names answering private addresses, mixed
 * public and private, and a rebinding name (public when the connection is made, 127.0.0.1 later)
 * are refused at the outbound connection with a JSON error, the listener untouched.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createToolsHandler, defineTool, defineToolkit, issueApiKey, memoryStore, type ToolsHandler } from "../../src/index.js";
import { createOutboundFetch } from "../../src/outbound/fetch.js";
import { createGuardedFetch } from "../../src/outbound/guarded-fetch.js";
import { type RawServer, startRawServer } from "../outbound/servers.js";
import { startDnsServer, type TestDnsServer } from "../support/dns-server.js";

// 93.184.215.14 is a public address no test ever connects to: where it is the answer, the request
// is refused before any connection (the rebinding case) or never made.
const PUBLIC = "93.184.215.14";

let listener: RawServer;
let dns: TestDnsServer;
let handler: ToolsHandler;
let key: string;

const selfHosted = defineToolkit({
  slug: "selfhosted",
  name: "Self-hosted",
  description: "A self-hosted API whose origin each connection names.",
  baseUrl: "{server}/api/v4",
  inputs: [{ name: "server", label: "Server URL", type: "origin" }],
  auth: { type: "bearer" },
  tools: [
    defineTool({
      slug: "SELFHOSTED_ME",
      name: "Me",
      description: "The connection's own user.",
      inputParameters: { type: "object", properties: {} },
      run: async (_args, ctx) => (await ctx.fetch("/users/me")).json(),
    }),
  ],
});

async function call(path: string, body?: unknown, headers: Record<string, string> = {}) {
  const response = await handler(
    new Request(`http://tools.test/proxy/tools${path}`, {
      method: body === undefined ? "GET" : "POST",
      headers: { "x-api-key": key, "content-type": "application/json", ...headers },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    }),
  );
  const text = await response.text();
  return { status: response.status, json: text ? JSON.parse(text) : null, text };
}

const connect = (server: string) => call("/auth", { toolkit: "selfhosted", credentials: { token: "tok-origin-test" }, config: { server } });

beforeAll(async () => {
  listener = await startRawServer((_request, res) => res.end("{}"));
  dns = await startDnsServer({
    "public.origin-test.dev": [PUBLIC],
    "loopback.origin-test.dev": ["127.0.0.1"],
    "private10.origin-test.dev": ["10.1.2.3"],
    "metadata.origin-test.dev": ["169.254.169.254"],
    "cgnat.origin-test.dev": ["100.64.0.1"],
    "v6loop.origin-test.dev": ["::1"],
    "ula.origin-test.dev": ["fd00::1"],
    "mapped.origin-test.dev": ["::ffff:7f00:1"],
    "nat64.origin-test.dev": ["64:ff9b::a00:1"],
    "sixtofour.origin-test.dev": ["2002:7f00:1::1"],
    "mixed.origin-test.dev": [PUBLIC, "127.0.0.1"],
    "mixed6.origin-test.dev": [PUBLIC, "fe80::1"],
    "rebind.origin-test.dev": [PUBLIC],
  });
  const store = memoryStore();
  handler = createToolsHandler({ store, toolkits: [selfHosted], lookup: dns.lookup, secret: "s".repeat(40) });
  key = (await issueApiKey(store, { workspaceId: "ws1", agentId: "agent-1" })).key;
});

afterAll(async () => {
  await listener?.close();
  await dns?.close();
});

const port = () => new URL(listener.origin).port;

/** The OWASP SSRF cheat sheet's forms of one address, and the other shapes an origin may not take. */
const REFUSED_FORMS: Array<[string, () => string]> = [
  ["plain http", () => "http://public.origin-test.dev"],
  ["IPv4 literal", () => `https://127.0.0.1:${port()}`],
  ["decimal IPv4", () => "https://2130706433"],
  ["octal IPv4", () => "https://0177.0.0.1"],
  ["hex IPv4", () => "https://0x7f.1"],
  ["hex IPv4, dotted", () => "https://0x7f.0x0.0x0.0x1"],
  ["short IPv4", () => "https://127.1"],
  ["unspecified IPv4", () => "https://0.0.0.0"],
  ["cloud metadata", () => "https://169.254.169.254"],
  ["CGNAT", () => "https://100.64.0.1"],
  ["IPv4-mapped IPv6", () => "https://[::ffff:127.0.0.1]"],
  ["IPv4-mapped IPv6, hex", () => "https://[::ffff:7f00:1]"],
  ["unspecified IPv6", () => "https://[::]"],
  ["IPv6 loopback", () => `https://[::1]:${port()}`],
  ["public IPv4 literal", () => `https://${PUBLIC}`],
  ["localhost", () => `https://localhost:${port()}`],
  ["localhost.", () => "https://localhost."],
  ["LOCALHOST", () => "HTTPS://LOCALHOST"],
  ["fullwidth localhost", () => "https://ｌｏｃａｌｈｏｓｔ"],
  ["subdomain of localhost", () => "https://api.localhost"],
  ["single label", () => "https://intranet"],
  ["trailing dot", () => "https://public.origin-test.dev."],
  [".internal", () => "https://git.corp.internal"],
  ["userinfo", () => "https://a@public.origin-test.dev"],
  ["userinfo hiding the host", () => `https://public.origin-test.dev@127.0.0.1:${port()}`],
  ["user and password", () => "https://a:b@public.origin-test.dev"],
  ["path", () => "https://public.origin-test.dev/api/v4"],
  ["query", () => "https://public.origin-test.dev?x=1"],
  ["fragment", () => "https://public.origin-test.dev#x"],
  ["backslash", () => "https://public.origin-test.dev\\@127.0.0.1"],
  ["default port written", () => "https://public.origin-test.dev:443"],
  ["port with a leading zero", () => "https://public.origin-test.dev:0443"],
  ["port out of range", () => "https://public.origin-test.dev:65536"],
  ["empty port", () => "https://public.origin-test.dev:"],
  ["Unicode host", () => "https://bücher.origin-test.dev"],
  ["fullwidth dot", () => "https://public。origin-test。dev"],
  ["no scheme", () => "public.origin-test.dev"],
  ["scheme-relative", () => "//public.origin-test.dev"],
  ["ftp", () => "ftp://public.origin-test.dev"],
  ["file", () => "file:///etc/passwd"],
  ["leading space", () => " https://public.origin-test.dev"],
  ["resolves to loopback", () => "https://loopback.origin-test.dev"],
  ["resolves to 10/8", () => "https://private10.origin-test.dev"],
  ["resolves to link-local (metadata)", () => "https://metadata.origin-test.dev"],
  ["resolves to CGNAT", () => "https://cgnat.origin-test.dev"],
  ["resolves to ::1", () => "https://v6loop.origin-test.dev"],
  ["resolves to a ULA", () => "https://ula.origin-test.dev"],
  ["resolves to IPv4-mapped loopback", () => "https://mapped.origin-test.dev"],
  ["resolves to NAT64 of 10.0.0.1", () => "https://nat64.origin-test.dev"],
  ["resolves to 6to4 of 127.0.0.1", () => "https://sixtofour.origin-test.dev"],
  ["resolves to public and 127.0.0.1", () => "https://mixed.origin-test.dev"],
  ["resolves to public and fe80::1", () => "https://mixed6.origin-test.dev"],
  ["does not resolve", () => "https://nxdomain.origin-test.dev"],
];

describe("POST /auth refuses every origin that is not a public https host", () => {
  it.each(REFUSED_FORMS)("%s: a 400 naming the input", async (_name, value) => {
    const before = listener.connections();
    const { status, json } = await connect(value());
    expect(status).toBe(400);
    expect(json.code).toBe("invalid_request");
    expect(json.error).toContain("config.server");
    expect(json.error).not.toMatch(/127\.0\.0\.1 is|10\.1\.2\.3|169\.254\.169\.254 is/);
    expect(listener.connections()).toBe(before);
  });

  it("the listener on 127.0.0.1 received nothing at all", () => {
    expect(listener.connections()).toBe(0);
    expect(listener.requests).toEqual([]);
  });

  it("accepts a public https origin, case folded and a trailing / cut, and keeps it as the URL standard writes it", async () => {
    const { status, json } = await connect("HTTPS://Public.Origin-Test.dev/");
    expect(status).toBe(201);
    expect(json.connection.params ?? json.connection.config).toMatchObject({ server: "https://public.origin-test.dev" });
  });
});

describe("the address check is repeated at every outbound connection", () => {
  it("a rebinding name (public when connected, 127.0.0.1 later) is refused on the proxy, the passthrough and a tool's ctx.fetch", async () => {
    // The listener's port: were the check not repeated, the proxy would connect to the listener.
    const made = await connect(`https://rebind.origin-test.dev:${port()}`);
    expect(made.status).toBe(201);
    const connectionId = made.json.connection.id as string;
    dns.records.set("rebind.origin-test.dev", ["127.0.0.1"]);
    const asked = dns.questions.get("rebind.origin-test.dev") ?? 0;

    const proxied = await call("/proxy", {
      toolkit: "selfhosted",
      method: "GET",
      url: `https://rebind.origin-test.dev:${port()}/api/v4/users/me`,
      connection_id: connectionId,
    });
    const passed = await call("/passthrough/selfhosted/users/me", undefined, { "x-connection-id": connectionId });
    const executed = await call("/execute", { tool: "SELFHOSTED_ME", connection_id: connectionId });
    expect(executed.json).toMatchObject({ successful: false, code: "upstream_unreachable" });
    for (const answer of [proxied, passed, executed]) {
      expect(answer.text).toMatch(/non-public address/);
      expect(answer.text).toContain("allowPrivateNetworks");
      expect(answer.text).not.toContain("127.0.0.1");
      expect(answer.text).not.toContain("tok-origin-test");
    }
    expect(passed.status).toBe(502);
    expect(passed.json.code).toBe("upstream_unreachable");
    expect(dns.questions.get("rebind.origin-test.dev")).toBeGreaterThan(asked); // resolved again, not trusted from before
    expect(listener.connections()).toBe(0);
  });
});

describe("redirects", () => {
  it("a redirect's hop opens its connection through the same check (a 302 to the origin, now resolving to 127.0.0.1, is refused)", async () => {
    const guarded = createGuardedFetch(dns.lookup);
    dns.records.set("redirect.origin-test.dev", ["127.0.0.1"]);
    const origin = `https://redirect.origin-test.dev:${port()}`;
    let calls = 0;
    // The first answer stands for the public server's own (no connection is made for it); every
    // later hop goes through the guarded fetch, as the handler's outbound path sends it.
    const first: typeof fetch = async (input, init) =>
      calls++ === 0 ? new Response(null, { status: 302, headers: { location: `${origin}/api/v4/next` } }) : guarded(input, init);
    const outbound = createOutboundFetch({
      fetch: first,
      toolkit: { baseUrls: ["{server}/api/v4"], auth: { type: "bearer" } },
      credential: { type: "bearer", token: "tok-origin-test" },
      params: { server: origin },
      signal: AbortSignal.timeout(30_000),
    });
    await expect(outbound(`${origin}/api/v4/start`)).rejects.toThrow(
      /redirect\.origin-test\.dev resolves to a non-public address \(loopback\)/,
    );
    expect(calls).toBe(2);
    expect(listener.connections()).toBe(0);
  });
});
