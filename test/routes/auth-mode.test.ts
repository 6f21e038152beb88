/**
 * `POST /auth` with credentials and no `mode`, for a toolkit with several ways to connect: the
 * credentials' kind picks the mode (`{ token }` a bearer mode, even where a basic mode comes
 * first, as Bitbucket's do), so that `tools-proxy auth bitbucket --token T` and a client sending
 * only `{ token }` connect as the toolkit page says.
 */
import { describe, expect, it } from "vitest";
import { apiKey, basic, bearer, createToolsHandler, defineToolkit, issueApiKey, memoryStore, oauth2 } from "../../src/index.js";

const toolkit = defineToolkit({
  slug: "forge",
  name: "Forge",
  description: "A code host with OAuth, an app password and an access token.",
  baseUrl: "https://forge.test",
  auth: [
    oauth2({ authorizationUrl: "https://forge.test/authorize", tokenUrl: "https://forge.test/token", clientId: "" }),
    basic(),
    bearer(),
    apiKey({ in: "header", name: "x-forge-key" }),
  ],
  tools: [],
});

async function connect(credentials: Record<string, string>, mode?: string) {
  const store = memoryStore();
  const tools = createToolsHandler({ store, secret: "a-secret-of-at-least-thirty-two-bytes-for-auth-mode", toolkits: [toolkit] });
  const { key } = await issueApiKey(store, { workspaceId: "ws", agentId: "agent" });
  const response = await tools(
    new Request("http://localhost/proxy/tools/auth", {
      method: "POST",
      headers: { "x-api-key": key, "content-type": "application/json" },
      body: JSON.stringify({ toolkit: "forge", credentials, ...(mode ? { mode } : {}) }),
    }),
  );
  const body = (await response.json()) as { connection?: { id: string }; error?: string };
  return { status: response.status, body };
}

describe("POST /auth: the credentials' kind chooses the mode", () => {
  it.each([
    [{ token: "forge-token" }, 201],
    [{ username: "alice", password: "app-password" }, 201],
    [{ apiKey: "forge-key" }, 201],
  ])("%o connects", async (credentials, status) => {
    const result = await connect(credentials);
    expect(result.status, JSON.stringify(result.body)).toBe(status);
  });

  it("a mode asked for still wins, and says what to send when the credentials do not fit it", async () => {
    const result = await connect({ token: "forge-token" }, "basic");
    expect(result.status).toBe(400);
    expect(result.body.error).toBe(
      'Toolkit "forge" connects with mode "basic" here: credentials.token is not a field of this way to connect (its fields: username, password). ' +
        'Send "credentials": { "username": "...", "password": "..." }.',
    );
  });
});
