import { describe, expect, it } from "vitest";
import type { AuthScheme, Credential } from "../../src/credentials/auth-schemes.js";
import { buildUpstreamHeaders, credentialHeaders, placesInQuery } from "../../src/outbound/headers.js";
import { defineJsonToolkit } from "../../src/toolkits/json.js";

/** Values placed beside a token: the token keeps its place, the values go with it, and callers cannot replace either. */

const developerToken = { name: "developerToken", env: "DEV", value: "dev-1" };
const serviceAccount = {
  type: "jwtBearer",
  signer: "serviceAccount",
  tokenUrl: "https://oauth2.googleapis.com/token",
  values: [developerToken],
  placements: [{ in: "header", name: "developer-token", value: "{developerToken}" }],
} as AuthScheme;
const granted = { type: "jwtBearer", secrets: {}, accessToken: "ya29.granted" } as Credential;

describe("placements beside a token", () => {
  it("send a token grant's token and the deployer's value, over what the caller sent", () => {
    const headers = buildUpstreamHeaders({ "developer-token": "guess", authorization: "Bearer guess" }, serviceAccount, granted);
    expect(headers.get("authorization")).toBe("Bearer ya29.granted");
    expect(headers.get("developer-token")).toBe("dev-1");
    expect(credentialHeaders(serviceAccount)).toEqual(["authorization", "developer-token"]);
  });

  it("keep an OAuth token's own placement, and a query placement counts as a query credential", () => {
    const scheme = {
      type: "oauth2",
      authorizationUrl: "https://a.test/authorize",
      tokenUrl: "https://a.test/token",
      clientId: "cid",
      scopes: [],
      placement: { in: "header", name: "X-Token", prefix: "" },
      placements: [{ in: "query", name: "client", value: "{clientId}" }],
    } as AuthScheme;
    const headers = buildUpstreamHeaders({}, scheme, { type: "oauth2", accessToken: "at-1" });
    expect(headers.get("x-token")).toBe("at-1");
    expect(headers.get("authorization")).toBeNull();
    expect(placesInQuery(scheme)).toBe(true);
    expect(credentialHeaders(scheme)).toEqual(["x-token"]);
  });

  it("are refused in a JSON toolkit where they would replace the token or name what is not a value", () => {
    const toolkit = (placements: unknown[]) =>
      defineJsonToolkit(
        {
          slug: "acme",
          name: "Acme",
          description: "Acme.",
          baseUrl: "https://api.acme.test",
          auth: {
            type: "oauth2",
            authorizationUrl: "https://auth.acme.test/authorize",
            tokenUrl: "https://auth.acme.test/token",
            clientId: "cid",
            placements,
          },
          tools: [],
        },
        { env: {} },
      );
    expect(() => toolkit([{ in: "header", name: "Authorization", value: "{clientId}" }])).toThrow(/is where the token goes/);
    expect(() => toolkit([{ in: "header", name: "X", value: "{accessToken}" }])).toThrow(/neither \{clientId\} nor a deployer value/);
    expect(() => toolkit([{ in: "path", name: "x", value: "{clientId}" }])).toThrow(/auth\.placements/);
    expect(toolkit([{ in: "header", name: "Client-Id", value: "{clientId}" }]).slug).toBe("acme");
  });
});
