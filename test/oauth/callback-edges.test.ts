/**
 * GET /auth/callback beyond the main flow: which account a connection is bound to (and the
 * userinfo subject check that keeps it from being someone else's), what the stored connection
 * holds, what the provider's error code may put into a page and a URL, what a return URL whose
 * origin is no longer allowed gets, and what the logs say when identifying the account fails.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bearer, defineToolkit, memoryStore } from "../../src/index.js";
import {
  CALLBACK_URL,
  createOAuthHarness,
  listConnections,
  notesToolkit,
  type OAuthHarness,
  RETURN_ORIGIN,
  SCOPES,
  tokenCalls,
} from "../support/oauth-harness.js";
import { type OidcServer, startOidcServer } from "../support/oidc-server.js";

let as: OidcServer;
let h: OAuthHarness;
let key: string;
/** A userinfo endpoint that vouches for another account than the one that signed in. */
let impostor: Server;
let impostorUrl: string;

beforeAll(async () => {
  as = await startOidcServer({ redirectUris: [CALLBACK_URL] });
  impostor = createServer((_req, res) => {
    res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ sub: "mallory", email: "mallory@example.test" }));
  });
  await new Promise<void>((resolve) => impostor.listen(0, "127.0.0.1", resolve));
  impostorUrl = `http://127.0.0.1:${(impostor.address() as AddressInfo).port}/userinfo`;
  h = await createOAuthHarness({
    as,
    store: memoryStore(),
    toolkits: [
      notesToolkit(as),
      notesToolkit(as, { slug: "notes-impostor", prefix: "IMPOSTOR", auth: { userInfoUrl: impostorUrl } }),
      notesToolkit(as, { slug: "notes-userinfo", prefix: "USERINFO", auth: { scopes: ["notes:read"], userInfoUrl: impostorUrl } }),
      notesToolkit(as, { slug: "notes-nickname", prefix: "NICKNAME", auth: { remoteUserField: "nickname" } }),
      notesToolkit(as, { slug: "notes-idtoken", prefix: "IDTOKEN", auth: { remoteUserField: "nickname", userInfoUrl: undefined } }),
      notesToolkit(as, { slug: "notes-anonymous", prefix: "ANONYMOUS", auth: { scopes: ["notes:read"], userInfoUrl: undefined } }),
      notesToolkit(as, {
        slug: "notes-identify-fails",
        prefix: "IDFAILS",
        auth: {
          identify: async ({ accessToken }) => {
            throw new Error(`the account API refused the token ${accessToken}`);
          },
        },
      }),
    ],
  });
  key = await h.issueAgentKey("agent-cb");
});
afterAll(async () => {
  h.assertNoLeaks();
  expect(as.serverErrors).toEqual([]);
  await new Promise((resolve) => impostor.close(resolve));
  await as.close();
});

const connectionsOf = async (toolkit: string) => (await listConnections(h, key)).filter((c) => c.toolkit === toolkit);

describe("the account a connection is bound to", () => {
  it("is refused when userinfo names another subject than the ID token: no connection", async () => {
    const started = await h.startAuth(key, { toolkit: "notes-impostor" });
    const res = await h.callback(await as.authorizeWithFetch(started.authorizationUrl, { login: "alice" }));
    expect(res.json).toEqual({ code: "invalid_request", error: expect.stringMatching(/did not say which account was connected/) });
    expect(await connectionsOf("notes-impostor")).toEqual([]);
    expect((await h.call("GET", `/auth/${started.authorizationId}`, { key })).json).toMatchObject({ status: "failed" });
  });

  it("is userinfo's subject alone when there is no ID token to check it against (plain OAuth 2)", async () => {
    const { connectionId } = await h.connect(key, { toolkit: "notes-userinfo" }, { login: "alice" });
    expect((await connectionsOf("notes-userinfo")).map((c) => [c.id, c.remoteUser])).toEqual([[connectionId, "mallory"]]);
  });

  it("falls back to the subject when userinfo, or the ID token without userinfo, lacks remoteUserField", async () => {
    await h.connect(key, { toolkit: "notes-nickname" }, { login: "frank" });
    expect((await connectionsOf("notes-nickname")).map((c) => c.remoteUser)).toEqual(["frank"]);
    await h.connect(key, { toolkit: "notes-idtoken" }, { login: "ivan" });
    expect((await connectionsOf("notes-idtoken")).map((c) => c.remoteUser)).toEqual(["ivan"]);
  });

  it("is empty when neither userinfo nor an ID token says (plain OAuth 2, no openid scope)", async () => {
    const { connectionId, status } = await h.connect(key, { toolkit: "notes-anonymous" }, { login: "gina" });
    expect(status).toEqual({ status: "connected", connectionId });
    expect((await connectionsOf("notes-anonymous")).map((c) => [c.id, c.remoteUser])).toEqual([[connectionId, ""]]);
  });

  it("a toolkit's identify() that fails: no connection, and its error is logged without the access token", async () => {
    const logMark = h.logs.length;
    const started = await h.startAuth(key, { toolkit: "notes-identify-fails" });
    const mark = as.tokenRequests.length;
    const res = await h.callback(await as.authorizeWithFetch(started.authorizationUrl));
    expect(tokenCalls(as, mark)).toEqual([["authorization_code", 200]]);
    expect(res.json.error).toMatch(/did not say which account was connected/);
    expect(await connectionsOf("notes-identify-fails")).toEqual([]);
    const logged = h.logs.slice(logMark).filter((l) => l.message === "could not identify the OAuth account");
    expect(logged).toHaveLength(1);
    expect(JSON.stringify(logged[0]!.fields)).toContain("the account API refused the token [redacted]");
    h.assertNoLeaks();
  });
});

describe("the stored connection", () => {
  it("holds the granted scopes, the token's lifetime and its expiry, and the refresh and ID tokens", async () => {
    const before = Date.now();
    const { connectionId } = await h.connect(key, {}, { login: "hana" });
    const after = Date.now();
    const stored = (await h.store.getConnection(connectionId))!;
    // What the provider granted, not what was asked: it keeps offline_access only with prompt=consent.
    expect(stored.scopes.sort()).toEqual(SCOPES.filter((scope) => scope !== "offline_access").sort());
    expect(stored.credentialsExpireAt!.getTime()).toBeGreaterThanOrEqual(before + 3600_000 - 1000);
    expect(stored.credentialsExpireAt!.getTime()).toBeLessThanOrEqual(after + 3600_000);
    const credential = await h.credentialOf(connectionId);
    expect(credential).toEqual({
      type: "oauth2",
      accessToken: expect.any(String),
      refreshToken: expect.any(String),
      idToken: expect.any(String),
      tokenType: expect.stringMatching(/^bearer$/i),
      expiresIn: 3600,
    });
  });
});

describe("the provider's error code, which comes from the browser's redirect", () => {
  /** Opens the callback as the provider would redirect with `error`, for a real pending authorization. */
  async function failWith(error: string, returnUrl?: string) {
    const started = await h.startAuth(key, returnUrl ? { returnUrl } : {});
    const state = new URL(started.authorizationUrl).searchParams.get("state")!;
    const url = new URL(CALLBACK_URL);
    url.search = new URLSearchParams({ error, state, iss: as.issuer }).toString();
    return { started, res: await h.callback(url, "text/html") };
  }

  it("is kept to the characters RFC 6749 allows: no quotes, backslashes, markup or control characters", async () => {
    const logMark = h.logs.length;
    const { started, res } = await failWith('temporarily_unavailable"\\<b>\u0000\u001b[2J\u00e9');
    expect(res.status).toBe(400);
    expect(res.text).toContain("<h1>Connection failed</h1>");
    // The provider's refusal is the user's to see, not an error of the server's to log.
    expect(h.logs.slice(logMark)).toEqual([]);
    expect(res.text).toContain("The provider refused the authorization (temporarily_unavailable&lt;b&gt;[2J).");
    expect((await h.call("GET", `/auth/${started.authorizationId}`, { key })).json).toEqual({
      status: "failed",
      error: "The provider refused the authorization (temporarily_unavailable<b>[2J).",
    });
  });

  it("is cut to 64 characters", async () => {
    const { res } = await failWith(`${"x".repeat(64)}TAIL`, `${RETURN_ORIGIN}/done`);
    expect(res.status).toBe(303);
    expect(new URL(res.headers.get("location")!).searchParams.get("error")).toBe(
      `The provider refused the authorization (${"x".repeat(64)}).`,
    );
  });

  it("that has nothing left is unknown_error", async () => {
    const { started } = await failWith('"\u00e9\\');
    expect((await h.call("GET", `/auth/${started.authorizationId}`, { key })).json.error).toBe(
      "The provider refused the authorization (unknown_error).",
    );
  });
});

describe("the answer", () => {
  it("to a browser: a page that says what happened, for an unknown state, a failure and a success", async () => {
    const unknown = await h.callback(`${CALLBACK_URL}?code=abc&state=unknown-state`, "text/html");
    expect(unknown.status).toBe(400);
    expect(unknown.text).toContain("<h1>Connection failed</h1><p>This sign-in link is invalid, expired or already used.");
    const denied = await h.callback(
      await as.authorizeWithFetch((await h.startAuth(key)).authorizationUrl, { decision: "deny" }),
      "text/html",
    );
    expect(denied.status).toBe(400);
    expect(denied.text).toContain("<h1>Connection failed</h1><p>Access was denied at the provider");
    const connected = await h.callback(await as.authorizeWithFetch((await h.startAuth(key)).authorizationUrl), "text/html");
    expect(connected.status).toBe(200);
    expect(connected.text).toContain("<h1>Connected</h1><p>The connection is ready. You can close this window.</p>");
  });

  it.each([
    ["no longer uses OAuth", [defineToolkit({ slug: "notes", name: "Notes", description: "Bearer now.", auth: bearer(), tools: [] })]],
    ["is no longer served", []],
  ])("fails, with no code exchange, when the toolkit %s", async (_how, toolkits) => {
    const started = await h.startAuth(key);
    const changed = await createOAuthHarness({ as, store: h.store, toolkits });
    const mark = as.tokenRequests.length;
    const res = await changed.callback(await as.authorizeWithFetch(started.authorizationUrl));
    expect(res.json).toEqual({ code: "invalid_request", error: 'The toolkit "notes" no longer uses OAuth.' });
    expect(tokenCalls(as, mark)).toEqual([]);
    expect(changed.logs).toEqual([]);
    changed.assertNoLeaks();
  });

  it("is a page, not a redirect, when the return URL's origin is no longer allowed (the allowed origins changed since the start)", async () => {
    const started = await h.startAuth(key, { returnUrl: `${RETURN_ORIGIN}/done` });
    const stricter = await createOAuthHarness({ as, store: h.store, allowedReturnOrigins: [] });
    const res = await stricter.callback(await as.authorizeWithFetch(started.authorizationUrl), "TEXT/HTML");
    expect(res.status).toBe(200);
    expect(res.headers.get("location")).toBeNull();
    expect(res.text).toMatch(/<h1>Connected<\/h1>/);
    stricter.assertNoLeaks();
  });

  it("is never cached: the redirect and the JSON answer say no-store", async () => {
    const redirected = await h.callback(
      await as.authorizeWithFetch((await h.startAuth(key, { returnUrl: `${RETURN_ORIGIN}/done` })).authorizationUrl),
    );
    expect(redirected.status).toBe(303);
    expect(redirected.headers.get("cache-control")).toBe("no-store");
    const answered = await h.callback(await as.authorizeWithFetch((await h.startAuth(key)).authorizationUrl));
    expect(answered.json.status).toBe("connected");
    expect(answered.headers.get("content-type")).toBe("application/json; charset=utf-8");
    expect(answered.headers.get("cache-control")).toBe("no-store");
  });
});
