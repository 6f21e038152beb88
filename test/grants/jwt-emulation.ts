import { createPrivateKey } from "node:crypto";
import { exportPKCS8, generateKeyPair, type JWTPayload, jwtVerify } from "jose";
import { type EmulatedAnswer, type EmulatedRequest, form, mint, startEmulation } from "../catalog/flows/emulation.js";

/*
 * Local emulations of the token endpoints of the JWT grants, written from each provider's pages,
 * which verify the assertion as the provider does (signature with the public key, then the claims):
 *
 * - Google, https://developers.google.com/identity/protocols/oauth2/service-account#authorizingrequests:
 *   POST https://oauth2.googleapis.com/token, form `grant_type=urn:ietf:params:oauth:grant-type:jwt-bearer`
 *   and `assertion`; header `{"alg":"RS256","typ":"JWT"}`; claims `iss` (the service account's
 *   email), `scope` (space-delimited), `aud` (always https://oauth2.googleapis.com/token for a token
 *   request), `exp` (at most one hour after `iat`), `iat`, and `sub` (the user to impersonate, with
 *   domain-wide delegation). Answer: `{ access_token, scope, token_type: "Bearer", expires_in }`; a
 *   bad assertion is a 400 `invalid_grant` ("Invalid JWT Signature.").
 * - GitHub, https://docs.github.com/en/apps/creating-github-apps/authenticating-with-a-github-app/generating-a-json-web-token-jwt-for-a-github-app
 *   and https://docs.github.com/en/rest/apps/apps#create-an-installation-access-token-for-an-app:
 *   the app JWT (RS256, `iss` the app's client id or app id, `iat` in the past, `exp` no more than
 *   10 minutes into the future) as `Authorization: Bearer` on `POST /app/installations/{installation_id}/access_tokens`;
 *   `201 { token, expires_at, permissions, repository_selection }`, `401` for a bad JWT, `404` for
 *   an installation the app does not have. The token is then sent as `Authorization: Bearer`.
 * - Salesforce, https://help.salesforce.com/s/articleView?id=sf.remoteaccess_oauth_jwt_flow.htm:
 *   POST https://login.salesforce.com/services/oauth2/token with the same form; claims `iss` (the
 *   connected app's consumer key), `aud` (https://login.salesforce.com, or https://test.salesforce.com
 *   for a sandbox), `sub` (the username), `exp` (within 3 minutes). Answer:
 *   `{ access_token, scope, instance_url, id, token_type: "Bearer" }`, without `expires_in`;
 *   `400 invalid_grant` otherwise.
 */

export const JWT_BEARER = "urn:ietf:params:oauth:grant-type:jwt-bearer";
export const GOOGLE_TOKEN_URL = "https://oauth2.googleapis.com/token";

/** An RSA key pair made for this run: nothing private is committed. */
export interface TestKey {
  publicKey: CryptoKey;
  /** PKCS #8 PEM. */
  pem: string;
  /** PKCS #1 PEM (`BEGIN RSA PRIVATE KEY`), as GitHub gives an app's key. */
  pkcs1: string;
}

export async function testKey(): Promise<TestKey> {
  const { publicKey, privateKey } = await generateKeyPair("RS256", { extractable: true });
  const pem = await exportPKCS8(privateKey);
  const pkcs1 = createPrivateKey(pem).export({ type: "pkcs1", format: "pem" }).toString();
  return { publicKey, pem, pkcs1 };
}

/** A Google service account key file as the console downloads it, every value unique to this run. */
export function keyFile(
  key: TestKey,
  overrides: Record<string, unknown> = {},
): { text: string; email: string; fields: Record<string, unknown> } {
  const project = mint("proj-").slice(0, 24);
  const email = `${mint("sa-").slice(0, 20)}@${project}.iam.gserviceaccount.com`;
  const fields = {
    type: "service_account",
    project_id: project,
    private_key_id: mint("").slice(0, 40),
    private_key: key.pem,
    client_email: email,
    client_id: String(Math.floor(Math.random() * 1e20)),
    auth_uri: "https://accounts.google.com/o/oauth2/auth",
    token_uri: GOOGLE_TOKEN_URL,
    auth_provider_x509_cert_url: "https://www.googleapis.com/oauth2/v1/certs",
    client_x509_cert_url: `https://www.googleapis.com/robot/v1/metadata/x509/${encodeURIComponent(email)}`,
    universe_domain: "googleapis.com",
    ...overrides,
  };
  return { text: JSON.stringify(fields, null, 2), email, fields };
}

/** Verifies an RS256 JWT with `publicKey`; the claims, or the reason it is refused. */
async function verify(jwt: string, publicKey: CryptoKey): Promise<{ claims: JWTPayload; header: Record<string, unknown> } | string> {
  try {
    const { payload, protectedHeader } = await jwtVerify(jwt, publicKey, { algorithms: ["RS256"] });
    return { claims: payload, header: protectedHeader };
  } catch (error) {
    return (error as Error).message;
  }
}

const now = () => Math.floor(Date.now() / 1000);

/** Google's token endpoint for the service accounts it knows (email → public key). */
export function googleTokenEndpoint(accounts: Map<string, CryptoKey>) {
  const issued: Array<{ token: string; claims: JWTPayload; header: Record<string, unknown> }> = [];
  const refusals: string[] = [];
  const refuse = (why: string): EmulatedAnswer => {
    refusals.push(why);
    return { status: 400, body: { error: "invalid_grant", error_description: "Invalid JWT Signature." } };
  };
  async function answer(request: EmulatedRequest): Promise<EmulatedAnswer> {
    if (request.method !== "POST" || request.headers["content-type"] !== "application/x-www-form-urlencoded") {
      return { status: 400, body: { error: "invalid_request" } };
    }
    const fields = form(request);
    if (fields.grant_type !== JWT_BEARER)
      return { status: 400, body: { error: "unsupported_grant_type", error_description: "Invalid grant_type: " } };
    const [encodedHeader] = (fields.assertion ?? "").split(".");
    let iss: unknown;
    try {
      iss = JSON.parse(Buffer.from((fields.assertion ?? "").split(".")[1] ?? "", "base64url").toString()).iss;
    } catch {
      return refuse("not a JWT");
    }
    const key = typeof iss === "string" ? accounts.get(iss) : undefined;
    if (!key || !encodedHeader) return refuse("unknown iss");
    const verified = await verify(fields.assertion!, key);
    if (typeof verified === "string") return refuse(verified);
    const { claims, header } = verified;
    if (header.typ !== "JWT") return refuse("typ");
    if (claims.aud !== GOOGLE_TOKEN_URL) return refuse("aud");
    if (typeof claims.scope !== "string" || claims.scope === "") return refuse("scope");
    if (typeof claims.iat !== "number" || typeof claims.exp !== "number") return refuse("iat/exp");
    if (claims.exp - claims.iat > 3600 || claims.iat > now() + 60) return refuse("lifetime");
    const token = mint("ya29.");
    issued.push({ token, claims, header });
    live.add(token);
    return { body: { access_token: token, scope: claims.scope, token_type: "Bearer", expires_in: settings.expiresIn } };
  }
  const live = new Set<string>();
  /** `expiresIn`: the lifetime of the next tokens, in seconds (Google: 3599). */
  const settings = { expiresIn: 3599 };
  return { answer, issued, refusals, live, settings };
}

/** GitHub's installation token endpoint and one API route, for an app (id → public key) and its installations. */
export function githubApi(appId: string, publicKey: CryptoKey, installations: Set<string>) {
  const issued: Array<{ token: string; installationId: string; claims: JWTPayload; headers: Record<string, string> }> = [];
  const live = new Set<string>();
  const refusals: string[] = [];
  let expiresInSeconds = 3600;
  const unauthorized = (why: string, message: string): EmulatedAnswer => {
    refusals.push(why);
    return { status: 401, body: { message, documentation_url: "https://docs.github.com/rest" } };
  };
  async function answer(request: EmulatedRequest): Promise<EmulatedAnswer> {
    const bearer = /^Bearer (.+)$/.exec(request.headers.authorization ?? "")?.[1];
    const tokenPath = /^\/app\/installations\/([^/]+)\/access_tokens$/.exec(request.path);
    if (request.method === "POST" && tokenPath) {
      if (!request.headers["user-agent"]) return { status: 403, body: { message: "Request forbidden by administrative rules." } };
      if (!bearer) return unauthorized("no JWT", "A JSON web token could not be decoded");
      const verified = await verify(bearer, publicKey);
      if (typeof verified === "string") return unauthorized(verified, "A JSON web token could not be decoded");
      const { claims } = verified;
      if (claims.iss !== appId) return unauthorized("iss", "'Issuer' claim ('iss') must be an Integer");
      if (typeof claims.iat !== "number" || claims.iat > now())
        return unauthorized("iat", "'Issued at' claim ('iat') must be an Integer representing a time in the past.");
      if (typeof claims.exp !== "number" || claims.exp - now() > 600)
        return unauthorized("exp", "'Expiration time' claim ('exp') is too far in the future");
      const installationId = decodeURIComponent(tokenPath[1]!);
      if (!installations.has(installationId))
        return { status: 404, body: { message: "Not Found", documentation_url: "https://docs.github.com/rest/apps/apps" } };
      const token = mint("ghs_");
      live.add(token);
      issued.push({ token, installationId, claims, headers: request.headers });
      const expiresAt = new Date((now() + expiresInSeconds) * 1000).toISOString().replace(/\.\d{3}Z$/, "Z");
      return {
        status: 201,
        body: { token, expires_at: expiresAt, permissions: { issues: "write", metadata: "read" }, repository_selection: "all" },
      };
    }
    if (request.method === "GET" && request.path === "/installation/repositories") {
      if (!bearer || !live.has(bearer))
        return { status: 401, body: { message: "Bad credentials", documentation_url: "https://docs.github.com/rest" } };
      return { body: { total_count: 1, repositories: [{ id: 1, full_name: "acme/widgets" }] } };
    }
    return { status: 404, body: { message: "Not Found" } };
  }
  return {
    answer,
    issued,
    live,
    refusals,
    /** How long the next installation tokens last, in seconds (GitHub: an hour). */
    set lifetime(seconds: number) {
      expiresInSeconds = seconds;
    },
  };
}

/** Salesforce's token endpoint for one connected app (consumer key → certificate's public key) and its pre-approved users. */
export function salesforceTokenEndpoint(consumerKey: string, publicKey: CryptoKey, users: Set<string>, instance = "acme") {
  const issued: Array<{ token: string; claims: JWTPayload }> = [];
  const live = new Set<string>();
  const refusals: string[] = [];
  const refuse = (why: string, description: string): EmulatedAnswer => {
    refusals.push(why);
    return { status: 400, body: { error: "invalid_grant", error_description: description } };
  };
  async function answer(request: EmulatedRequest): Promise<EmulatedAnswer> {
    if (request.method === "POST" && request.path === "/services/oauth2/token") {
      const fields = form(request);
      if (fields.grant_type !== JWT_BEARER)
        return { status: 400, body: { error: "unsupported_grant_type", error_description: "grant type not supported" } };
      const verified = await verify(fields.assertion ?? "", publicKey);
      if (typeof verified === "string") return refuse(verified, "invalid assertion");
      const { claims } = verified;
      if (claims.iss !== consumerKey) return refuse("iss", "invalid client credentials");
      if (claims.aud !== `https://${request.host}`) return refuse("aud", "audience is invalid");
      if (typeof claims.exp !== "number" || claims.exp - now() > 180 + 5) return refuse("exp", "expired authorization code");
      if (typeof claims.sub !== "string" || !users.has(claims.sub)) return refuse("sub", "user hasn't approved this consumer");
      const token = `00D${mint("").slice(0, 12)}!${mint("")}`;
      live.add(token);
      issued.push({ token, claims });
      return {
        body: {
          access_token: token,
          scope: "api",
          instance_url: `https://${instance}.my.salesforce.com`,
          id: `https://${request.host}/id/00Dxx0000001gPL/005xx000001Sv6e`,
          token_type: "Bearer",
        },
      };
    }
    const bearer = /^Bearer (.+)$/.exec(request.headers.authorization ?? "")?.[1];
    if (request.method === "GET" && request.path.startsWith("/services/data/")) {
      if (!bearer || !live.has(bearer))
        return { status: 401, body: [{ message: "Session expired or invalid", errorCode: "INVALID_SESSION_ID" }] };
      return { body: { sobjects: [{ name: "Account" }] } };
    }
    return { status: 404, body: [{ errorCode: "NOT_FOUND", message: "The requested resource does not exist" }] };
  }
  return { answer, issued, live, refusals };
}

/**
 * A local server answering for several hosts, and a fetch that sends each request for them there
 * (the host it was meant for in `x-emulated-host`), as test/catalog/flows/emulation.ts does.
 */
export function emulate(hosts: Record<string, (request: EmulatedRequest) => Promise<EmulatedAnswer> | EmulatedAnswer>) {
  return startEmulation(Object.keys(hosts), (request) => (hosts[request.host] ?? (() => ({ status: 404, body: {} })))(request));
}
