/**
 * The authorization URL POST /auth answers, as the provider receives it: the library's own
 * parameters (response_type, client_id, redirect_uri, scope, state, PKCE, nonce) cannot be
 * overridden or added by a toolkit's authorizationParams, scope and nonce are sent only when they
 * apply, and a server without publicUrl can neither start a flow nor complete one.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createToolsHandler, type Logger } from "../../src/index.js";
import {
  CALLBACK_URL,
  createOAuthHarness,
  notesToolkit,
  OAUTH_TEST_SECRET,
  type OAuthHarness,
  RETURN_ORIGIN,
  SCOPES,
} from "../support/oauth-harness.js";
import { type OidcServer, startOidcServer } from "../support/oidc-server.js";

let as: OidcServer;
let h: OAuthHarness;
let key: string;

/** Everything a toolkit might try to set that is the library's to set. */
const OVERRIDES = {
  response_type: "token",
  client_id: "someone-else",
  redirect_uri: "https://evil.test/callback",
  scope: "admin",
  state: "chosen-by-the-toolkit",
  code_challenge: "chosen-by-the-toolkit",
  code_challenge_method: "plain",
  nonce: "chosen-by-the-toolkit",
};

beforeAll(async () => {
  as = await startOidcServer({ redirectUris: [CALLBACK_URL] });
  h = await createOAuthHarness({
    as,
    toolkits: [
      notesToolkit(as, { auth: { authorizationParams: { ...OVERRIDES, prompt: "consent", ui_locales: "fr" } } }),
      notesToolkit(as, { slug: "notes-plain", prefix: "PLAIN", auth: { scopes: ["notes:read"], authorizationParams: OVERRIDES } }),
      notesToolkit(as, { slug: "notes-unscoped", prefix: "UNSCOPED", auth: { scopes: [], authorizationParams: OVERRIDES } }),
    ],
  });
  key = await h.issueAgentKey("agent-u");
});
afterAll(async () => {
  h.assertNoLeaks();
  expect(as.serverErrors).toEqual([]);
  await as.close();
});

const query = (url: string) => Object.fromEntries(new URL(url).searchParams);

describe("the authorization URL", () => {
  it("carries the library's parameters whatever authorizationParams say, keeps the toolkit's others, and the flow completes", async () => {
    const started = await h.startAuth(key);
    expect(started.authorizationId).toMatch(/^auth_[A-Za-z0-9_-]{16,}$/);
    const q = query(started.authorizationUrl);
    expect(Object.keys(q).sort()).toEqual(
      [
        "client_id",
        "code_challenge",
        "code_challenge_method",
        "nonce",
        "prompt",
        "redirect_uri",
        "response_type",
        "scope",
        "state",
        "ui_locales",
      ].sort(),
    );
    expect(q).toMatchObject({
      response_type: "code",
      client_id: as.clientId,
      redirect_uri: CALLBACK_URL,
      scope: SCOPES.join(" "),
      code_challenge_method: "S256",
      prompt: "consent",
      ui_locales: "fr",
    });
    for (const name of ["state", "code_challenge", "nonce"]) expect(q[name]).not.toBe("chosen-by-the-toolkit");
    // The provider checks the PKCE verifier and the ID token's nonce against these: the flow works.
    const callbackUrl = await as.authorizeWithFetch(started.authorizationUrl);
    expect(callbackUrl.searchParams.get("state")).toBe(q.state);
    expect((await h.callback(callbackUrl)).json).toEqual({ status: "connected", connectionId: expect.stringMatching(/^conn_/) });
  });

  it("sends no nonce without the openid scope, even when authorizationParams have one", async () => {
    const q = query((await h.startAuth(key, { toolkit: "notes-plain" })).authorizationUrl);
    expect(q.scope).toBe("notes:read");
    expect(q).not.toHaveProperty("nonce");
    expect(q).toMatchObject({ response_type: "code", state: expect.not.stringMatching(/chosen/), code_challenge_method: "S256" });
  });

  it("sends no scope and no nonce for a toolkit without scopes, even when authorizationParams have them", async () => {
    const q = query((await h.startAuth(key, { toolkit: "notes-unscoped" })).authorizationUrl);
    expect(q).not.toHaveProperty("scope");
    expect(q).not.toHaveProperty("nonce");
    expect(Object.keys(q).sort()).toEqual([
      "client_id",
      "code_challenge",
      "code_challenge_method",
      "redirect_uri",
      "response_type",
      "state",
    ]);
  });
});

describe("a server without publicUrl", () => {
  it("fails a callback for a flow another server started cleanly: no connection, the return URL told why, the error logged", async () => {
    const logs: Array<{ message: string; fields: unknown }> = [];
    const record = (message: string, fields?: Record<string, unknown>) => void logs.push({ message, fields });
    const logger: Logger = { error: record, warn: record };
    // The same store and secret as `h`, but no publicUrl: it cannot know its own callback URL.
    const unconfigured = createToolsHandler({
      store: h.store,
      secret: OAUTH_TEST_SECRET,
      toolkits: [notesToolkit(as)],
      allowedReturnOrigins: [RETURN_ORIGIN],
      logger,
    });
    const started = await h.startAuth(key, { returnUrl: `${RETURN_ORIGIN}/done` });
    const callbackUrl = await as.authorizeWithFetch(started.authorizationUrl);
    const before = (await h.store.listConnections({ workspaceId: "ws1" })).length;
    const mark = as.tokenRequests.length;

    const res = await unconfigured(new Request(callbackUrl, { headers: { accept: "text/html" } }));
    expect(res.status).toBe(303);
    const location = new URL(res.headers.get("location")!);
    expect(location.origin).toBe(RETURN_ORIGIN);
    expect(location.searchParams.get("status")).toBe("failed");
    expect(location.searchParams.get("error")).toMatch(/could not be completed/);
    expect(as.tokenRequests.slice(mark)).toEqual([]);
    expect((await h.store.listConnections({ workspaceId: "ws1" })).length).toBe(before);
    expect(logs.map((l) => l.message)).toEqual(["OAuth callback failed"]);
    expect(JSON.stringify(logs)).toMatch(/publicUrl is not configured/);
    const code = callbackUrl.searchParams.get("code")!;
    expect(JSON.stringify(logs)).not.toContain(code);
  });
});
