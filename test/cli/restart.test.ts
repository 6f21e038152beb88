/**
 * Restart: connections, keys and staged files survive `serve` being stopped and started on the
 * same --data-dir, and `keys create` works against it, running or not.
 */
import { mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { sqlStore } from "../../src/store/sql/store.js";
import { bufferedFormRequest } from "../support/form-body.js";
import { callApi, missingBuild, runBin, type ServeProcess, startServe } from "../support/serve-process.js";

describe.skipIf(missingBuild)(missingBuild ? `serve restart (skipped: ${missingBuild})` : "serve restart with --data-dir", () => {
  const dir = mkdtempSync(join(tmpdir(), "tools-proxy-restart-"));
  const dataDir = join(dir, "data");
  const running: ServeProcess[] = [];
  const start = async () => {
    const serve = await startServe(["--data-dir", dataDir]);
    running.push(serve);
    return serve;
  };
  afterAll(async () => {
    await Promise.all(running.map((serve) => serve.kill()));
    rmSync(dir, { recursive: true, force: true });
  });

  const fileText = "persisted words survive a restart\n";
  let key = "";
  let connectionId = "";
  let stagingKey = "";

  it("first start: creates the data (private), prints a key, connects, stages a file", async () => {
    const serve = await start();
    expect(serve.key).toMatch(/^pak_/);
    key = serve.key!;
    expect(statSync(dataDir).mode & 0o777).toBe(0o700);
    expect(statSync(join(dataDir, "secret")).mode & 0o777).toBe(0o600);
    expect(statSync(join(dataDir, "tools-proxy.db")).mode & 0o777).toBe(0o600);

    const auth = await callApi(serve.api, key, "/auth", { toolkit: "demo", credentials: { apiKey: "demo-key" } });
    expect(auth.status).toBe(201);
    connectionId = (await auth.json()).connection.id;

    const form = new FormData();
    form.append("file", new Blob([fileText], { type: "text/plain" }), "kept.txt");
    const upload = await fetch(await bufferedFormRequest(`${serve.api}/upload`, form, { "x-api-key": key }));
    expect(upload.status).toBe(200);
    stagingKey = (await upload.json()).stagingKey;

    expect(await serve.stop()).toBe(0);
  });

  it("while stopped: keys create adds a key to the same data, and the database holds the connection", async () => {
    const created = runBin(["keys", "create", "--workspace", "local", "--agent", "second", "--data-dir", dataDir]);
    expect(created.status, created.stderr).toBe(0);
    expect(created.stdout).toMatch(/^pak_[A-Za-z0-9_-]{43}\n$/);
    expect(created.stderr).toContain('agent "second"');

    // Read the SQLite file directly, not through serve: the rows are there, the credential sealed.
    const store = sqlStore({ url: `sqlite:${join(dataDir, "tools-proxy.db")}` });
    try {
      const connection = await store.getConnection(connectionId);
      expect(connection).toMatchObject({ toolkit: "demo", agentId: "agent", workspaceId: "local", status: "active" });
      expect(connection!.credentials).not.toContain("demo-key");
      expect((await store.listApiKeys("local")).map((k) => k.agentId).sort()).toEqual(["agent", "second"]);
    } finally {
      await store.close();
    }
  });

  it("second start: no new key; the old key, the connection and the staged file all work", async () => {
    const serve = await start();
    expect(serve.key).toBeNull();
    expect(serve.stdout()).toContain("the data already has one");

    const list = await (await callApi(serve.api, key, "/connections")).json();
    expect(list.connections.map((c: { id: string }) => c.id)).toEqual([connectionId]);
    const file = await callApi(serve.api, key, `/files/${stagingKey}`);
    expect(file.status).toBe(200);
    expect(await file.text()).toBe(fileText);
    // The stored credential still decrypts (same generated secret): the tool calls the demo API with it.
    const counted = await (await callApi(serve.api, key, "/execute", { tool: "DEMO_WORD_COUNT", arguments: { file: stagingKey } })).json();
    expect(counted).toMatchObject({ successful: true, data: { filename: "kept.txt", words: 5 } });
    const notes = await (
      await callApi(serve.api, key, "/execute", { tool: "DEMO_CREATE_NOTE", arguments: { text: "after restart" } })
    ).json();
    expect(notes).toMatchObject({ successful: true });
  });

  it("keys create against the running server's data: the new key works at once", async () => {
    const serve = running.at(-1)!;
    const created = runBin(["keys", "create", "--workspace", "local", "--agent", "third", "--data-dir", dataDir]);
    expect(created.status, created.stderr).toBe(0);
    const third = created.stdout.trim();
    const response = await callApi(serve.api, third, "/connections");
    expect(response.status).toBe(200);
    expect((await response.json()).connections).toEqual([]); // another agent: none of "agent"'s connections
    expect(await serve.stop()).toBe(0);
    expect(serve.stderr()).not.toContain(key);
  });
});
