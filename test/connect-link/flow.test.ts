/**
 * The connect link over the handler's own HTTP surface: `POST /auth` without credentials makes a
 * link, the page asks for the credential, a submit verifies it with the provider and connects,
 * and every refusal (used, expired, unknown, forged form, bad values) says so and stores nothing.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { createToolsHandler, issueApiKey, memoryStore } from "../../src/index.js";
import { connectToolkits, startKeyedUpstream } from "../support/connect.js";
import { BASE, type CallResult, createHarness, type Harness, TEST_SECRET } from "../support/harness.js";
import type { TestServer } from "../support/upstream.js";

const RUN = Math.random().toString(36).slice(2, 10);
const GOOD_KEY = `good-key-${RUN}-1111`;
const WRONG_KEY = `wrong-key-${RUN}-2222`;
const RETURN = "https://app.test/back";

let h: Harness;
let keyed: TestServer;
let key: string;

beforeAll(async () => {
  keyed = await startKeyedUpstream(GOOD_KEY);
  h = await createHarness({
    publicUrl: BASE,
    allowedReturnOrigins: ["https://app.test"],
    extraToolkits: () => connectToolkits(keyed.origin),
  });
  h.addSecret(GOOD_KEY);
  h.addSecret(WRONG_KEY);
  key = (await h.issueAgentKey(`agent-connect-${RUN}`)).key;
});
afterAll(async () => {
  h.assertNoLeaks();
  await Promise.all([h.close(), keyed.close()]);
});

async function startLink(body: Record<string, unknown>, as = key) {
  const res = await h.call("POST", "/auth", { key: as, body });
  expect(res.status, res.text).toBe(200);
  return res.json as { authorizationId: string; authorizationUrl: string; expiresAt: string };
}

const csrfOf = (page: CallResult) => /name="csrf" value="([^"]+)"/.exec(page.text)?.[1] ?? "";

function submit(url: string, fields: Record<string, string>) {
  return h.call("POST", url, {
    headers: { "content-type": "application/x-www-form-urlencoded" },
    rawBody: new URLSearchParams(fields).toString(),
  });
}

async function status(id: string) {
  return (await h.call("GET", `/auth/${id}`, { key })).json as { status: string; connectionId?: string };
}

async function connectionCount(toolkit: string) {
  return ((await h.call("GET", `/connections?toolkit=${toolkit}`, { key })).json.connections as unknown[]).length;
}

describe("a connect link for an API key", () => {
  it("answers like OAuth, shows a labelled form, refuses a wrong key on the page, then connects and redirects", async () => {
    const link = await startLink({ toolkit: "keyed", label: "Work", returnUrl: RETURN });
    expect(link.authorizationUrl).toMatch(new RegExp(`^${BASE}/proxy/tools/connect/auth_[A-Za-z0-9_-]+\\.[A-Za-z0-9_-]{43}$`));
    expect(Date.parse(link.expiresAt)).toBeGreaterThan(Date.now());
    expect(await status(link.authorizationId)).toEqual({ status: "pending" });

    const page = await h.call("GET", link.authorizationUrl);
    expect(page.status).toBe(200);
    expect(page.text).toContain("<h1>Connect Keyed</h1>");
    expect(page.text).toContain("Personal API key");
    expect(page.text).toMatch(/<label for="f-apiKey">API key<\/label>/);
    expect(page.text).toContain('id="f-apiKey" name="apiKey" type="password" required');
    expect(page.text).toContain('href="https://keyed.example/settings/keys"');
    expect(page.text).toContain('src="/proxy/tools/icons/github.svg"');
    expect(page.text).not.toMatch(/<script/i);

    const wrong = await submit(link.authorizationUrl, { csrf: csrfOf(page), apiKey: WRONG_KEY });
    expect(wrong.status).toBe(400);
    expect(wrong.text).toContain("Keyed refused these credentials");
    expect(wrong.text).not.toContain(WRONG_KEY);
    expect(await status(link.authorizationId)).toEqual({ status: "pending" });
    expect(await connectionCount("keyed")).toBe(0);

    const right = await submit(link.authorizationUrl, { csrf: csrfOf(wrong), apiKey: GOOD_KEY });
    expect(right.status, right.text).toBe(303);
    const location = new URL(right.headers.get("location")!);
    expect(location.origin + location.pathname).toBe(RETURN);
    expect(location.searchParams.get("status")).toBe("connected");
    const connectionId = location.searchParams.get("connection_id")!;
    expect(await status(link.authorizationId)).toEqual({ status: "connected", connectionId });

    const connections = (await h.call("GET", "/connections?toolkit=keyed", { key })).json.connections;
    expect(connections).toMatchObject([{ id: connectionId, label: "Work", remoteUser: "alice" }]);
    const run = await h.call("POST", "/execute", { key, body: { tool: "KEYED_ECHO", arguments: {} } });
    expect(run.json).toMatchObject({ successful: true, data: { ok: true, path: "/v1/echo" } });

    // Replayed: the same form again is a used link, and nothing more is stored.
    const replay = await submit(link.authorizationUrl, { csrf: csrfOf(wrong), apiKey: GOOD_KEY });
    expect(replay.status).toBe(410);
    expect(replay.text).toContain("This connect link was already used.");
    expect((await h.call("GET", link.authorizationUrl)).status).toBe(410);
    expect(await connectionCount("keyed")).toBe(1);
    await h.call("DELETE", `/connections/${connectionId}`, { key });
  });

  it("refuses a forged form, a line break, an oversized field or body, each on the page, and stores nothing", async () => {
    const link = await startLink({ toolkit: "keyed" });
    const page = await h.call("GET", link.authorizationUrl);
    const csrf = csrfOf(page);
    const asked = keyed.requests.length;

    // The last character changed in bits that count ("AA" at the end forged nothing about once in a thousand runs).
    const forgedCsrf = `${csrf.slice(0, -1)}${csrf.endsWith("A") ? "Q" : "A"}`;
    const forged = await submit(link.authorizationUrl, { csrf: forgedCsrf, apiKey: GOOD_KEY });
    expect(forged.status).toBe(403);
    expect(forged.text).toContain("This form is out of date or was changed.");
    const missing = await submit(link.authorizationUrl, { apiKey: GOOD_KEY });
    expect(missing.status).toBe(403);

    const crlf = await submit(link.authorizationUrl, { csrf, apiKey: `${GOOD_KEY}\r\nX-Evil: 1` });
    expect(crlf.status).toBe(400);
    expect(crlf.text).toContain("The api key contains a line break or a control character.");

    const long = await submit(link.authorizationUrl, { csrf, apiKey: "k".repeat(4097) });
    expect(long.status).toBe(400);
    expect(long.text).toContain("The api key is too long: at most 4096 characters.");

    const huge = await submit(link.authorizationUrl, { csrf, apiKey: "k".repeat(40_000) });
    expect(huge.status).toBe(413);

    const empty = await submit(link.authorizationUrl, { csrf, apiKey: "" });
    expect(empty.status).toBe(400);
    expect(empty.text).toContain("Enter the api key.");

    const json = await h.call("POST", link.authorizationUrl, { body: { csrf, apiKey: GOOD_KEY } });
    expect(json.status).toBe(415);

    expect(await status(link.authorizationId)).toEqual({ status: "pending" });
    expect(await connectionCount("keyed")).toBe(0);
    expect(keyed.requests.length, "the provider was asked nothing").toBe(asked);
  });

  it("says an expired link has expired, and GET /auth says expired", async () => {
    const link = await startLink({ toolkit: "keyed" });
    const page = await h.call("GET", link.authorizationUrl);
    vi.useFakeTimers({ toFake: ["Date"], now: Date.now() + 31 * 60 * 1000 });
    try {
      const later = await h.call("GET", link.authorizationUrl);
      expect(later.status).toBe(410);
      expect(later.text).toContain("This connect link has expired.");
      const sent = await submit(link.authorizationUrl, { csrf: csrfOf(page), apiKey: GOOD_KEY });
      expect(sent.status).toBe(410);
      expect(await status(link.authorizationId)).toEqual({ status: "expired" });
    } finally {
      vi.useRealTimers();
    }
    expect(await connectionCount("keyed")).toBe(0);
  });

  it("opens nothing for an unknown token or another link's id, and hides a link from another agent", async () => {
    const link = await startLink({ toolkit: "keyed" });
    const other = await startLink({ toolkit: "keyed" });
    const [, state] = other.authorizationUrl.split(".").slice(-2);
    const mixed = `${BASE}/proxy/tools/connect/${link.authorizationId}.${other.authorizationUrl.split(".").pop()}`;
    expect(state).toBeDefined();
    for (const url of [
      mixed,
      `${BASE}/proxy/tools/connect/nonsense`,
      `${BASE}/proxy/tools/connect/${link.authorizationId}.${"A".repeat(43)}`,
    ]) {
      const res = await h.call("GET", url);
      expect(res.status, url).toBe(404);
      expect(res.text).toContain("This connect link is not valid.");
      expect((await submit(url, { apiKey: GOOD_KEY })).status).toBe(404);
    }
    const stranger = (await h.issueAgentKey(`agent-stranger-${RUN}`)).key;
    const seen = await h.call("GET", `/auth/${link.authorizationId}`, { key: stranger });
    expect(seen.status).toBe(404);
    expect(await connectionCount("keyed")).toBe(0);
  });

  it("puts the same headers on every page answer: strict CSP, no framing, no referrer, no caching, nosniff", () => {
    const pages = h.responses.filter((r) => r.path.includes("/connect/") && r.headers["content-type"]?.startsWith("text/html"));
    expect(pages.length).toBeGreaterThan(10);
    for (const page of pages) {
      const csp = page.headers["content-security-policy"] ?? "";
      expect(csp, page.path).toMatch(/^default-src 'none'; style-src 'nonce-[A-Za-z0-9+/=]+'; img-src 'self'; form-action 'self'/);
      expect(csp).toContain("frame-ancestors 'none'");
      expect(csp).toContain("base-uri 'none'");
      expect(page.headers).toMatchObject({
        "referrer-policy": "no-referrer",
        "cache-control": "no-store",
        "x-content-type-options": "nosniff",
      });
      const nonce = /'nonce-([^']+)'/.exec(csp)![1];
      expect(page.text).toContain(`<style nonce="${nonce}">`);
    }
  });
});

describe("a connect link with connection inputs, and basic credentials", () => {
  it("asks for the inputs with their rule, refuses a wrong one, then shows the done page without a returnUrl", async () => {
    const link = await startLink({ toolkit: "shopkey" });
    const page = await h.call("GET", link.authorizationUrl);
    expect(page.text).toMatch(/<label for="f-input-shop">Shop name<\/label><p class="hint" id="f-input-shop-hint">[^<]*matching \^\[a-z\]/);
    const bad = await submit(link.authorizationUrl, { csrf: csrfOf(page), apiKey: GOOD_KEY, "input.shop": "Not_A_Shop" });
    expect(bad.status).toBe(400);
    expect(bad.text).toContain("config.shop is not valid");
    expect(bad.text).toContain('value="Not_A_Shop"');
    const done = await submit(link.authorizationUrl, { csrf: csrfOf(bad), apiKey: GOOD_KEY, "input.shop": "acme" });
    expect(done.status, done.text).toBe(200);
    expect(done.text).toContain("Your Shop Key account is connected.");
    const { connectionId } = await status(link.authorizationId);
    const connection = (await h.call("GET", "/connections?toolkit=shopkey", { key })).json.connections[0];
    expect(connection).toMatchObject({ id: connectionId, config: { shop: "acme" } });
  });

  it("does not ask again for an input the agent gave, and refuses a wrong one in POST /auth", async () => {
    const link = await startLink({ toolkit: "shopkey", config: { shop: "given" } });
    const page = await h.call("GET", link.authorizationUrl);
    expect(page.text).not.toContain("f-input-shop");
    expect(page.text).toContain("Shop name: <strong>given</strong>");
    const wrong = await h.call("POST", "/auth", { key, body: { toolkit: "shopkey", config: { shop: "No!" } } });
    expect(wrong.status).toBe(400);
  });

  it("asks a username and a password for basic", async () => {
    const link = await startLink({ toolkit: "vault" });
    const page = await h.call("GET", link.authorizationUrl);
    expect(page.text).toContain('autocomplete="username"');
    expect(page.text).toContain('type="password"');
    const done = await submit(link.authorizationUrl, { csrf: csrfOf(page), username: "alice", password: `pw-${RUN}-secret` });
    h.addSecret(`pw-${RUN}-secret`);
    expect(done.status).toBe(200);
    expect((await status(link.authorizationId)).status).toBe("connected");
  });

  it("keeps credentials in the body working, and needs publicUrl for a link", async () => {
    const res = await h.call("POST", "/auth", { key, body: { toolkit: "keyed", credentials: { apiKey: GOOD_KEY } } });
    expect(res.status).toBe(201);
    await h.call("DELETE", `/connections/${res.json.connection.id}`, { key });
    const store = memoryStore();
    const bare = createToolsHandler({ store, secret: TEST_SECRET, toolkits: connectToolkits(keyed.origin) });
    const { key: bareKey } = await issueApiKey(store, { workspaceId: "ws1", agentId: "a" });
    const refused = await bare(
      new Request(`${BASE}/proxy/tools/auth`, {
        method: "POST",
        headers: { "x-api-key": bareKey, "content-type": "application/json" },
        body: JSON.stringify({ toolkit: "keyed" }),
      }),
    );
    expect(refused.status).toBe(400);
    expect(((await refused.json()) as { error: string }).error).toBe(
      "This server cannot make connect links: its publicUrl is not configured. Send the credentials in the request, or ask its operator to set the publicUrl option.",
    );
  });
});

describe("a connect link for an OAuth toolkit that needs inputs", () => {
  it("asks for the inputs, then sends the person to the provider; the link reports the sign-in's outcome", async () => {
    const link = await startLink({ toolkit: "shopauth", returnUrl: RETURN });
    const page = await h.call("GET", link.authorizationUrl);
    expect(page.text).toContain('<label for="f-input-shop">Shop name</label>');
    expect(page.text).toContain("Continue to Shop Auth");
    expect(page.text).not.toContain('type="password"');
    expect(page.headers.get("content-security-policy")).toContain("form-action 'self' https://app.test https://*.shop.test;");

    const sent = await submit(link.authorizationUrl, { csrf: csrfOf(page), "input.shop": "acme" });
    expect(sent.status, sent.text).toBe(303);
    const provider = new URL(sent.headers.get("location")!);
    expect(provider.origin + provider.pathname).toBe("https://acme.shop.test/oauth/authorize");
    expect(provider.searchParams.get("redirect_uri")).toBe(`${BASE}/proxy/tools/auth/callback`);
    expect((await h.call("GET", link.authorizationUrl)).status).toBe(410);
    expect(await status(link.authorizationId)).toEqual({ status: "pending" });

    // The person refuses at the provider: the callback fails the sign-in, and the link says so.
    const state = provider.searchParams.get("state")!;
    const back = await h.call(
      "GET",
      `/auth/callback?state=${state}&error=access_denied&iss=${encodeURIComponent("https://acme.shop.test")}`,
    );
    expect(back.status).toBe(303);
    expect(await status(link.authorizationId)).toEqual({
      status: "failed",
      error: "Access was denied at the provider, so no connection was made.",
    });
  });

  it("starts OAuth at once when the inputs are given", async () => {
    const res = await h.call("POST", "/auth", { key, body: { toolkit: "shopauth", config: { shop: "acme" } } });
    expect(res.status).toBe(200);
    expect(new URL(res.json.authorizationUrl).host).toBe("acme.shop.test");
  });

  it("refuses a connect link's state at the OAuth callback", async () => {
    const link = await startLink({ toolkit: "keyed" });
    const state = link.authorizationUrl.split(".").pop()!;
    const back = await h.call("GET", `/auth/callback?state=${state}&code=x`, { headers: { accept: "text/html" } });
    expect(back.status).toBe(400);
    expect(await status(link.authorizationId)).toMatchObject({ status: "failed" });
  });
});

describe("the connectPage option", () => {
  it("replaces texts and the accent colour, and refuses a wrong option with its name", async () => {
    const themed = await createHarness({
      publicUrl: BASE,
      connectPage: { appName: "Acme Assistant", accentColor: "#aa3300", texts: { title: "Link {toolkit} to {app}" } },
      extraToolkits: () => connectToolkits(keyed.origin),
    });
    try {
      const agent = (await themed.issueAgentKey("agent-themed")).key;
      const link = (await themed.call("POST", "/auth", { key: agent, body: { toolkit: "keyed" } })).json.authorizationUrl;
      const page = await themed.call("GET", link);
      expect(page.text).toContain("<h1>Link Keyed to Acme Assistant</h1>");
      expect(page.text).toContain("--accent:#aa3300");
      expect(page.text).toContain("Acme Assistant asks you to connect your Keyed account.");
    } finally {
      await themed.close();
    }
    expect(() => createToolsHandler({ connectPage: { accentColor: "red" } })).toThrow(/option "connectPage.accentColor" must be a colour/);
    expect(() => createToolsHandler({ connectPage: { texts: { titel: "x" } as never } })).toThrow(
      /unknown option "connectPage.texts.titel"/,
    );
  });
});
