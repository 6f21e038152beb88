import { describe, expect, it } from "vitest";
import type { OAuth2Scheme } from "../../src/credentials/auth-schemes.js";
import { defineToolkit, oauth2 } from "../../src/index.js";
import { assertOAuthEndpoints, oauthEndpoints } from "../../src/toolkits/oauth-endpoints.js";

const kit = (authorizationUrl: string) =>
  defineToolkit({
    slug: "kit",
    name: "Kit",
    description: "d",
    baseUrl: "https://api.kit.example",
    auth: oauth2({ authorizationUrl, tokenUrl: "https://api.kit.example/oauth/token", clientId: "c" }),
    tools: [],
  });

describe("OAuth endpoints", () => {
  it("refuse a fragment (RFC 6749 3.1): the request's parameters would land before it, unread by a hash-routed page", () => {
    for (const url of ["https://app.kit.example/#/oauth/authorize", "https://app.kit.example/authorize#"]) {
      expect(() => kit(url), url).toThrow("has a fragment (#...), which OAuth endpoints may not have");
    }
    expect(kit("https://app.kit.example/oauth/authorize").auth.type).toBe("oauth2");
  });
});

describe("assertOAuthEndpoints", () => {
  const scheme = (endpoints: Partial<OAuth2Scheme>): OAuth2Scheme => ({
    type: "oauth2",
    authorizationUrl: "https://auth.kit.example/authorize",
    tokenUrl: "https://auth.kit.example/token",
    clientId: "c",
    scopes: [],
    ...endpoints,
  });
  const check = (endpoints: Partial<OAuth2Scheme>) => () => assertOAuthEndpoints("kit", scheme(endpoints));

  it("lists the authorization, token, userinfo and revocation endpoints that are set, in that order", () => {
    expect(oauthEndpoints(scheme({}))).toEqual(["https://auth.kit.example/authorize", "https://auth.kit.example/token"]);
    expect(oauthEndpoints(scheme({ userInfoUrl: "https://u.kit.example/me", revocationUrl: "https://r.kit.example/revoke" }))).toEqual([
      "https://auth.kit.example/authorize",
      "https://auth.kit.example/token",
      "https://u.kit.example/me",
      "https://r.kit.example/revoke",
    ]);
    expect(oauthEndpoints(scheme({ userInfoUrl: "", revocationUrl: "https://r.kit.example/revoke" }))).toHaveLength(3);
  });

  it("accept https, and http only on loopback addresses", () => {
    for (const url of ["https://auth.kit.example/token", "http://127.0.0.1:8080/token", "http://localhost/token", "http://[::1]:9/token"]) {
      expect(check({ tokenUrl: url }), url).not.toThrow();
    }
    for (const url of [
      "http://auth.kit.example/token",
      "http://127.0.0.2/token",
      "http://localhost.kit.example/token",
      "ftp://localhost/token",
    ]) {
      expect(check({ tokenUrl: url }), url).toThrow(
        `Toolkit "kit": OAuth endpoint "${url}" must use https (http is allowed only on loopback addresses).`,
      );
    }
  });

  it("check every endpoint, the userinfo and revocation endpoints too", () => {
    for (const key of ["authorizationUrl", "tokenUrl", "userInfoUrl", "revocationUrl"] as const) {
      expect(check({ [key]: "http://kit.example/x" }), key).toThrow("must use https");
      expect(check({ [key]: "/oauth/x" }), key).toThrow(`Toolkit "kit": OAuth endpoint "/oauth/x" is not an absolute URL.`);
    }
  });

  it("accept an endpoint under an origin input or with placeholders in its host and path", () => {
    expect(check({ authorizationUrl: "{instance}/oauth/authorize", tokenUrl: "{instance}" })).not.toThrow();
    expect(check({ tokenUrl: "https://{shop_1}.kit.example/{tenant}/{v2}/token" })).not.toThrow();
    // A placeholder standing for the whole host stands for one: the check does not read it as nothing.
    expect(check({ tokenUrl: "https://{domain}" })).not.toThrow();
    // A placeholder is not an origin after the start: there the text is not a URL.
    expect(check({ tokenUrl: "x{instance}/oauth/token" })).toThrow("is not an absolute URL");
  });

  it("refuse a fragment under an origin input, with the toolkit named", () => {
    expect(check({ tokenUrl: "{instance}/oauth/token#x" })).toThrow(
      `Toolkit "kit": OAuth endpoint "{instance}/oauth/token#x" has a fragment (#...), which OAuth endpoints may not have.`,
    );
  });
});
