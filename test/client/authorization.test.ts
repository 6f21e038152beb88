/**
 * OAuth through the client, against the real OpenID Connect fixture: the handler runs on a real
 * node:http server, the client starts the flow and waits on GET /auth/{id} while the test signs in
 * at the provider and opens the callback, as a browser would.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type AuthorizationStatus, createToolsClient, type ToolsClient, ToolsClientError } from "../../src/client/index.js";
import { createOAuthHarness, type OAuthHarness } from "../support/oauth-harness.js";
import { type OidcServer, startOidcServer } from "../support/oidc-server.js";
import { type ApiServer, startApiServer } from "./server.js";

let server: ApiServer;
let as: OidcServer;
let h: OAuthHarness;
let client: ToolsClient;

beforeAll(async () => {
  server = await startApiServer();
  as = await startOidcServer({ redirectUris: [`${server.baseUrl}/auth/callback`] });
  h = await createOAuthHarness({ as, publicUrl: server.origin, allowedReturnOrigins: [] });
  server.mount(h.recordingHandler);
  client = createToolsClient({ baseUrl: server.baseUrl, apiKey: await h.issueAgentKey("agent-oauth") });
});
afterAll(async () => {
  h.assertNoLeaks();
  expect(as.serverErrors).toEqual([]);
  await as.close();
  await server.close();
});

/** What the user's browser does: sign in and consent at the provider, then open the callback. */
async function completeInBrowser(authorizationUrl: string, decision: "approve" | "deny" = "approve", login = "grace"): Promise<void> {
  const callback = await as.authorizeWithFetch(authorizationUrl, { login, decision });
  h.addSecret(callback.searchParams.get("code") ?? "no-code-in-a-denied-flow");
  const response = await fetch(callback, { headers: { accept: "text/html" }, redirect: "manual" });
  await response.body?.cancel();
}

describe("waitForAuthorization", () => {
  it("resolves with the connection once the user completes OAuth, having seen pending before", async () => {
    const started = await client.startAuthorization({ toolkit: "notes", label: "Grace" });
    expect(new URL(started.authorizationUrl).origin).toBe(as.origin);
    expect(await client.getAuthorization(started.authorizationId)).toEqual({ status: "pending" });

    const seen: AuthorizationStatus[] = [];
    const waiting = client.waitForAuthorization(started.authorizationId, { intervalMs: 20, onStatus: (s) => seen.push(s) });
    await expect.poll(() => seen.length).toBeGreaterThan(0); // polling while nothing has happened yet
    await completeInBrowser(started.authorizationUrl);

    const finished = await waiting;
    expect(finished.status).toBe("connected");
    expect(finished.connectionId).toMatch(/^conn_/);
    expect(seen[0]).toEqual({ status: "pending" });
    expect(seen.at(-1)).toEqual(finished);

    const { connections } = await client.listConnections({ toolkit: "notes" });
    expect(connections).toEqual([
      expect.objectContaining({ id: finished.connectionId, label: "Grace", remoteUser: "grace", status: "active" }),
    ]);
    expect(await client.execute({ tool: "NOTES_ME" })).toMatchObject({ successful: true, data: { sub: "grace" } });
  });

  it("resolves with failed and the reason when the user denies consent", async () => {
    const started = await client.startAuthorization({ toolkit: "notes" });
    const waiting = client.waitForAuthorization(started.authorizationId, { intervalMs: 20 });
    await completeInBrowser(started.authorizationUrl, "deny", "henry");
    const finished = await waiting;
    expect(finished.status).toBe("failed");
    expect(finished.error).toMatch(/access_denied|denied/i);
    expect(finished.connectionId).toBeUndefined();
  });

  it("stops when its signal aborts, with the signal's reason", async () => {
    const started = await client.startAuthorization({ toolkit: "notes" });
    const controller = new AbortController();
    const waiting = client.waitForAuthorization(started.authorizationId, { intervalMs: 20, signal: controller.signal });
    setTimeout(() => controller.abort(new Error("user pressed Ctrl+C")), 60);
    await expect(waiting).rejects.toThrow("user pressed Ctrl+C");
  });

  it("rides out transient failures (no answer, 503) between polls, but not more than five in a row", async () => {
    const started = await client.startAuthorization({ toolkit: "notes" });
    const key = await h.issueAgentKey("agent-oauth");
    let polls = 0;
    let failing = 2;
    const flaky = createToolsClient({
      baseUrl: server.baseUrl,
      apiKey: key,
      fetch: async (input, init) => {
        if (String(input).includes("/auth/") && failing-- > 0) {
          polls++;
          if (polls === 1) throw new TypeError("fetch failed", { cause: { code: "ECONNRESET" } });
          return new Response(JSON.stringify({ error: "Storage is temporarily unavailable; retry shortly.", code: "unavailable" }), {
            status: 503,
            headers: { "content-type": "application/json", "retry-after": "0" },
          });
        }
        return fetch(input, init);
      },
    });
    const waiting = flaky.waitForAuthorization(started.authorizationId, { intervalMs: 20 });
    await completeInBrowser(started.authorizationUrl);
    expect(await waiting).toMatchObject({ status: "connected" });
    expect(polls).toBe(2);

    failing = 100;
    const error = await flaky.waitForAuthorization(started.authorizationId, { intervalMs: 1 }).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: "unavailable", status: 503 });
    expect(100 - failing).toBe(6); // the first try and five retries
  });

  it("rejects at once for an authorization that is not the caller's", async () => {
    const other = createToolsClient({ baseUrl: server.baseUrl, apiKey: await h.issueAgentKey("someone-else") });
    const started = await client.startAuthorization({ toolkit: "notes" });
    const error = await other.waitForAuthorization(started.authorizationId, { intervalMs: 20 }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ToolsClientError);
    expect(error).toMatchObject({ status: 404, code: "not_found" });
  });

  it("startAuthorization with credentials for an OAuth toolkit is the server's 400", async () => {
    const error = await client.connect({ toolkit: "notes", credentials: { token: "not-for-oauth-000" } }).catch((e: unknown) => e);
    expect(error).toMatchObject({ status: 400, code: "invalid_request" });
    expect((error as Error).message).toMatch(/OAuth 2/);
  });
});
