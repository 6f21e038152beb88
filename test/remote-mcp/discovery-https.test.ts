/**
 * The MCP authorization spec requires every authorization server endpoint to be served over
 * HTTPS, and this package's OAuth endpoints are https but on loopback addresses (tests). An MCP
 * server the deployer named on plain http off loopback may still be used with a static token, but
 * its discovered OAuth is refused: the code, the PKCE verifier, a client secret and the tokens
 * would cross the network in clear.
 */
import { describe, expect, it } from "vitest";
import { createToolsHandler, defineToolkit, issueApiKey, memoryStore } from "../../src/index.js";

const ORIGIN = "http://mcp.plain.example";

/** The MCP server's and its authorization server's answers, on one plain-http origin. */
const plainHttp: typeof fetch = async (input, init) => {
  const url = new URL(input instanceof Request ? input.url : String(input));
  const json = (body: unknown) => new Response(JSON.stringify(body), { headers: { "content-type": "application/json" } });
  if (url.pathname === "/mcp" && (init?.method ?? "GET") === "POST") {
    return new Response(null, {
      status: 401,
      headers: { "www-authenticate": `Bearer resource_metadata="${ORIGIN}/.well-known/oauth-protected-resource/mcp"` },
    });
  }
  if (url.pathname === "/.well-known/oauth-protected-resource/mcp") {
    return json({ resource: `${ORIGIN}/mcp`, authorization_servers: [ORIGIN] });
  }
  if (url.pathname === "/.well-known/oauth-authorization-server") {
    return json({
      issuer: ORIGIN,
      authorization_endpoint: `${ORIGIN}/authorize`,
      token_endpoint: `${ORIGIN}/token`,
      code_challenge_methods_supported: ["S256"],
    });
  }
  return new Response("not found", { status: 404 });
};

describe("a remote MCP server's OAuth on plain http", () => {
  it("is refused off loopback, even on the origin the deployer named", async () => {
    const store = memoryStore();
    const tools = createToolsHandler({
      store,
      secret: "remote-mcp-discovery-https-secret-of-at-least-thirty-two-bytes",
      publicUrl: "https://app.test",
      allowPrivateNetworks: true,
      fetch: plainHttp,
      toolkits: [
        defineToolkit({ slug: "plain", name: "Plain", description: "On plain http.", mcp: `${ORIGIN}/mcp`, clientId: "configured" }),
      ],
    });
    const { key } = await issueApiKey(store, { workspaceId: "w", agentId: "agent" });
    const response = await tools(
      new Request("https://app.test/proxy/tools/auth", {
        method: "POST",
        headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
        body: JSON.stringify({ toolkit: "plain" }),
      }),
    );
    const answer = (await response.json()) as { error?: string };
    expect(response.status, JSON.stringify(answer)).toBe(400);
    expect(answer.error).toMatch(/is not https/);
  });
});
