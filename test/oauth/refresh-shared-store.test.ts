/**
 * A token refresh is shared by every request that needs it meanwhile, so it must not run on the
 * store view of the request that started it (whose reads stop when that client goes away): it
 * runs on the handler's own store. Checked by counting which store each call goes to.
 */
import { describe, expect, it } from "vitest";
import { createCredentialCipher } from "../../src/credentials/cipher.js";
import { sealCredential } from "../../src/credentials/sealing.js";
import { createToolsHandler, defineJsonToolkit, issueApiKey, type ToolsStore } from "../../src/index.js";
import { memoryStore } from "../../src/store/memory.js";

const SECRET = `refresh-shared-secret-${crypto.randomUUID()}`;

/** Counts the calls made through `store`, by method. */
function counting(store: ToolsStore, calls: Record<string, number>): ToolsStore {
  return new Proxy(store, {
    get(target, name, receiver) {
      const value = Reflect.get(target, name, receiver);
      if (typeof value !== "function" || name === "withSignal") return value;
      return (...args: unknown[]) => {
        calls[String(name)] = (calls[String(name)] ?? 0) + 1;
        return value.apply(target, args);
      };
    },
  });
}

describe("an OAuth refresh runs on the handler's store, not on the request's view", () => {
  it("the request's view only authenticates and finds the connection; the refresh reads and saves through the shared store", async () => {
    const base = memoryStore();
    const shared: Record<string, number> = {};
    const view: Record<string, number> = {};
    const store = Object.assign(counting(base, shared), { withSignal: () => counting(base, view) });
    let refreshes = 0;
    const tools = createToolsHandler({
      store,
      secret: SECRET,
      toolkits: [
        defineJsonToolkit({
          slug: "acme",
          name: "Acme",
          description: "An OAuth API.",
          baseUrl: "https://api.acme.test",
          auth: {
            type: "oauth2",
            authorizationUrl: "https://acme.test/authorize",
            tokenUrl: "https://acme.test/token",
            clientId: "c",
            clientSecret: "s",
          },
          tools: [{ slug: "ACME_ME", name: "Me", description: "Reads me.", method: "GET", path: "/me" }],
        }),
      ],
      fetch: async (input) => {
        const url = new URL(input instanceof Request ? input.url : String(input));
        if (url.pathname === "/token") {
          refreshes++;
          return Response.json({ access_token: `fresh-${refreshes}`, token_type: "Bearer", expires_in: 3600 });
        }
        return Response.json({ me: "alice" });
      },
    });
    const { key } = await issueApiKey(base, { workspaceId: "ws", agentId: "agent" });
    const id = `conn_${crypto.randomUUID()}`;
    const now = new Date();
    await base.createConnection({
      id,
      workspaceId: "ws",
      agentId: "agent",
      toolkit: "acme",
      label: "work",
      remoteUser: "alice",
      status: "active",
      statusReason: null,
      credentials: await sealCredential({ cipher: createCredentialCipher(SECRET) }, id, {
        type: "oauth2",
        accessToken: "stale",
        refreshToken: "refresh",
        tokenType: "Bearer",
      }),
      scopes: [],
      params: {},
      credentialsExpireAt: new Date(Date.now() - 1000),
      createdAt: now,
      updatedAt: now,
      version: 1,
    });

    const response = await tools(
      new Request("http://tools.test/proxy/tools/execute", {
        method: "POST",
        headers: { "x-api-key": key, "content-type": "application/json" },
        body: JSON.stringify({ tool: "ACME_ME", arguments: {}, connection_id: id }),
      }),
    );
    expect(await response.json()).toMatchObject({ successful: true, data: { me: "alice" } });
    expect(refreshes).toBe(1);
    expect(view, "the request's view: its key and its connection, nothing of the refresh").toEqual({
      getApiKeyByHash: 1,
      getConnection: 1,
    });
    expect(shared.updateConnection, "the refreshed token is saved through the handler's store").toBe(1);
    expect(shared.getConnection, "the refresh reads the connection through the handler's store").toBeGreaterThanOrEqual(1);
  });
});
