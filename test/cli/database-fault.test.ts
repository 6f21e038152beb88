/**
 * Fault: the database of a running `serve` stops mid-run. Requests get 503 `unavailable` with
 * Retry-After, the process stays up, nothing is written or sent; when the database is back, the
 * same process serves again. The database is a private PostgreSQL the test starts and stops.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type PrivatePostgres, privatePostgresUnavailable, startPrivatePostgres } from "../support/private-postgres.js";
import { callApi, missingBuild, type ServeProcess, startServe } from "../support/serve-process.js";

const reason = missingBuild ?? privatePostgresUnavailable();
const SECRET = `fault-secret-${Math.random().toString(36).slice(2)}-0123456789abcdef`;

describe.skipIf(reason)(reason ? `database fault (skipped: ${reason})` : "serve when its database stops and comes back", () => {
  let pg: PrivatePostgres;
  let serve: ServeProcess;
  let dir: string;
  let key: string;
  let connectionId: string;

  beforeAll(async () => {
    pg = await startPrivatePostgres();
    dir = mkdtempSync(join(tmpdir(), "tools-proxy-fault-"));
    serve = await startServe(["--data-dir", dir], { TOOLS_PROXY_SECRET: SECRET, TOOLS_PROXY_DATABASE_URL: pg.url });
    key = serve.key!;
  }, 60_000);

  afterAll(async () => {
    await serve?.kill();
    pg?.destroy();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it("works while the database is up", async () => {
    const auth = await callApi(serve.api, key, "/auth", { toolkit: "demo", credentials: { apiKey: "demo-key" } });
    expect(auth.status).toBe(201);
    connectionId = (await auth.json()).connection.id;
    const note = await (await callApi(serve.api, key, "/execute", { tool: "DEMO_CREATE_NOTE", arguments: { text: "before" } })).json();
    expect(note).toMatchObject({ successful: true });
  });

  it("answers 503 unavailable with Retry-After while it is down, and stays up", async () => {
    pg.stop();
    const calls = [
      callApi(serve.api, key, "/connections"),
      callApi(serve.api, key, "/execute", { tool: "DEMO_CREATE_NOTE", arguments: { text: "during the outage" } }),
      callApi(serve.api, key, "/auth", { toolkit: "demo", credentials: { apiKey: "demo-key" } }),
      callApi(serve.api, key, `/connections/${connectionId}`, undefined, { method: "DELETE" }),
    ];
    for (const response of await Promise.all(calls)) {
      expect(response.status).toBe(503);
      expect(Number(response.headers.get("retry-after"))).toBeGreaterThan(0);
      const body = await response.json();
      expect(body).toMatchObject({ code: "unavailable" });
      expect(body.error).toMatch(/retry/i);
    }
    expect(serve.child.exitCode).toBeNull();
    expect(serve.stderr()).not.toContain(SECRET);
    expect(serve.stderr()).not.toContain(key);
  });

  it("serves again once the database is back, without a restart; nothing from the outage was done", async () => {
    pg.start();
    let status = 0;
    for (let attempt = 0; attempt < 50 && status !== 200; attempt++) {
      status = (await callApi(serve.api, key, "/connections")).status;
      if (status !== 200) await new Promise((resolve) => setTimeout(resolve, 200));
    }
    expect(status).toBe(200);
    const list = await (await callApi(serve.api, key, "/connections")).json();
    expect(list.connections.map((c: { id: string }) => c.id)).toEqual([connectionId]); // not deleted, no second one
    const notes = await (await callApi(serve.api, key, "/execute", { tool: "DEMO_LIST_NOTES", arguments: {} })).json();
    expect(notes.data.notes.map((n: { text: string }) => n.text)).toEqual(["before"]);
    expect(serve.child.exitCode).toBeNull();
  });
});
