/**
 * DELETE /connections/{id} on an OAuth connection: revokes its tokens at the provider (RFC 7009)
 * when the toolkit has a revocation endpoint, and deletes the connection locally in every case.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  CALLBACK_URL,
  createOAuthHarness,
  listConnections,
  notesToolkit,
  type OAuthHarness,
  tokenCalls,
} from "../support/oauth-harness.js";
import { type OidcServer, startOidcServer } from "../support/oidc-server.js";

let as: OidcServer;
let h: OAuthHarness;
let key: string;
let other: string;
/** A revocation endpoint that answers 400 and quotes the token it was sent in its error. */
let echoing: Server;
let echoingUrl: string;
/** An address where nothing listens. */
let closedUrl: string;

async function listen(server: Server): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

beforeAll(async () => {
  as = await startOidcServer({ redirectUris: [CALLBACK_URL] });
  echoing = createServer((req, res) => {
    let body = "";
    req.on("data", (chunk) => (body += chunk));
    req.on("end", () => {
      const token = new URLSearchParams(body).get("token");
      res
        .writeHead(400, { "content-type": "application/json" })
        .end(JSON.stringify({ error: "invalid_request", error_description: `cannot revoke ${token}` }));
    });
  });
  echoingUrl = `${await listen(echoing)}/revoke`;
  const closed = createServer();
  closedUrl = `${await listen(closed)}/revoke`;
  await new Promise((resolve) => closed.close(resolve));

  h = await createOAuthHarness({
    as,
    toolkits: [
      notesToolkit(as),
      notesToolkit(as, { slug: "notes-down", prefix: "DOWN", auth: { revocationUrl: closedUrl } }),
      notesToolkit(as, { slug: "notes-echo", prefix: "ECHO", auth: { revocationUrl: echoingUrl } }),
      notesToolkit(as, { slug: "notes-norevoke", prefix: "NOREVOKE", auth: { revocationUrl: undefined } }),
    ],
  });
  key = await h.issueAgentKey("agent-a");
  other = await h.issueAgentKey("agent-b");
});
afterAll(async () => {
  h.assertNoLeaks();
  expect(as.serverErrors).toEqual([]);
  await new Promise((resolve) => echoing.close(resolve));
  await as.close();
});

const remove = (id: string, k = key) => h.call("DELETE", `/connections/${id}`, { key: k });

/** Whether the provider still accepts this refresh token (a refresh attempt that, if it works, rotates it). */
async function refreshWorks(refreshToken: string): Promise<boolean> {
  const response = await fetch(as.endpoints.token, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded", authorization: `Basic ${btoa(`${as.clientId}:${as.clientSecret}`)}` },
    body: new URLSearchParams({ grant_type: "refresh_token", refresh_token: refreshToken }),
  });
  const body = (await response.json()) as Record<string, string>;
  for (const name of ["access_token", "refresh_token", "id_token"]) if (body[name]) h.addSecret(body[name]);
  return response.ok;
}

async function connect(toolkit: string) {
  const { connectionId } = await h.connect(key, { toolkit });
  return { connectionId, credential: await h.credentialOf(connectionId) };
}

describe("DELETE /connections/{id} of an OAuth connection", () => {
  it("revokes the refresh and access tokens at the provider, then deletes it: 204", async () => {
    const { connectionId, credential } = await connect("notes");
    expect(await as.isAccessTokenActive(credential.accessToken)).toBe(true);
    const mark = as.revocations.length;

    const res = await remove(connectionId);
    expect(res.status).toBe(204);
    expect(res.text).toBe("");
    expect(as.revocations.slice(mark).map((r) => [r.token, r.status, r.authMethod])).toEqual([
      [credential.refreshToken, 200, "client_secret_basic"],
      [credential.accessToken, 200, "client_secret_basic"],
    ]);
    expect(await as.isAccessTokenActive(credential.accessToken)).toBe(false);
    const tokenMark = as.tokenRequests.length;
    expect(await refreshWorks(credential.refreshToken!)).toBe(false);
    expect(tokenCalls(as, tokenMark)).toEqual([["refresh_token", 400]]);

    expect(await h.store.getConnection(connectionId)).toBeNull();
    expect((await listConnections(h, key)).map((c) => c.id)).not.toContain(connectionId);
    expect(await h.eventsOf("connection.deleted")).toContainEqual(expect.objectContaining({ connectionId, toolkit: "notes" }));
    expect((await remove(connectionId)).status).toBe(404);
    expect((await h.call("POST", "/execute", { key, body: { tool: "NOTES_ME", connection_id: connectionId } })).json.code).toBe(
      "not_found",
    );
  });

  it.each([
    ["is unreachable", "notes-down"],
    ["answers an error that quotes the token", "notes-echo"],
  ])("deletes it locally when the revocation endpoint %s, and logs a warning without the token", async (_how, toolkit) => {
    const { connectionId, credential } = await connect(toolkit);
    const logMark = h.logs.length;
    const res = await remove(connectionId);
    expect(res.status).toBe(204);
    expect(await h.store.getConnection(connectionId)).toBeNull();
    const warnings = h.logs.slice(logMark).filter((l) => l.level === "warn");
    expect(warnings).toEqual([expect.objectContaining({ message: expect.stringMatching(/revocation failed.*deleted locally/) })]);
    expect(JSON.stringify(warnings)).toContain(connectionId);
    for (const token of [credential.accessToken, credential.refreshToken!]) expect(JSON.stringify(warnings)).not.toContain(token);
    // Not revoked anywhere, so the tokens still work at the provider (the test cleans up after itself).
    expect(await as.isAccessTokenActive(credential.accessToken)).toBe(true);
  });

  it("deletes without contacting the provider when the toolkit has no revocation endpoint", async () => {
    const { connectionId, credential } = await connect("notes-norevoke");
    const mark = as.revocations.length;
    expect((await remove(connectionId)).status).toBe(204);
    expect(as.revocations.slice(mark)).toEqual([]);
    expect(await h.store.getConnection(connectionId)).toBeNull();
    expect(await as.isAccessTokenActive(credential.accessToken)).toBe(true);
  });

  it("another agent's connection is a 404, and nothing is revoked", async () => {
    const { connectionId, credential } = await connect("notes");
    const mark = as.revocations.length;
    expect((await remove(connectionId, other)).status).toBe(404);
    expect(as.revocations.slice(mark)).toEqual([]);
    expect(await as.isAccessTokenActive(credential.accessToken)).toBe(true);
    expect(await h.store.getConnection(connectionId)).not.toBeNull();
  });
});
