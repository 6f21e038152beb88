/**
 * Deleting OAuth connections the provider cannot or need not be asked about: a toolkit no longer
 * served, a toolkit without a revocation endpoint, a connection whose provider never gave a refresh
 * token. Each is deleted with a 204, revokes exactly what it holds, and logs no failure.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sealCredential } from "../../src/credentials/sealing.js";
import { memoryStore } from "../../src/index.js";
import { CALLBACK_URL, createOAuthHarness, notesToolkit, type OAuthHarness } from "../support/oauth-harness.js";
import { type OidcServer, startOidcServer } from "../support/oidc-server.js";

let as: OidcServer;
let h: OAuthHarness;
let key: string;

beforeAll(async () => {
  as = await startOidcServer({ redirectUris: [CALLBACK_URL] });
  h = await createOAuthHarness({
    as,
    store: memoryStore(),
    toolkits: [notesToolkit(as), notesToolkit(as, { slug: "notes-norevoke", prefix: "NOREVOKE", auth: { revocationUrl: undefined } })],
  });
  key = await h.issueAgentKey("agent-r");
});
afterAll(async () => {
  h.assertNoLeaks();
  expect(as.serverErrors).toEqual([]);
  await as.close();
});

const warnings = (logs: OAuthHarness["logs"], from: number) => logs.slice(from).filter((l) => l.level !== "debug" && l.level !== "info");

describe("DELETE /connections/{id} of an OAuth connection", () => {
  it("whose toolkit is no longer served: 204, nothing sent to the provider, no warning", async () => {
    const { connectionId } = await h.connect(key);
    const credential = await h.credentialOf(connectionId);
    // The same store, served by a handler that no longer has the toolkit.
    const later = await createOAuthHarness({ as, store: h.store, toolkits: [notesToolkit(as, { slug: "other", prefix: "OTHER" })] });
    const mark = as.revocations.length;

    const res = await later.call("DELETE", `/connections/${connectionId}`, { key });
    expect(res.status, res.text).toBe(204);
    expect(await h.store.getConnection(connectionId)).toBeNull();
    expect(as.revocations.slice(mark)).toEqual([]);
    expect(warnings(later.logs, 0)).toEqual([]);
    expect(await as.isAccessTokenActive(credential.accessToken)).toBe(true);
    later.assertNoLeaks();
  });

  it("of a toolkit without a revocation endpoint: 204, nothing sent, no warning", async () => {
    const { connectionId } = await h.connect(key, { toolkit: "notes-norevoke" });
    const mark = as.revocations.length;
    const logMark = h.logs.length;
    expect((await h.call("DELETE", `/connections/${connectionId}`, { key })).status).toBe(204);
    expect(as.revocations.slice(mark)).toEqual([]);
    expect(warnings(h.logs, logMark)).toEqual([]);
  });

  it("without a refresh token (the provider gave none): the access token alone is revoked, and no warning", async () => {
    const { connectionId } = await h.connect(key);
    const { refreshToken: _dropped, ...credential } = await h.credentialOf(connectionId);
    const stored = (await h.store.getConnection(connectionId))!;
    await h.store.updateConnection(
      connectionId,
      { updatedAt: new Date(), credentials: await sealCredential(h, connectionId, credential) },
      stored.version,
    );
    const mark = as.revocations.length;
    const logMark = h.logs.length;

    expect((await h.call("DELETE", `/connections/${connectionId}`, { key })).status).toBe(204);
    expect(as.revocations.slice(mark).map((r) => [r.token, r.status])).toEqual([[credential.accessToken, 200]]);
    expect(await as.isAccessTokenActive(credential.accessToken)).toBe(false);
    expect(warnings(h.logs, logMark)).toEqual([]);
  });
});
