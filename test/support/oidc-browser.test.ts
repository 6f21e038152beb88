/**
 * Proves the browser path through the OIDC fixture: headless Chromium opens the authorization URL,
 * signs in and consents on oidc-provider's own pages (test/support/oidc-browser.ts), and lands on
 * the redirect_uri — here a tiny local server that records the query — with a code that
 * oauth4webapi then exchanges.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import * as oauth from "oauth4webapi";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CHROMIUM_MISSING, chromiumAvailable, keepBrowserLocal, launchChromium, signInAndConsent } from "./oidc-browser.js";
import { type OidcServer, startOidcServer } from "./oidc-server.js";

const CALLBACK_PATH = "/proxy/tools/auth/callback";
const insecure = { [oauth.allowInsecureRequests]: true } as const;

const TEST_NAME = "signs in and consents on the authorization server's pages and lands on the redirect_uri";

describe("OIDC fixture in Chromium", () => {
  let oidc: OidcServer;
  let callbackServer: Server;
  let redirectUri: string;
  let browser: Browser;
  const received: URL[] = [];

  beforeAll(async () => {
    callbackServer = createServer((req, res) => {
      received.push(new URL(req.url ?? "/", redirectUri));
      res.writeHead(200, { "content-type": "text/html" }).end("<!doctype html><title>connected</title><p>ok</p>");
    });
    await new Promise<void>((resolve) => callbackServer.listen(0, "127.0.0.1", resolve));
    redirectUri = `http://127.0.0.1:${(callbackServer.address() as AddressInfo).port}${CALLBACK_PATH}`;
    oidc = await startOidcServer({ redirectUris: [redirectUri] });
    if (chromiumAvailable) browser = await launchChromium();
  });

  afterAll(async () => {
    await browser?.close();
    await oidc?.close();
    callbackServer?.closeAllConnections();
    await new Promise((resolve) => callbackServer?.close(resolve));
  });

  // Without Chromium the test is skipped, and its name says why.
  it.skipIf(!chromiumAvailable)(chromiumAvailable ? TEST_NAME : `${TEST_NAME} (${CHROMIUM_MISSING})`, async () => {
    const issuer = new URL(oidc.issuer);
    const as = await oauth.processDiscoveryResponse(issuer, await oauth.discoveryRequest(issuer, insecure));
    const client: oauth.Client = { client_id: oidc.clientId };
    const codeVerifier = oauth.generateRandomCodeVerifier();
    const state = oauth.generateRandomState();
    const authorizationUrl = new URL(as.authorization_endpoint!);
    authorizationUrl.search = new URLSearchParams({
      client_id: oidc.clientId,
      redirect_uri: redirectUri,
      response_type: "code",
      scope: "openid profile email notes:read",
      state,
      code_challenge: await oauth.calculatePKCECodeChallenge(codeVerifier),
      code_challenge_method: "S256",
    }).toString();

    const context = await browser.newContext();
    try {
      await keepBrowserLocal(context);
      const page = await context.newPage();
      await page.goto(authorizationUrl.href);
      const landedOn = await signInAndConsent(page, { login: "alice" });

      expect(`${landedOn.origin}${landedOn.pathname}`).toBe(redirectUri);
      await page.waitForLoadState("load");
      await expect(page.title()).resolves.toBe("connected");
      expect(received).toHaveLength(1);
      const callback = received[0]!;
      expect(callback.searchParams.get("state")).toBe(state);
      expect(callback.searchParams.get("iss")).toBe(oidc.issuer);

      const params = oauth.validateAuthResponse(as, client, callback, state);
      const tokens = await oauth.processAuthorizationCodeResponse(
        as,
        client,
        await oauth.authorizationCodeGrantRequest(
          as,
          client,
          oauth.ClientSecretBasic(oidc.clientSecret),
          params,
          redirectUri,
          codeVerifier,
          insecure,
        ),
      );
      const info = await oauth.processUserInfoResponse(
        as,
        client,
        "alice",
        await oauth.userInfoRequest(as, client, tokens.access_token, insecure),
      );
      expect(info).toEqual(oidc.userinfoFor("alice"));
      expect(oidc.tokenRequests.map((r) => [r.grantType, r.status])).toEqual([["authorization_code", 200]]);
      expect(oidc.serverErrors).toEqual([]);
    } finally {
      await context.close();
    }
  });
});
