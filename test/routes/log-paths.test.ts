/**
 * The handler's `logger` names a request by its routed path with a connect link's secret left
 * out, however the path spells the token: the router decodes its parameters, so
 * `/connect/auth%5Fx.SECRET` opens the same page as `/connect/auth_x.SECRET`.
 */
import { describe, expect, it } from "vitest";
import { loggablePath } from "../../src/core/http.js";
import { createToolsHandler, type Logger, memoryStore, type ToolsStore } from "../../src/index.js";

const ID = "auth_Q2xpZW50SWQ";
const SECRET = "s3cr3tS3cr3tS3cr3tS3cr3tS3cr3tS3cr3tS3cr3tA"; // 43 characters, as a link's state

/** A memory store whose authorization reads fail as a bug would: the handler logs the request. */
function brokenAuthorizations(): ToolsStore {
  return new Proxy(memoryStore(), {
    get(target, name, receiver) {
      if (name === "getAuthorization") return () => Promise.reject(new Error("store broke"));
      return Reflect.get(target, name, receiver);
    },
  });
}

describe("log paths", () => {
  it.each([
    `/connect/${ID}.${SECRET}`,
    `/connect/${ID.replace("_", "%5F")}.${SECRET}`,
    `/connect/%61${ID.slice(1)}.${SECRET}`,
    `/connect/%41UTH${ID.slice(4)}.${SECRET}`,
    `/connect/${ID}%2E${SECRET}`,
    `/connect/${ID}%2e${SECRET}`,
    `/x/${ID}.${SECRET}/y`,
  ])("%s is logged without the secret", (path) => {
    const logged = loggablePath(path);
    expect(logged).not.toContain(SECRET);
    expect(logged).toMatch(/auth_Q2xpZW50SWQ\.\*\*\*|AUTH_Q2xpZW50SWQ\.\*\*\*/i);
  });

  it("leaves other paths as they are", () => {
    for (const path of ["/proxy/tools/auth/auth_x", "/proxy/tools/connections/conn_1", "/files/stg_abc.txt", "/auth%2Fx.y"])
      expect(loggablePath(path)).toBe(path);
  });

  it("a failing connect page is logged by its routed path, masked, for every spelling of the token", async () => {
    const logs: Array<{ message: string; fields?: Record<string, unknown> }> = [];
    const logger: Logger = { error: (message, fields) => void logs.push({ message, ...(fields ? { fields } : {}) }) };
    const tools = createToolsHandler({ store: brokenAuthorizations(), logger, secret: "x".repeat(32) });
    const spellings = [
      `/proxy/tools/connect/./${ID}.${SECRET}`,
      `/proxy/tools/connect/x/../${ID}.${SECRET}`,
      `/proxy/tools/connect/${ID.replace("_", "%5F")}.${SECRET}`,
      `/proxy/tools/connect/${ID}%2E${SECRET}`,
    ];
    for (const path of spellings) expect((await tools(new Request(`http://tools.test${path}`))).status).toBe(500);
    expect(logs.map((line) => line.message)).toEqual(spellings.map(() => "request failed"));
    expect(JSON.stringify(logs)).not.toContain(SECRET);
    expect(logs.map((line) => line.fields?.path)).toEqual(spellings.map(() => `/proxy/tools/connect/${ID}.***`));
    await tools.close();
  });
});
