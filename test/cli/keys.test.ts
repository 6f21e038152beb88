/**
 * `keys create`, `keys list` and `keys revoke` through the built bin, on a real data dir shared
 * with a running `serve`: ids to revoke by, no key ever printed but by create, and a revoked key
 * refused (401) by the running server at once.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { callApi, missingBuild, runBin, type ServeProcess, startServe } from "../support/serve-process.js";

const KEY_ID = /key_[A-Za-z0-9_-]{22}/;

describe.skipIf(missingBuild)(missingBuild ? `keys (skipped: ${missingBuild})` : "keys create, list and revoke", () => {
  const dir = mkdtempSync(join(tmpdir(), "tools-proxy-keys-"));
  const dataDir = join(dir, "data");
  let serve: ServeProcess;
  beforeAll(async () => {
    serve = await startServe(["--data-dir", dataDir]);
  });
  afterAll(async () => {
    await serve?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it("serve's banner names the id of the key it prints", () => {
    expect(serve.stdout()).toMatch(new RegExp(`^agent key ${KEY_ID.source} for workspace "local", agent "agent" \\(printed once`, "m"));
  });

  it("keys create prints the key alone on stdout and its id on stderr; --json prints one object", () => {
    const agent = runBin(["keys", "create", "--workspace", "acme", "--agent", "bot", "--data-dir", dataDir]);
    expect(agent.status, agent.stderr).toBe(0);
    expect(agent.stdout).toMatch(/^pak_[A-Za-z0-9_-]{43}\n$/);
    const id = KEY_ID.exec(agent.stderr)![0];
    expect(agent.stderr).toBe(
      `tools-proxy: agent key ${id} for workspace "acme", agent "bot" (printed once; only its hash is stored; revoke it with "tools-proxy keys revoke ${id}"):\n`,
    );

    const service = runBin(["keys", "create", "--workspace", "acme", "--service", "--json", "--data-dir", dataDir]);
    expect(service.status, service.stderr).toBe(0);
    const created = JSON.parse(service.stdout);
    expect(created).toEqual({
      key: expect.stringMatching(/^psk_/),
      id: expect.stringMatching(KEY_ID),
      kind: "service",
      workspace: "acme",
      agent: null,
      hint: `psk_…${created.key.slice(-4)}`,
      createdAt: expect.any(String),
      revokedAt: null,
    });
    expect(service.stderr).toContain(`service key ${created.id} for workspace "acme"`);
  });

  it("keys list shows every workspace's keys as a table or JSON, never a key", () => {
    const made = runBin(["keys", "create", "--workspace", "listed", "--agent", "a1", "--data-dir", dataDir]);
    const key = made.stdout.trim();
    const id = KEY_ID.exec(made.stderr)![0];
    const table = runBin(["keys", "list", "--data-dir", dataDir]);
    expect(table.status, table.stderr).toBe(0);
    const [header, ...rows] = table.stdout.trimEnd().split("\n");
    expect(header).toMatch(/^ID +KIND +WORKSPACE +AGENT +HINT +CREATED +REVOKED$/);
    expect(rows.find((row) => row.startsWith(id))).toMatch(
      new RegExp(`^${id} +agent +listed +a1 +pak_…${key.slice(-4)} +\\d{4}-\\d\\d-\\d\\dT\\S+Z +-$`),
    );
    expect(rows.map((row) => row.split(/ +/)[2])).toEqual(expect.arrayContaining(["local", "acme", "listed"]));

    const json = JSON.parse(runBin(["keys", "list", "--workspace", "listed", "--json", "--data-dir", dataDir]).stdout);
    expect(json).toEqual({
      keys: [
        {
          id,
          kind: "agent",
          workspace: "listed",
          agent: "a1",
          hint: `pak_…${key.slice(-4)}`,
          createdAt: expect.any(String),
          revokedAt: null,
        },
      ],
    });
    for (const output of [table.stdout, table.stderr]) expect(output).not.toContain(key);
  });

  it("keys revoke: the running server refuses the key once its API key cache lets go (401, within 5 s); twice is not an error; an unknown id exits 4", async () => {
    const made = runBin(["keys", "create", "--workspace", "local", "--agent", "agent", "--data-dir", dataDir]);
    const key = made.stdout.trim();
    const id = KEY_ID.exec(made.stderr)![0];
    expect((await callApi(serve.api, key, "/connections")).status).toBe(200);

    const revoked = runBin(["keys", "revoke", id, "--data-dir", dataDir]);
    expect(revoked.status, revoked.stderr).toBe(0);
    expect(revoked.stderr).toBe(`Revoked agent key ${id} (workspace "local", agent "agent").\n`);
    // Another process revoked it: the server's API key cache (5 s) keeps it until then, no longer.
    let refused = await callApi(serve.api, key, "/connections");
    for (const deadline = Date.now() + 30_000; refused.status === 200 && Date.now() < deadline; ) {
      await new Promise((resolve) => setTimeout(resolve, 200));
      refused = await callApi(serve.api, key, "/connections");
    }
    expect(refused.status).toBe(401);
    expect(await refused.json()).toMatchObject({ code: "unauthorized" });
    expect((await callApi(serve.api, serve.key!, "/connections")).status).toBe(200); // the other keys still work

    const again = runBin(["keys", "revoke", id, "--data-dir", dataDir]);
    expect(again.status).toBe(0);
    expect(again.stderr).toMatch(new RegExp(`^The agent key ${id} \\(workspace "local", agent "agent"\\) was already revoked, at \\d{4}-`));
    const listed = JSON.parse(runBin(["keys", "list", "--workspace", "local", "--json", "--data-dir", dataDir]).stdout);
    expect(listed.keys.find((k: { id: string }) => k.id === id).revokedAt).toEqual(expect.any(String));

    const unknown = runBin(["keys", "revoke", "key_doesnotexist000000000", "--data-dir", dataDir]);
    expect(unknown.status).toBe(4);
    expect(unknown.stderr).toBe(
      'tools-proxy: there is no API key "key_doesnotexist000000000" in this data; list them with "tools-proxy keys list" (with the same storage options).\n',
    );
  }, 60_000);

  it("keys with no command, or an unknown one, is a usage error naming the three", () => {
    for (const args of [["keys"], ["keys", "delete"]]) {
      const result = runBin(args);
      expect(result.status).toBe(2);
      expect(result.stderr).toContain('"keys create", "keys list" and "keys revoke"');
    }
  });
});
