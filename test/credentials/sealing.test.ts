/**
 * Credentials at rest, as the store and the caller see them: a connection's row holds its
 * credential encrypted and bound to the row, and a row that cannot be opened stops the call with
 * an error that names the connection, and a log line, before anything is sent.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createCredentialCipher } from "../../src/credentials/cipher.js";
import { CREDENTIALS, createHarness, expectError, type Harness, TEST_SECRET } from "../support/harness.js";

let h: Harness;
let key: string;

beforeAll(async () => {
  h = await createHarness();
  key = (await h.issueAgentKey("agent-sealing")).key;
});
afterAll(async () => {
  h.assertNoLeaks();
  await h.close();
});

describe("sealed credentials", () => {
  it("stores the credential as JSON encrypted for its own row, and nowhere in clear", async () => {
    const connection = await h.connect(key, "notes", { token: CREDENTIALS.bearerToken });
    const row = (await h.store.getConnection(connection.id))!;
    expect(row.credentials).toMatch(/^v1\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]{16}\.[A-Za-z0-9_-]+$/);
    expect(JSON.stringify(row)).not.toContain(CREDENTIALS.bearerToken);
    const cipher = createCredentialCipher(TEST_SECRET);
    expect(JSON.parse(await cipher.decrypt(row.credentials, connection.id))).toEqual({ type: "bearer", token: CREDENTIALS.bearerToken });
    await expect(cipher.decrypt(row.credentials, `${connection.id}x`)).rejects.toThrow();
  });

  it("refuses to use a credential moved from another row: a 500 naming the connection, an error log line, nothing sent", async () => {
    const first = await h.connect(key, "notes", { token: CREDENTIALS.bearerToken });
    const second = await h.connect(key, "notes", { token: CREDENTIALS.bearerToken2 });
    const moved = (await h.store.getConnection(first.id))!.credentials;
    expect(await h.store.updateConnection(second.id, { credentials: moved, updatedAt: new Date() })).not.toBeNull();
    const sent = h.upstream.requests.length;
    const logged = h.logs.length;

    const res = await h.call("POST", "/execute", { key, body: { tool: "NOTES_ECHO", arguments: {}, connection_id: second.id } });
    expectError(res, 500, "internal");
    expect(res.json.error).toBe(
      `The credential of connection "${second.id}" cannot be read (was the secret changed?). Reconnect it with POST /auth, or restore the previous secret.`,
    );
    expect(h.upstream.requests).toHaveLength(sent);
    const lines = h.logs.slice(logged).filter((line) => line.message === "credential could not be decrypted");
    expect(lines).toHaveLength(1);
    expect(lines[0]!.level).toBe("error");
    expect(lines[0]!.fields).toMatchObject({ connectionId: second.id });
  });
});
