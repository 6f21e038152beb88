import { decodeProtectedHeader } from "jose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { catalogToolkit } from "../../src/catalog/index.js";
import type { HandlerContext } from "../../src/context/context.js";
import type { AppInstallationScheme } from "../../src/credentials/auth-schemes.js";
import { appInstallationGrant, INSTALLATION_ID_PROBLEM } from "../../src/grants/app-installation.js";
import { grantSecrets } from "../../src/grants/index.js";
import type { Toolkit } from "../../src/toolkits/define.js";
import { emulate, githubApi, type TestKey, testKey } from "./jwt-emulation.js";

/*
 * The GitHub App installation grant against an emulation of GitHub's API (jwt-emulation.ts cites
 * the pages), which verifies the app JWT's signature, `iss`, `iat` in the past and `exp` at most
 * 10 minutes on, and answers `201 { token, expires_at }`.
 */

let app: TestKey;
let stranger: TestKey;
const appId = String(100000 + Math.floor(Math.random() * 800000));
let github: ReturnType<typeof githubApi>;
let net: Awaited<ReturnType<typeof emulate>>;

beforeAll(async () => {
  [app, stranger] = await Promise.all([testKey(), testKey()]);
  github = githubApi(appId, app.publicKey, new Set(["4242", "77"]));
  net = await emulate({ "api.github.com": (request) => github.answer(request) });
});
afterAll(() => net?.close());

const ctx = () => ({ fetch: net.fetch, logger: { log() {} } }) as unknown as HandlerContext;
const modeOf = (toolkit: Toolkit) => toolkit.authModes.find((mode): mode is AppInstallationScheme => mode.type === "appInstallation")!;

function grant(toolkit: Toolkit, installationId: string) {
  return appInstallationGrant({
    ctx: ctx(),
    toolkit,
    scheme: modeOf(toolkit),
    credential: { installationId },
    config: {},
    signal: new AbortController().signal,
  });
}

describe("GitHub App installation tokens", () => {
  it("signs the app JWT (iss the app id, iat 60 s back, exp under 10 minutes) with GitHub's PKCS #1 key and keeps the token for an hour", async () => {
    const toolkit = catalogToolkit("github", { appId, privateKey: app.pkcs1 });
    const before = github.issued.length;
    const token = await grant(toolkit, "4242");
    const issued = github.issued[before]!;
    expect(issued.installationId).toBe("4242");
    expect(token.accessToken).toBe(issued.token);
    expect(token.expiresIn).toBeGreaterThan(3500);
    expect(token.expiresIn).toBeLessThanOrEqual(3600);
    const now = Date.now() / 1000;
    expect(issued.claims.iss).toBe(appId);
    expect(now - issued.claims.iat!).toBeGreaterThanOrEqual(55);
    expect(now - issued.claims.iat!).toBeLessThan(90);
    expect(issued.claims.exp! - now).toBeLessThanOrEqual(600);
    expect(issued.claims.exp! - issued.claims.iat!).toBeLessThanOrEqual(660);
    expect(issued.claims.exp! - now).toBeGreaterThan(8 * 60);
    const sent = net.requests.at(-1)!;
    expect(decodeProtectedHeader(sent.headers.authorization!.replace(/^Bearer /, ""))).toEqual({ alg: "RS256", typ: "JWT" });
    expect(sent.method).toBe("POST");
    expect(sent.path).toBe("/app/installations/4242/access_tokens");
    // GitHub's headers: the toolkit's Accept, API version and User-Agent, each sent once.
    expect(sent.headers.accept).toBe("application/vnd.github+json");
    expect(sent.headers["x-github-api-version"]).toBe("2022-11-28");
    expect(sent.headers["user-agent"]).toBe("tools-proxy");
    expect(sent.body).toBe("");
  });

  it("takes a PKCS #8 key as well, and a key whose line breaks an environment variable wrote as \\n", async () => {
    for (const privateKey of [app.pem, app.pkcs1.replaceAll("\n", "\\n")]) {
      const toolkit = catalogToolkit("github", { appId, privateKey });
      await expect(grant(toolkit, "77")).resolves.toMatchObject({ accessToken: expect.stringMatching(/^ghs_/) });
    }
  });

  it("an installation the app does not have is GitHub's 404, a 400 that says so", async () => {
    const toolkit = catalogToolkit("github", { appId, privateKey: app.pem });
    await expect(grant(toolkit, "5")).rejects.toMatchObject({ kind: "refused", message: expect.stringContaining("(404: Not Found)") });
  });

  it("a JWT signed with another key is GitHub's 401", async () => {
    const toolkit = catalogToolkit("github", { appId, privateKey: stranger.pem });
    await expect(grant(toolkit, "4242")).rejects.toMatchObject({
      kind: "refused",
      message: expect.stringContaining("(401: A JSON web token could not be decoded)"),
    });
    expect(github.refusals.at(-1)).toMatch(/signature/i);
  });

  it("without the app's id or key the mode is not configured: a 400 naming the variables, and nothing is sent", async () => {
    const sent = net.requests.length;
    for (const toolkit of [
      catalogToolkit("github"),
      catalogToolkit("github", { appId }),
      catalogToolkit("github", { privateKey: app.pem }),
    ]) {
      await expect(grant(toolkit, "4242")).rejects.toMatchObject({
        code: "invalid_request",
        message: expect.stringMatching(/TOOLS_PROXY_GITHUB_APP_ID and TOOLS_PROXY_GITHUB_APP_PRIVATE_KEY/),
      });
    }
    expect(net.requests.length).toBe(sent);
  });

  it("a mode marked unconfigured is refused with its own sentence, even with an app id and key, and nothing is sent", async () => {
    const toolkit = catalogToolkit("github", { appId, privateKey: app.pem });
    const sent = net.requests.length;
    const scheme = { ...modeOf(toolkit), unconfigured: "Set the GitHub App on this server first." };
    const request = {
      ctx: ctx(),
      toolkit,
      scheme,
      credential: { installationId: "4242" },
      config: {},
      signal: new AbortController().signal,
    };
    await expect(appInstallationGrant(request)).rejects.toMatchObject({
      code: "invalid_request",
      message: "Set the GitHub App on this server first.",
    });
    expect(net.requests.length).toBe(sent);
  });

  it("an unreadable deployer key is a 400 naming the app's key and telling the operator to fix it, and nothing is sent", async () => {
    const toolkit = catalogToolkit("github", { appId, privateKey: "not a key at all" });
    const sent = net.requests.length;
    const failure = await grant(toolkit, "4242").catch((error: unknown) => error);
    expect(failure).toMatchObject({
      code: "invalid_request",
      message: expect.stringMatching(/The server's private key of the GitHub app.*Its operator must fix it\.$/s),
    });
    expect(String((failure as Error).message)).not.toContain("not a key at all");
    expect(net.requests.length).toBe(sent);
  });

  it("an installation id is digits: anything else is refused before anything is sent", async () => {
    const toolkit = catalogToolkit("github", { appId, privateKey: app.pem });
    const sent = net.requests.length;
    for (const bad of ["", "12a", "../1", "1/access_tokens?x", "1".repeat(21)]) {
      await expect(grant(toolkit, bad)).rejects.toMatchObject({
        kind: "refused",
        message: expect.stringContaining("installation id must be"),
      });
    }
    expect(() => grantSecrets(toolkit.slug, modeOf(toolkit), {})).toThrow('"installationId": "..."');
    expect(grantSecrets(toolkit.slug, modeOf(toolkit), { installationId: "4242" })).toEqual({ installationId: "4242" });
    expect(net.requests.length).toBe(sent);
  });

  it("a scheme without an app id or key and no sentence of its own is refused with the default sentence", async () => {
    const toolkit = catalogToolkit("github", { appId, privateKey: app.pem });
    const scheme = { ...modeOf(toolkit), privateKey: undefined };
    const request = {
      ctx: ctx(),
      toolkit,
      scheme,
      credential: { installationId: "4242" },
      config: {},
      signal: new AbortController().signal,
    };
    await expect(appInstallationGrant(request)).rejects.toMatchObject({
      code: "invalid_request",
      message: "GitHub's app installation mode has no app id or private key on this server; its operator must set them.",
    });
  });

  it("a credential without an installation id is refused with the same sentence", async () => {
    const toolkit = catalogToolkit("github", { appId, privateKey: app.pem });
    const request = { ctx: ctx(), toolkit, scheme: modeOf(toolkit), credential: {}, config: {}, signal: new AbortController().signal };
    await expect(appInstallationGrant(request)).rejects.toMatchObject({ kind: "refused", message: INSTALLATION_ID_PROBLEM });
  });

  it("a toolkit without an Accept header still asks GitHub for its JSON", async () => {
    const toolkit = { ...catalogToolkit("github", { appId, privateKey: app.pem }), headers: { "User-Agent": "tools-proxy" } };
    await grant(toolkit, "4242");
    expect(net.requests.at(-1)!.headers.accept).toBe("application/vnd.github+json");
  });

  it("a refusal that quotes the app JWT back does not carry it into the error", async () => {
    const toolkit = catalogToolkit("github", { appId, privateKey: app.pem });
    const echo = await emulate({
      "api.github.com": (request) => ({ status: 401, body: { message: `Bad credentials: ${request.headers.authorization}` } }),
    });
    try {
      const request = {
        ctx: { fetch: echo.fetch, logger: { log() {} } } as unknown as HandlerContext,
        toolkit,
        scheme: modeOf(toolkit),
        credential: { installationId: "4242" },
        config: {},
        signal: new AbortController().signal,
      };
      const failure = (await appInstallationGrant(request).catch((error: unknown) => error)) as Error;
      const jwt = echo.requests.at(-1)!.headers.authorization!.replace(/^Bearer /, "");
      expect(failure.message).toMatch(/Bad credentials/);
      expect(failure.message).not.toContain(jwt);
    } finally {
      await echo.close();
    }
  });

  it("a token answer without token fails with a sentence naming the field", async () => {
    const toolkit = catalogToolkit("github", { appId, privateKey: app.pem });
    const odd = await emulate({ "api.github.com": () => ({ status: 201, body: { expires_at: "2030-01-01T00:00:00Z" } }) });
    try {
      const request = {
        ctx: { fetch: odd.fetch, logger: { log() {} } } as unknown as HandlerContext,
        toolkit,
        scheme: modeOf(toolkit),
        credential: { installationId: "4242" },
        config: {},
        signal: new AbortController().signal,
      };
      await expect(appInstallationGrant(request)).rejects.toMatchObject({
        kind: "answer",
        message: expect.stringContaining('has no usable "token"'),
      });
    } finally {
      await odd.close();
    }
  });
});
