import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CREDENTIALS, createHarness, expectError, type Harness } from "../support/harness.js";

let h: Harness;
let key: string;

beforeAll(async () => {
  h = await createHarness();
  key = (await h.issueAgentKey("agent-a")).key;
});
afterAll(async () => {
  h.assertNoLeaks();
  await h.close();
});

const auth = (body: unknown) => h.call("POST", "/auth", { key, body });

describe("POST /auth with credentials", () => {
  it.each([
    ["acme", { apiKey: CREDENTIALS.headerKey }, "Acme"],
    ["notes", { token: CREDENTIALS.bearerToken }, "Notes"],
    ["vault", { username: CREDENTIALS.basicUser, password: CREDENTIALS.basicPassword }, "Vault"],
  ])("connects %s: 201 with the connection and never the credential", async (toolkit, credentials, label) => {
    const res = await auth({ toolkit, credentials });
    expect(res.status, res.text).toBe(201);
    expect(Object.keys(res.json)).toEqual(["connection"]);
    const connection = res.json.connection;
    expect(Object.keys(connection).sort()).toEqual([
      "agentId",
      "config",
      "createdAt",
      "id",
      "label",
      "remoteUser",
      "status",
      "statusReason",
      "toolkit",
    ]);
    expect(connection).toMatchObject({ toolkit, label, remoteUser: "", status: "active", statusReason: null, config: {} });
    expect(connection.id).toMatch(/^conn_/);
    expect(new Date(connection.createdAt).toISOString()).toBe(connection.createdAt);
    for (const value of Object.values(credentials)) if (value !== CREDENTIALS.basicUser) expect(res.text).not.toContain(value);
    const stored = await h.store.getConnection(connection.id);
    expect(stored!.agentId).toBe("agent-a");
    for (const value of Object.values(credentials)) expect(stored!.credentials).not.toContain(value);
    const event = h.events.find(
      (e) => e.event === "connection.created" && (e.payload as { connectionId: string }).connectionId === connection.id,
    );
    expect(event?.payload).toMatchObject({ toolkit, connectionId: connection.id });
  });

  it("numbers default labels, and keeps a given label and remoteUser", async () => {
    const second = await auth({ toolkit: "notes", credentials: { token: CREDENTIALS.bearerToken2 } });
    expect(second.json.connection.label).toBe("Notes 2");
    const named = await auth({
      toolkit: "notes",
      label: "Work notes",
      remoteUser: "alice@notes.test",
      credentials: { token: CREDENTIALS.bearerToken2 },
    });
    expect(named.json.connection).toMatchObject({ label: "Work notes", remoteUser: "alice@notes.test" });
  });

  it("refuses missing or wrongly shaped credentials with 400", async () => {
    // Without credentials it would be a connect link, which needs publicUrl (test/connect-link/flow.test.ts).
    expectError(
      await auth({ toolkit: "acme" }),
      400,
      "invalid_request",
      /publicUrl is not configured\. Send the credentials in the request/,
    );
    expectError(await auth({ toolkit: "acme", credentials: { token: CREDENTIALS.bearerToken } }), 400, "invalid_request", /apiKey/);
    expectError(await auth({ toolkit: "notes", credentials: { apiKey: CREDENTIALS.headerKey } }), 400, "invalid_request", /"token"/);
    expectError(
      await auth({ toolkit: "vault", credentials: { token: CREDENTIALS.bearerToken } }),
      400,
      "invalid_request",
      /"username".*"password"/,
    );
    expectError(
      await auth({ toolkit: "acme", credentials: { apiKey: "" } }),
      400,
      "invalid_request",
      /credentials\.apiKey \(API key\) is missing/,
    );
    expectError(
      await auth({ toolkit: "acme", credentials: { apiKey: CREDENTIALS.headerKey, extra: "x" } }),
      400,
      "invalid_request",
      /credentials\.extra is not a field of this way to connect \(its fields: apiKey\)/,
    );
    expectError(await auth({ toolkit: "acme", credentials: "flat-string-credential" }), 400, "invalid_request", /body\.credentials/);
    expectError(await auth({ credentials: { apiKey: CREDENTIALS.headerKey } }), 400, "invalid_request", /body\.toolkit/);
  });

  it("answers a clear 400 for credentials sent to an OAuth 2 toolkit, OAuth without publicUrl, and a toolkit without auth", async () => {
    expectError(
      await auth({ toolkit: "mail", credentials: { token: CREDENTIALS.bearerToken } }),
      400,
      "invalid_request",
      /OAuth 2: send no credentials/,
    );
    expectError(await auth({ toolkit: "mail" }), 400, "invalid_request", /publicUrl/);
    expectError(
      await auth({ toolkit: "calc", credentials: { apiKey: CREDENTIALS.headerKey } }),
      400,
      "invalid_request",
      /needs no connection/,
    );
  });

  it("answers 404 for an unknown toolkit", async () => {
    expectError(await auth({ toolkit: "nope", credentials: { apiKey: CREDENTIALS.headerKey } }), 404, "not_found", /nope/);
  });

  it("requires a value for each base URL placeholder, and only those", async () => {
    const credentials = { token: CREDENTIALS.bearerToken };
    expectError(await auth({ toolkit: "tenant", credentials }), 400, "invalid_request", /"config": \{ "tenant"/);
    expectError(
      await auth({ toolkit: "tenant", credentials, config: { tenant: "acme", region: "eu" } }),
      400,
      "invalid_request",
      /config\.region is not an input of toolkit "tenant" \(its inputs: tenant\)/,
    );
    for (const bad of ["a/b", "evil.com", "a.b", "", "-".repeat(64)]) {
      const res = await auth({ toolkit: "tenant", credentials, config: { tenant: bad } });
      expectError(res, 400, "invalid_request", bad === "" ? /needs "config"/ : /config\.tenant is not valid: it must be one DNS label/);
    }
    expectError(await auth({ toolkit: "notes", credentials, config: { tenant: "acme" } }), 400, "invalid_request", /config\.tenant/);
    const ok = await auth({ toolkit: "tenant", credentials, config: { tenant: "acme" } });
    expect(ok.status).toBe(201);
    expect(ok.json.connection.config).toEqual({ tenant: "acme" });
    expect((await h.store.getConnection(ok.json.connection.id))!.params).toEqual({ tenant: "acme" });
    // The name the first release used still works.
    const old = await auth({ toolkit: "tenant", credentials, label: "Old name", params: { tenant: "acme" } });
    expect(old.status).toBe(201);
    expect(old.json.connection.config).toEqual({ tenant: "acme" });
  });
});

describe("GET /connections and DELETE /connections/{id}", () => {
  it("lists the caller's connections oldest first, filtered by toolkit", async () => {
    const all = await h.call("GET", "/connections", { key });
    expect(all.status).toBe(200);
    const listed = all.json.connections as Array<{ id: string; toolkit: string; label: string }>;
    expect(listed.map((c) => c.toolkit).sort()).toEqual(["acme", "notes", "notes", "notes", "tenant", "tenant", "vault"]);
    // Oldest first, and by id within one millisecond: connections made back to back can share one.
    const order = await Promise.all(listed.map(async (c) => [(await h.store.getConnection(c.id))!.createdAt.getTime(), c.id] as const));
    expect(order).toEqual([...order].sort(([at, id], [at2, id2]) => at - at2 || (id < id2 ? -1 : id > id2 ? 1 : 0)));
    const notes = await h.call("GET", "/connections?toolkit=notes", { key });
    const labels = notes.json.connections.map((c: { label: string }) => c.label);
    expect(labels).toEqual(listed.filter((c) => c.toolkit === "notes").map((c) => c.label));
    expect([...labels].sort()).toEqual(["Notes", "Notes 2", "Work notes"]);
    expect((await h.call("GET", "/connections?toolkit=nope", { key })).json.connections).toEqual([]);
    for (const value of [CREDENTIALS.headerKey, CREDENTIALS.bearerToken, CREDENTIALS.basicPassword]) expect(all.text).not.toContain(value);
  });

  it("deletes with 204 and no body, then answers 404; the connection cannot be used any more", async () => {
    const id = (await h.call("GET", "/connections?toolkit=vault", { key })).json.connections[0].id;
    const res = await h.call("DELETE", `/connections/${id}`, { key });
    expect(res.status).toBe(204);
    expect(res.text).toBe("");
    expect(await h.store.getConnection(id)).toBeNull();
    expect(h.events.some((e) => e.event === "connection.deleted" && (e.payload as { connectionId: string }).connectionId === id)).toBe(
      true,
    );
    expectError(await h.call("DELETE", `/connections/${id}`, { key }), 404, "not_found", new RegExp(id));
    expectError(
      await h.call("POST", "/execute", { key, body: { tool: "VAULT_PING", arguments: {}, connection_id: id } }),
      404,
      "not_found",
    );
    expectError(await h.call("DELETE", "/connections/conn_never", { key }), 404, "not_found");
  });
});

describe("authorizations", () => {
  it("GET /auth/{id} answers 404 for an unknown authorization", async () => {
    expectError(await h.call("GET", "/auth/auth_unknown", { key }), 404, "not_found", /auth_unknown/);
    expectError(await h.call("GET", "/auth/auth_unknown"), 401, "unauthorized");
  });

  it("GET /auth/callback needs no key and fails with 400", async () => {
    expectError(await h.call("GET", "/auth/callback?code=abc&state=xyz"), 400, "invalid_request", /invalid, expired or already used/);
    expectError(await h.call("GET", "/auth/callback"), 400, "invalid_request");
    expect(await h.store.listConnections({ workspaceId: "ws1", toolkit: "mail" })).toEqual([]);
  });
});
