/**
 * The pure parts of a remote MCP server's discovery: the parameters of a `WWW-Authenticate`
 * challenge, the well-known URLs tried in order, and the origins the deployer named.
 */
import { describe, expect, it } from "vitest";
import { applyDiscovered, trustedOrigins } from "../../src/oauth/discovered-mode.js";
import { challengeParameter, wellKnownUrls } from "../../src/remote-mcp/discovery.js";
import { mcpOAuthMode } from "../../src/toolkits/remote.js";

describe("challengeParameter", () => {
  it("reads a quoted or bare parameter of a Bearer challenge, wherever it stands", () => {
    const header =
      'Bearer error="invalid_token", resource_metadata="https://mcp.example.com/.well-known/oauth-protected-resource/mcp", scope="a b"';
    expect(challengeParameter(header, "resource_metadata")).toBe("https://mcp.example.com/.well-known/oauth-protected-resource/mcp");
    expect(challengeParameter(header, "scope")).toBe("a b");
    expect(challengeParameter("Bearer resource_metadata=https://x.example/m", "resource_metadata")).toBe("https://x.example/m");
    expect(challengeParameter('Bearer realm="say \\"hi\\""', "realm")).toBe('say "hi"');
  });

  it("does not take a parameter whose name only ends with the one asked for", () => {
    expect(challengeParameter('Bearer not_resource_metadata="https://evil.example/"', "resource_metadata")).toBeUndefined();
    expect(challengeParameter("", "resource_metadata")).toBeUndefined();
  });
});

describe("wellKnownUrls", () => {
  it("inserts the path after the well-known segment, then tries the root (RFC 9728, RFC 8414)", () => {
    expect(wellKnownUrls(new URL("https://mcp.example.com/v1/mcp/"), "oauth-protected-resource", false)).toEqual([
      "https://mcp.example.com/.well-known/oauth-protected-resource/v1/mcp",
      "https://mcp.example.com/.well-known/oauth-protected-resource",
    ]);
    expect(wellKnownUrls(new URL("https://auth.example.com"), "oauth-authorization-server", false)).toEqual([
      "https://auth.example.com/.well-known/oauth-authorization-server",
    ]);
  });

  it("for OpenID discovery, inserts the path, then appends the well-known segment to it", () => {
    expect(wellKnownUrls(new URL("https://auth.example.com/tenant1"), "openid-configuration", true)).toEqual([
      "https://auth.example.com/.well-known/openid-configuration/tenant1",
      "https://auth.example.com/tenant1/.well-known/openid-configuration",
    ]);
  });
});

describe("the origins a remote MCP toolkit names", () => {
  const mode = mcpOAuthMode("https://mcp.example.com/mcp", { authorizationServers: ["https://auth.example.com/tenant", "not a url"] });
  const saved = {
    resource: "https://mcp.example.com/mcp",
    issuer: "https://auth.example.com/tenant",
    authorizationUrl: "https://auth.example.com/authorize",
    tokenUrl: "https://auth.example.com/token",
    clientId: "client",
    scopes: ["mcp"],
  };

  it("are the server's origin and the listed ones' origins", () => {
    expect([...trustedOrigins(mode.discovery!)]).toEqual(["https://mcp.example.com", "https://auth.example.com"]);
  });

  it("a discovered mode sends the resource on the authorization, token and refresh requests", () => {
    const scheme = applyDiscovered(mode, saved);
    for (const params of [scheme.authorizationParams, scheme.tokenParams, scheme.refreshParams]) {
      expect(params).toEqual({ resource: "https://mcp.example.com/mcp" });
    }
    expect(scheme).toMatchObject({ tokenUrl: saved.tokenUrl, issuer: saved.issuer, clientId: "client", scopes: ["mcp"], pkce: true });
  });
});
