import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { catalogToolkit } from "../../src/catalog/index.js";
import type { HandlerContext } from "../../src/context/context.js";
import type { JwtBearerScheme } from "../../src/credentials/auth-schemes.js";
import { GrantError, grantSecrets } from "../../src/grants/index.js";
import { jwtBearerGrant } from "../../src/grants/jwt-bearer.js";
import type { Toolkit } from "../../src/toolkits/define.js";
import { emulate, googleTokenEndpoint, JWT_BEARER, keyFile, salesforceTokenEndpoint, type TestKey, testKey } from "./jwt-emulation.js";

/*
 * The JWT bearer grant against emulations of Google's and Salesforce's token endpoints (see
 * jwt-emulation.ts for the pages each follows), which verify the assertion's signature and claims.
 */

let google: TestKey;
let salesforce: TestKey;
let other: TestKey;
const accounts = new Map<string, CryptoKey>();
const googleEndpoint = googleTokenEndpoint(accounts);
const consumerKey = `3MVG9${crypto.randomUUID().replaceAll("-", "")}`;
let sfEndpoint: ReturnType<typeof salesforceTokenEndpoint>;
let net: Awaited<ReturnType<typeof emulate>>;
const logs: string[] = [];

beforeAll(async () => {
  [google, salesforce, other] = await Promise.all([testKey(), testKey(), testKey()]);
  sfEndpoint = salesforceTokenEndpoint(consumerKey, salesforce.publicKey, new Set(["integration@acme.example"]));
  net = await emulate({
    "oauth2.googleapis.com": googleEndpoint.answer,
    "login.salesforce.com": (request) => sfEndpoint.answer(request),
    "test.salesforce.com": (request) => sfEndpoint.answer(request),
  });
});
afterAll(() => net?.close());

function ctx(): HandlerContext {
  return { fetch: net.fetch, logger: { log: (...args: unknown[]) => void logs.push(JSON.stringify(args)) } } as unknown as HandlerContext;
}

function modeOf(toolkit: Toolkit): JwtBearerScheme {
  return toolkit.authModes.find((mode): mode is JwtBearerScheme => mode.type === "jwtBearer")!;
}

async function grant(toolkit: Toolkit, credential: Record<string, string>, config: Record<string, string> = {}) {
  return jwtBearerGrant({ ctx: ctx(), toolkit, scheme: modeOf(toolkit), credential, config, signal: new AbortController().signal });
}

describe("Google service accounts (jwtBearer, signer serviceAccount)", () => {
  it("signs iss, scope, aud, iat and exp (an hour) with the key file's key, and keeps the token and its lifetime", async () => {
    const drive = catalogToolkit("google-drive");
    const file = keyFile(google);
    accounts.set(file.email, google.publicKey);
    // The file as Google writes it, on several lines, is kept as it was pasted.
    const credential = grantSecrets(drive.slug, modeOf(drive), { serviceAccountKey: `\n${file.text}\n` });
    expect(credential).toEqual({ serviceAccountKey: file.text });
    const before = googleEndpoint.issued.length;
    const token = await grant(drive, credential);
    const issued = googleEndpoint.issued[before]!;
    expect(token).toEqual({ accessToken: issued.token, expiresIn: 3599 });
    expect(issued.header).toEqual({ alg: "RS256", typ: "JWT", kid: file.fields.private_key_id });
    expect(issued.claims).toMatchObject({
      iss: file.email,
      scope: "https://www.googleapis.com/auth/drive",
      aud: "https://oauth2.googleapis.com/token",
    });
    expect(issued.claims.sub).toBeUndefined();
    expect(issued.claims.exp! - issued.claims.iat!).toBe(3600);
    expect(Math.abs(issued.claims.iat! - Date.now() / 1000)).toBeLessThan(30);
    const sent = net.requests.filter((r) => r.host === "oauth2.googleapis.com").at(-1)!;
    expect(sent.method).toBe("POST");
    expect(sent.path).toBe("/token");
    expect(sent.headers["content-type"]).toBe("application/x-www-form-urlencoded");
    expect([...new URLSearchParams(sent.body).keys()]).toEqual(["grant_type", "assertion"]);
    expect(new URLSearchParams(sent.body).get("grant_type")).toBe(JWT_BEARER);
  });

  it("acts for a user of the domain when the connection names a subject (domain-wide delegation); scopes join with a space", async () => {
    const calendar = catalogToolkit("google-calendar");
    const file = keyFile(google);
    accounts.set(file.email, google.publicKey);
    const credential = grantSecrets(calendar.slug, modeOf(calendar), { serviceAccountKey: file.text, subject: "ada@acme.example" });
    const before = googleEndpoint.issued.length;
    await grant(calendar, credential);
    expect(googleEndpoint.issued[before]!.claims).toMatchObject({
      sub: "ada@acme.example",
      scope: "https://www.googleapis.com/auth/calendar.events https://www.googleapis.com/auth/calendar.readonly",
    });
  });

  it("a key file signed by another key is refused by Google: a 400 with Google's reason, and no token", async () => {
    const sheets = catalogToolkit("google-sheets");
    const file = keyFile(other);
    accounts.set(file.email, google.publicKey); // Google holds another public key for this account
    const refused = await grant(sheets, { serviceAccountKey: file.text }).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(GrantError);
    expect(refused).toMatchObject({ kind: "refused" });
    expect((refused as Error).message).toBe(
      "Google Sheets refused the credentials (400: Invalid JWT Signature.). Check them and connect again.",
    );
    expect(googleEndpoint.refusals.at(-1)).toMatch(/signature/i);
  });

  it("a service account mode without the key file is refused, and POST /auth's check says what to send", async () => {
    const drive = catalogToolkit("google-drive");
    await expect(grant(drive, {})).rejects.toMatchObject({ kind: "refused", message: expect.stringContaining("is not JSON") });
    expect(() => grantSecrets(drive.slug, modeOf(drive), {})).toThrow('"serviceAccountKey": "..."');
  });
});

describe("Salesforce JWT bearer (signer deployer)", () => {
  it("signs iss (the consumer key), sub (the username), aud (the login host) and exp (3 minutes); instance_url fills the config", async () => {
    const toolkit = catalogToolkit("salesforce", { clientId: consumerKey, privateKey: salesforce.pem });
    const credential = grantSecrets(toolkit.slug, modeOf(toolkit), { subject: "integration@acme.example" });
    const before = sfEndpoint.issued.length;
    const token = await grant(toolkit, credential, { loginHost: "login.salesforce.com" });
    const issued = sfEndpoint.issued[before]!;
    expect(token).toEqual({ accessToken: issued.token, config: { instance: "acme" } });
    expect(issued.claims).toMatchObject({ iss: consumerKey, sub: "integration@acme.example", aud: "https://login.salesforce.com" });
    expect(issued.claims.exp! - issued.claims.iat!).toBe(180);
    expect(issued.claims.scope).toBeUndefined();
  });

  it("a sandbox's login host is the audience and the endpoint", async () => {
    const toolkit = catalogToolkit("salesforce", { clientId: consumerKey, privateKey: salesforce.pem });
    const before = sfEndpoint.issued.length;
    await grant(toolkit, { subject: "integration@acme.example" }, { loginHost: "test.salesforce.com" });
    expect(sfEndpoint.issued[before]!.claims.aud).toBe("https://test.salesforce.com");
    expect(net.requests.at(-1)!.host).toBe("test.salesforce.com");
  });

  it("a user the app is not approved for is Salesforce's 400 with its reason", async () => {
    const toolkit = catalogToolkit("salesforce", { clientId: consumerKey, privateKey: salesforce.pem });
    await expect(grant(toolkit, { subject: "someone@else.example" }, { loginHost: "login.salesforce.com" })).rejects.toMatchObject({
      kind: "refused",
      message: expect.stringContaining("(400: user hasn't approved this consumer)"),
    });
  });

  it("without the deployer's key the mode is not configured: a 400 naming the variables, and nothing is sent", async () => {
    const toolkit = catalogToolkit("salesforce", { clientId: consumerKey });
    const sent = net.requests.length;
    await expect(grant(toolkit, { subject: "integration@acme.example" }, { loginHost: "login.salesforce.com" })).rejects.toMatchObject({
      code: "invalid_request",
      message: expect.stringMatching(/TOOLS_PROXY_SALESFORCE_CLIENT_ID.*TOOLS_PROXY_SALESFORCE_PRIVATE_KEY/),
    });
    expect(net.requests.length).toBe(sent);
  });

  it("a scheme without an issuer or key and no sentence of its own is refused with the default sentence, and nothing is sent", async () => {
    const toolkit = catalogToolkit("salesforce", { clientId: consumerKey, privateKey: salesforce.pem });
    const scheme = { ...modeOf(toolkit), privateKey: undefined };
    const sent = net.requests.length;
    const request = {
      ctx: ctx(),
      toolkit,
      scheme,
      credential: { subject: "integration@acme.example" },
      config: { loginHost: "login.salesforce.com" },
      signal: new AbortController().signal,
    };
    await expect(jwtBearerGrant(request)).rejects.toMatchObject({
      code: "invalid_request",
      message: "Salesforce's JWT bearer mode has no issuer or private key on this server; its operator must set them.",
    });
    expect(net.requests.length).toBe(sent);
  });

  it("an unreadable deployer key is a 400 for the operator that does not quote the key, and nothing is sent", async () => {
    const toolkit = catalogToolkit("salesforce", { clientId: consumerKey, privateKey: "not a key at all" });
    const sent = net.requests.length;
    const failure = (await grant(toolkit, { subject: "integration@acme.example" }, { loginHost: "login.salesforce.com" }).catch(
      (error: unknown) => error,
    )) as Error;
    expect(failure).toMatchObject({
      code: "invalid_request",
      message: expect.stringMatching(/The server's private key for Salesforce.*Its operator must fix it\.$/s),
    });
    expect(failure.message).not.toContain("not a key at all");
    expect(net.requests.length).toBe(sent);
  });

  it("a subject of a scheme that names no label is refused as the subject", async () => {
    const toolkit = catalogToolkit("salesforce", { clientId: consumerKey, privateKey: salesforce.pem });
    const scheme = { ...modeOf(toolkit), subject: undefined };
    const request = {
      ctx: ctx(),
      toolkit,
      scheme,
      credential: { subject: "a b" },
      config: { loginHost: "login.salesforce.com" },
      signal: new AbortController().signal,
    };
    await expect(jwtBearerGrant(request)).rejects.toMatchObject({
      kind: "refused",
      message: "The subject must be printable, without spaces, at most 256 characters.",
    });
  });

  it("an answer without instance_url fails as an answer naming the field", async () => {
    const toolkit = catalogToolkit("salesforce", { clientId: consumerKey, privateKey: salesforce.pem });
    const odd = await emulate({
      "login.salesforce.com": () => ({ status: 200, body: { access_token: "00Dx!abc", token_type: "Bearer" } }),
    });
    try {
      const request = {
        ctx: { fetch: odd.fetch, logger: { log() {} } } as unknown as HandlerContext,
        toolkit,
        scheme: modeOf(toolkit),
        credential: { subject: "integration@acme.example" },
        config: { loginHost: "login.salesforce.com" },
        signal: new AbortController().signal,
      };
      await expect(jwtBearerGrant(request)).rejects.toMatchObject({
        kind: "answer",
        message: expect.stringMatching(/token answer.*instance_url|instance_url.*token answer/s),
      });
    } finally {
      await odd.close();
    }
  });

  it("a username pasted with spaces around it is trimmed, not refused", async () => {
    const toolkit = catalogToolkit("salesforce", { clientId: consumerKey, privateKey: salesforce.pem });
    const token = await grant(toolkit, { subject: "  integration@acme.example  " }, { loginHost: "login.salesforce.com" });
    expect(token.accessToken).toBeTruthy();
  });

  it("a username is required and must be printable without spaces", async () => {
    const toolkit = catalogToolkit("salesforce", { clientId: consumerKey, privateKey: salesforce.pem });
    expect(() => grantSecrets(toolkit.slug, modeOf(toolkit), {})).toThrow('"subject": "..."');
    expect(() => grantSecrets(toolkit.slug, modeOf(toolkit), { subject: "x", serviceAccountKey: "{}" })).toThrow(
      "credentials.serviceAccountKey is not a field",
    );
    const sent = net.requests.length;
    await expect(grant(toolkit, { subject: "a\tb" }, { loginHost: "login.salesforce.com" })).rejects.toMatchObject({
      kind: "refused",
      message: expect.stringContaining("Salesforce username must be printable"),
    });
    expect(net.requests.length).toBe(sent);
  });
});
