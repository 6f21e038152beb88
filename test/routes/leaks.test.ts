import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CREDENTIALS, createHarness, type Harness, multipart, TEST_SECRET } from "../support/harness.js";

let h: Harness;

beforeAll(async () => {
  h = await createHarness({ timeouts: { toolMs: 2000, proxyMs: 2000 } });
});
afterAll(async () => {
  h.assertNoLeaks();
  await h.close();
});

describe("no response, header, log line or hook event carries a credential or an API key", () => {
  it("the check itself fails on a leak in a body, a header, a log line or an event", async () => {
    const probe = await createHarness();
    const key = (await probe.issueAgentKey("agent-a")).key;
    expect(probe.secrets()).toEqual(expect.arrayContaining([key, TEST_SECRET, CREDENTIALS.bearerToken, CREDENTIALS.basicPassword]));
    probe.assertNoLeaks();
    const cases: Array<() => void> = [
      () => probe.responses.push({ method: "GET", path: "/x", status: 200, headers: {}, text: `{"k":"${key}"}` }),
      () => probe.responses.push({ method: "GET", path: "/x", status: 200, headers: { "x-token": CREDENTIALS.bearerToken }, text: "" }),
      () => probe.logs.push({ level: "info", message: "ok", fields: { nested: { value: CREDENTIALS.headerKey } } }),
      () => probe.events.push({ event: "tool.executed", payload: { error: CREDENTIALS.basicPassword } }),
    ];
    for (const inject of cases) {
      inject();
      expect(() => probe.assertNoLeaks()).toThrow(/Secrets leaked/);
      probe.responses.length = probe.logs.length = probe.events.length = 0;
    }
    await probe.close();
  });

  it("holds over every route, success and failure, with every kind of credential", async () => {
    const a = await h.issueAgentKey("agent-a");
    const service = await h.issueServiceKey();
    const key = a.key;
    const up = `${h.upstream.origin}/v1`;
    const notes = await h.connect(key, "notes", { token: CREDENTIALS.bearerToken });
    await h.connect(key, "acme", { apiKey: CREDENTIALS.headerKey });
    await h.connect(key, "acmeq", { apiKey: CREDENTIALS.queryKey });
    await h.connect(key, "vault", { username: CREDENTIALS.basicUser, password: CREDENTIALS.basicPassword });
    await h.connect(key, "items", { apiKey: CREDENTIALS.itemsKey });
    const file = (await h.call("POST", "/upload", { key, rawBody: multipart("leak test", "text/plain") })).json.stagingKey;

    const calls: Array<[string, string, Parameters<Harness["call"]>[2]]> = [
      ["GET", "/search?keywords=notes", { key }],
      ["GET", "/toolkit/notes", { key, bearer: true }],
      ["GET", `/toolkit/notes/search?query=echo&connection_id=${notes.id}`, { key }],
      ["GET", "/connections", { key: service.key }],
      ["GET", "/auth/auth_missing", { key }],
      ["GET", "/auth/callback?code=c&state=s", {}],
      ["GET", `/files/${file}`, { key }],
      ["GET", "/openapi.json", {}],
      ["POST", "/auth", { key, body: { toolkit: "notes", credentials: { apiKey: "wrong-shape-secret-1" } } }],
      ["POST", "/auth", { key, body: { toolkit: "mail", credentials: { token: "oauth-toolkit-secret-2" } } }],
      ["POST", "/auth", { key, body: { toolkit: "acme", credentials: { apiKey: "x", extra: "extra-field-secret-3" } } }],
      ["POST", "/execute", { key, body: { tool: "NOTES_LEAKY", arguments: {} } }],
      ["POST", "/execute", { key, body: { tool: "NOTES_LEAKY", arguments: { runError: true } } }],
      ["POST", "/execute", { key, body: { tool: "ACME_PING", arguments: {} } }],
      ["POST", "/execute", { key, body: { tool: "ACMEQ_PING", arguments: {} } }],
      ["POST", "/execute", { key, body: { tool: "VAULT_PING", arguments: {} } }],
      ["POST", "/execute", { key, body: { tool: "ITEMS_STATUS", arguments: { code: "401" } } }],
      ["POST", "/execute", { key, body: { tool: "NOTES_FETCH_FOREIGN", arguments: {} } }],
      ["POST", "/proxy", { key, body: { toolkit: "acmeq", method: "GET", url: `${up}/status/500` } }],
      [
        "POST",
        "/proxy",
        { key, body: { toolkit: "acmeq", method: "GET", url: `${up}/redirect?to=${encodeURIComponent(`${h.foreign.origin}/x`)}` } },
      ],
      ["POST", "/proxy", { key, body: { toolkit: "vault", method: "GET", url: `${up}/headers` } }],
      ["POST", "/proxy", { key, body: { toolkit: "acme", method: "GET", url: `${h.foreign.origin}/v1/echo` } }],
      ["POST", "/proxy", { key, body: { toolkit: "notes", method: "GET", url: `${up}/echo`, headers: { "X-Bad": "a\r\nb" } } }],
      ["POST", "/proxy", { key, body: { toolkit: "notes", method: "POST", url: `${up}/echo`, body: { authorization: "x" } } }],
      ["GET", "/connections", { key: `${key.slice(0, -2)}${key.endsWith("zz") ? "yy" : "zz"}` }],
      ["GET", "/connections", { key: a.key, bearer: true, agentId: "someone-else" }],
      ["DELETE", `/connections/${notes.id}`, { key }],
    ];
    for (const [method, path, options] of calls) {
      const res = await h.call(method, path, options);
      expect(res.status, `${method} ${path}`).toBeLessThan(500);
    }
    await new Promise((resolve) => setTimeout(resolve, 20));

    const routes = new Set(h.responses.map((r) => `${r.method} ${r.path.split("?")[0]!.replace(/\/(conn|stg|auth)_[\w-]+$/, "/:id")}`));
    expect(routes.size).toBeGreaterThanOrEqual(12);
    expect(new Set(h.events.map((e) => e.event))).toEqual(
      new Set(["connection.created", "connection.deleted", "tool.executed", "proxy.requested", "file.staged"]),
    );
    expect(h.logs.filter((l) => l.message === "tool failed").length).toBeGreaterThanOrEqual(3);
    expect(h.secrets()).toEqual(expect.arrayContaining(["wrong-shape-secret-1", "oauth-toolkit-secret-2", "extra-field-secret-3"]));
    h.assertNoLeaks();
  });

  it("stores credentials encrypted: no stored row holds a credential in plain text", async () => {
    const rows = await h.store.listConnections({ workspaceId: "ws1" });
    expect(rows.length).toBeGreaterThanOrEqual(4);
    const dump = JSON.stringify(rows);
    for (const secret of h.secrets()) expect(dump).not.toContain(secret);
    const keys = JSON.stringify(await h.store.listApiKeys("ws1"));
    for (const secret of h.secrets()) expect(keys).not.toContain(secret);
  });
});
