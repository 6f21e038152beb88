import { describe, expect, it } from "vitest";
import type { AuthScheme, Credential } from "../../src/credentials/auth-schemes.js";
import { applyCredentialQuery, buildUpstreamHeaders, credentialHeader, credentialValue } from "../../src/outbound/headers.js";

// Where a credential goes when the scheme says (`placement`, an API key's `prefix`), and the
// toolkit's default headers: a caller replaces a default, never the credential.
const token: Credential = { type: "bearer", token: "tok-123" };
const oauth: Credential = { type: "oauth2", accessToken: "at-456" };
const key: Credential = { type: "apiKey", apiKey: "key-789" };
const url = new URL("https://api.example.test/v1/x?a=1");

describe("placement of a token", () => {
  it("goes in Authorization: Bearer by default, for OAuth and bearer alike", () => {
    expect(credentialValue({ type: "bearer" }, token)).toEqual({ in: "header", name: "authorization", value: "Bearer tok-123" });
    const scheme = { type: "oauth2", scopes: [] } as unknown as AuthScheme;
    expect(buildUpstreamHeaders({}, scheme, oauth).get("authorization")).toBe("Bearer at-456");
    expect(credentialHeader({ type: "bearer" })).toBe("authorization");
  });

  it("goes in another header, with its prefix or none, and the caller cannot set that header", () => {
    const shopify: AuthScheme = { type: "bearer", placement: { in: "header", name: "X-Shopify-Access-Token" } };
    const headers = buildUpstreamHeaders(
      { "x-shopify-access-token": "forged", Authorization: "Bearer forged", "x-kept": "1" },
      shopify,
      token,
    );
    expect([...headers]).toEqual([
      ["x-kept", "1"],
      ["x-shopify-access-token", "tok-123"],
    ]);
    expect(credentialHeader(shopify)).toBe("x-shopify-access-token");
    const zoho: AuthScheme = { type: "bearer", placement: { in: "header", name: "Authorization", prefix: "Zoho-oauthtoken " } };
    expect(buildUpstreamHeaders({}, zoho, token).get("authorization")).toBe("Zoho-oauthtoken tok-123");
  });

  it("goes in a query parameter, replacing the caller's, and in no header", () => {
    const trello: AuthScheme = { type: "bearer", placement: { in: "query", name: "token" } };
    expect(applyCredentialQuery(new URL("https://api.example.test/x?token=forged&a=1"), trello, token).href).toBe(
      "https://api.example.test/x?token=tok-123&a=1",
    );
    expect([...buildUpstreamHeaders({ Authorization: "Bearer forged" }, trello, token)]).toEqual([]);
    expect(credentialHeader(trello)).toBeNull();
  });

  it("an API key takes its prefix; a query key goes in the URL only", () => {
    const prefixed: AuthScheme = { type: "apiKey", in: "header", name: "Authorization", prefix: "Token " };
    expect(buildUpstreamHeaders({}, prefixed, key).get("authorization")).toBe("Token key-789");
    const plain: AuthScheme = { type: "apiKey", in: "header", name: "X-Api-Key" };
    expect(buildUpstreamHeaders({}, plain, key).get("x-api-key")).toBe("key-789");
    const query: AuthScheme = { type: "apiKey", in: "query", name: "api_key" };
    expect(applyCredentialQuery(url, query, key).href).toBe("https://api.example.test/v1/x?a=1&api_key=key-789");
    expect([...buildUpstreamHeaders({}, query, key)]).toEqual([]);
  });

  it("basic sends the pair, and no credential sends nothing", () => {
    const pair: Credential = { type: "basic", username: "ada", password: "pw" };
    expect(credentialValue({ type: "basic" }, pair)).toEqual({ in: "header", name: "authorization", value: "Basic YWRhOnB3" });
    expect(credentialValue({ type: "bearer" }, null)).toBeNull();
    expect(credentialValue({ type: "none" }, { type: "none" })).toBeNull();
    expect(credentialHeader({ type: "none" })).toBeNull();
    expect(applyCredentialQuery(url, { type: "none" }, null)).toBe(url);
  });

  it("a credential stored under another scheme goes its own type's default way, never into the scheme's key header", () => {
    const shopify: AuthScheme = { type: "bearer", placement: { in: "header", name: "X-Shop" } };
    expect(credentialValue(shopify, oauth)).toEqual({ in: "header", name: "authorization", value: "Bearer at-456" });
    expect(credentialValue({ type: "bearer" }, key)).toBeNull();
  });
});

describe("the toolkit's default headers", () => {
  const scheme: AuthScheme = { type: "bearer" };

  it("are sent, lower-cased, unless the caller sends the same header (any case)", () => {
    const defaults = { "Notion-Version": "2025-09-03", Accept: "application/vnd.github+json" };
    expect(Object.fromEntries(buildUpstreamHeaders({}, scheme, token, defaults))).toEqual({
      "notion-version": "2025-09-03",
      accept: "application/vnd.github+json",
      authorization: "Bearer tok-123",
    });
    const replaced = buildUpstreamHeaders({ "notion-VERSION": "2022-06-28" }, scheme, token, defaults);
    expect(replaced.get("notion-version")).toBe("2022-06-28");
    expect(replaced.get("accept")).toBe("application/vnd.github+json");
  });

  it("can never carry or remove the credential, and the forbidden headers stay dropped, default or caller's", () => {
    const placed: AuthScheme = { type: "bearer", placement: { in: "header", name: "X-Key" } };
    const defaults = {
      Authorization: "Basic x",
      "X-Key": "default",
      Host: "h",
      "Proxy-Authorization": "p",
      "Transfer-Encoding": "chunked",
    };
    expect(Object.fromEntries(buildUpstreamHeaders({}, placed, token, defaults))).toEqual({ "x-key": "tok-123" });
    expect(Object.fromEntries(buildUpstreamHeaders({ host: "evil.test" }, placed, token, defaults))).toEqual({ "x-key": "tok-123" });
  });
});
