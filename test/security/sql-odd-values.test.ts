/**
 * Odd values from requests (NUL and other control characters, unicode, very long or differently
 * cased ids) reaching a real SQL store through the handler: every answer is a 4xx in the error
 * format or a success, never a 500, and nothing is logged as a failure. PostgreSQL refuses NUL in
 * text outright, so there a NUL used to surface as a driver error, i.e. a 500.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bearer, createToolsHandler, defineToolkit, issueApiKey, oauth2, type ToolsHandler } from "../../src/index.js";
import { type SqlToolsStore, sqlStore } from "../../src/store/sql/store.js";
import { dropTables, randomPrefix, type SqlTarget, skipSuite, TARGETS, unavailableReason } from "../support/sql-servers.js";

const BASE = "http://app.test/proxy/tools";

const toolkits = [
  defineToolkit({
    slug: "kit",
    name: "Kit",
    description: "A bearer toolkit.",
    auth: bearer(),
    baseUrl: "https://api.example.com",
    tools: [],
  }),
  defineToolkit({
    slug: "idp",
    name: "Idp",
    description: "An OAuth toolkit.",
    auth: oauth2({
      authorizationUrl: "https://idp.example/authorize",
      tokenUrl: "https://idp.example/token",
      clientId: "client",
      clientSecret: "client-secret",
    }),
    baseUrl: "https://api.example.com",
    tools: [],
  }),
];

for (const target of Object.values(TARGETS) as SqlTarget[]) {
  const reason = await unavailableReason(target);
  if (reason) {
    skipSuite(`odd values through the handler on ${target.name}`, reason);
    continue;
  }

  describe(`odd values through the handler on ${target.name}`, () => {
    const tablePrefix = randomPrefix("o");
    let store: SqlToolsStore;
    let tools: ToolsHandler;
    let key: string;
    const failures: unknown[] = [];

    beforeAll(async () => {
      store = sqlStore({ url: target.url, tablePrefix });
      await store.migrate();
      tools = createToolsHandler({
        store,
        secret: "s".repeat(32),
        toolkits,
        publicUrl: "http://app.test",
        logger: { error: (message, fields) => failures.push({ message, fields }) },
      });
      key = (await issueApiKey(store, { workspaceId: "ws", agentId: "agent" })).key;
    });
    afterAll(async () => {
      await tools.close();
      if (target.dialect !== "sqlite") await dropTables(store.db, tablePrefix);
      await store.close();
    });

    const call = (path: string, init: { method?: string; body?: unknown } = {}) =>
      tools(
        new Request(`${BASE}${path}`, {
          method: init.method ?? "GET",
          headers: { "x-api-key": key, "content-type": "application/json" },
          ...(init.body !== undefined ? { body: JSON.stringify(init.body) } : {}),
        }),
      );

    /** Asserts an answer in the error format with one of `statuses`. */
    async function expectRefusal(response: Response, statuses: number[]) {
      const text = await response.text();
      expect(statuses, `${response.status} ${text}`).toContain(response.status);
      expect(Object.keys(JSON.parse(text)).sort()).toEqual(["code", "error"]);
    }

    it("answers ids holding NUL, control characters, unicode or another case with 404, never 500", async () => {
      const connection = await call("/auth", { method: "POST", body: { toolkit: "kit", credentials: { token: "tok-odd-values" } } });
      expect(connection.status).toBe(201);
      const { id } = ((await connection.json()) as { connection: { id: string } }).connection;
      const odd = [
        "a%00b",
        "%00",
        "%1B%5B2J",
        "%F0%9F%98%80",
        "%EF%BF%BF",
        encodeURIComponent("é".repeat(128)),
        id.toUpperCase(),
        `${id}%00`,
        `${id}%20`,
      ];
      for (const value of odd) {
        await expectRefusal(await call(`/auth/${value}`), [404]);
        await expectRefusal(await call(`/connections/${value}`, { method: "DELETE" }), [404]);
      }
      for (const toolkit of ["%00", "x%00y", "%1B"]) {
        const list = await call(`/connections?toolkit=${toolkit}`);
        expect(list.status).toBe(200);
        expect(await list.json()).toEqual({ connections: [] });
      }
      // The connection is still there, found by its exact id only.
      expect(((await (await call("/connections")).json()) as { connections: Array<{ id: string }> }).connections.map((c) => c.id)).toEqual([
        id,
      ]);
    });

    it("refuses a label, remote user or return URL holding control characters with 400, never 500", async () => {
      const bodies = [
        { toolkit: "kit", label: "a\u0000b", credentials: { token: "tok-odd-values" } },
        { toolkit: "kit", label: "\u001b[2Jowned", credentials: { token: "tok-odd-values" } },
        { toolkit: "kit", remoteUser: "\u0000", credentials: { token: "tok-odd-values" } },
        { toolkit: "idp", label: "x\u0000" },
        { toolkit: "idp", returnUrl: "http://app.test/done\u0000" },
      ];
      for (const body of bodies) await expectRefusal(await call("/auth", { method: "POST", body }), [400]);
    });

    it("keeps unicode labels and a long remote user as sent", async () => {
      const label = "Ünïcödé 😀 label";
      const response = await call("/auth", {
        method: "POST",
        body: { toolkit: "kit", label, remoteUser: "u".repeat(256), credentials: { token: "tok-odd-values" } },
      });
      expect(response.status).toBe(201);
      const { connection } = (await response.json()) as { connection: { id: string } };
      expect(await store.getConnection(connection.id)).toMatchObject({ label, remoteUser: "u".repeat(256) });
    });

    it("ends an OAuth flow whose provider error holds NUL or markup as a failed authorization, never 500", async () => {
      const started = await call("/auth", { method: "POST", body: { toolkit: "idp" } });
      expect(started.status).toBe(200);
      const { authorizationId, authorizationUrl } = (await started.json()) as { authorizationId: string; authorizationUrl: string };
      const state = new URL(authorizationUrl).searchParams.get("state")!;
      const callback = await tools(
        new Request(`${BASE}/auth/callback?state=${state}&error=bad%00%1B%5B2J%3Cscript%3E`, { headers: { accept: "text/html" } }),
      );
      expect(callback.status).toBe(400);
      const page = await callback.text();
      expect(page).not.toMatch(/[\u0000-\u0008\u001b]|<script>/);
      const status = (await (await call(`/auth/${authorizationId}`)).json()) as { status: string; error: string };
      expect(status.status).toBe("failed");
      expect(status.error).not.toMatch(/[\u0000-\u001f]/);
    });

    it("logged no failure", () => {
      expect(failures).toEqual([]);
    });
  });
}
