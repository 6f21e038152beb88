/**
 * The scopes a connection keeps from the token answer of the code exchange: split on spaces, and
 * also on commas for a provider that joins scopes with a comma (`scopeSeparator: ","`, as Slack
 * and Zoom answer). The sign-in goes through the OIDC fixture; the token endpoint is a small
 * server that answers the scope as such a provider writes it (RFC 6749 5.1 names `scope`).
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CALLBACK_URL, createOAuthHarness, listConnections, notesToolkit, type OAuthHarness } from "../support/oauth-harness.js";
import { type OidcServer, startOidcServer } from "../support/oidc-server.js";

const SCOPE = "notes:read,notes:write files:read";
let as: OidcServer;
let h: OAuthHarness;
let tokens: Server;
let key: string;

beforeAll(async () => {
  as = await startOidcServer({ redirectUris: [CALLBACK_URL] });
  tokens = createServer((req, res) => {
    req.resume();
    req.on("end", () => {
      res.writeHead(200, { "content-type": "application/json" });
      res.end(JSON.stringify({ access_token: `tok-${Math.random().toString(36).slice(2)}`, token_type: "bearer", scope: SCOPE }));
    });
  });
  await new Promise<void>((resolve) => tokens.listen(0, "127.0.0.1", resolve));
  const tokenUrl = `http://127.0.0.1:${(tokens.address() as AddressInfo).port}/token`;
  const auth = { tokenUrl, scopes: ["notes:read"], userInfoUrl: undefined };
  h = await createOAuthHarness({
    as,
    toolkits: [
      notesToolkit(as, { slug: "notes-comma", prefix: "COMMA", auth: { ...auth, scopeSeparator: "," } }),
      notesToolkit(as, { slug: "notes-space", prefix: "SPACE", auth }),
    ],
  });
  key = await h.issueAgentKey("agent-scopes");
});
afterAll(async () => {
  await as?.close();
  await new Promise((resolve) => tokens?.close(resolve));
});

describe("the scopes of the token answer", () => {
  it("are split on commas and spaces for a comma-separated provider, on spaces only otherwise", async () => {
    for (const toolkit of ["notes-comma", "notes-space"]) {
      const started = await h.startAuth(key, { toolkit });
      const res = await h.callback(await as.authorizeWithFetch(started.authorizationUrl));
      expect(res.status, JSON.stringify(res.json)).toBe(200);
    }
    const connections = await listConnections(h, key);
    const scopesOf = async (toolkit: string) => (await h.store.getConnection(connections.find((c) => c.toolkit === toolkit)!.id))?.scopes;
    expect(await scopesOf("notes-comma")).toEqual(["notes:read", "notes:write", "files:read"]);
    expect(await scopesOf("notes-space")).toEqual(["notes:read,notes:write", "files:read"]);
  });
});
