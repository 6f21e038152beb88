/**
 * End to end in a real headless Chromium: the handler runs on a real node:http server (the Node
 * adapter), the agent starts the flow over HTTP, the browser opens the authorization URL, signs
 * in and consents on the authorization server's own pages, comes back through the callback to
 * the return page, and the connection then appears in GET /connections.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { toNodeHandler } from "../../adapters/node.js";
import { createOAuthHarness, type OAuthHarness } from "../support/oauth-harness.js";
import { CHROMIUM_MISSING, chromiumAvailable, keepBrowserLocal, launchChromium, signInAndConsent } from "../support/oidc-browser.js";
import { type OidcServer, startOidcServer } from "../support/oidc-server.js";

const NAME = "signs in and consents in Chromium, lands on the return URL, and the connection is listed";

let server: Server;
let origin: string;
let as: OidcServer;
let h: OAuthHarness;
let key: string;

beforeAll(async () => {
  if (!chromiumAvailable) return;
  // The app's origin must be known before the provider registers its redirect_uri, and the
  // handler needs the provider: listen first, install the handler afterwards.
  let app: ReturnType<typeof toNodeHandler> = (_req, res) => void res.writeHead(503).end();
  server = createServer((req, res) => {
    if (req.url?.startsWith("/done")) {
      res.writeHead(200, { "content-type": "text/html; charset=utf-8" }).end("<!doctype html><title>Done</title><h1>Back in the app</h1>");
      return;
    }
    app(req, res);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  as = await startOidcServer({ redirectUris: [`${origin}/proxy/tools/auth/callback`] });
  h = await createOAuthHarness({ as, publicUrl: origin, allowedReturnOrigins: [] });
  app = toNodeHandler(h.recordingHandler);
  key = await h.issueAgentKey("agent-browser");
});
afterAll(async () => {
  if (!chromiumAvailable) return;
  h.assertNoLeaks();
  expect(as.serverErrors).toEqual([]);
  await as.close();
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

/** A request to the handler over real HTTP. */
async function http(method: string, path: string, body?: unknown) {
  const response = await fetch(`${origin}/proxy/tools${path}`, {
    method,
    headers: { "x-api-key": key, ...(body ? { "content-type": "application/json" } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
  const text = await response.text();
  return { status: response.status, text, json: text ? JSON.parse(text) : undefined };
}

describe("OAuth in a real browser", () => {
  it.skipIf(!chromiumAvailable)(chromiumAvailable ? NAME : `${NAME} (${CHROMIUM_MISSING})`, async () => {
    const started = await http("POST", "/auth", { toolkit: "notes", label: "Browser", returnUrl: `${origin}/done` });
    expect(started.status, started.text).toBe(200);
    expect(new URL(started.json.authorizationUrl).searchParams.get("redirect_uri")).toBe(`${origin}/proxy/tools/auth/callback`);
    expect((await http("GET", `/auth/${started.json.authorizationId}`)).json).toEqual({ status: "pending" });

    const browser = await launchChromium();
    try {
      const context = await browser.newContext();
      await keepBrowserLocal(context);
      const page = await context.newPage();
      await page.goto(started.json.authorizationUrl);
      const redirect = await signInAndConsent(page, { login: "frank" });
      expect(`${redirect.origin}${redirect.pathname}`).toBe(`${origin}/proxy/tools/auth/callback`);
      expect(redirect.searchParams.get("iss")).toBe(as.issuer);
      h.addSecret(redirect.searchParams.get("code")!);

      await page.waitForURL((url) => url.pathname === "/done", { timeout: 10_000 });
      const landed = new URL(page.url());
      expect(landed.origin).toBe(origin);
      expect(landed.searchParams.get("status")).toBe("connected");
      const connectionId = landed.searchParams.get("connection_id");
      expect(connectionId).toMatch(/^conn_/);
      expect(await page.locator("h1").textContent()).toBe("Back in the app");

      expect((await http("GET", `/auth/${started.json.authorizationId}`)).json).toEqual({ status: "connected", connectionId });
      const listed = await http("GET", "/connections");
      expect(listed.json.connections).toEqual([
        expect.objectContaining({ id: connectionId, toolkit: "notes", label: "Browser", remoteUser: "frank", status: "active" }),
      ]);
      const executed = await http("POST", "/execute", { tool: "NOTES_ME" });
      expect(executed.json).toMatchObject({ successful: true, data: { sub: "frank" } });
      // Every answer went through h.recordingHandler: assertNoLeaks (afterAll) checks them, the callback's included.
      expect(h.responses.map((r) => `${r.what} ${r.status}`)).toContain("GET /proxy/tools/auth/callback 303");
    } finally {
      await browser.close();
    }
  });
});
