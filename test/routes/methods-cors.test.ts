/**
 * HTTP methods beyond each route's own: HEAD on GET routes, OPTIONS, 405 with Allow; and the
 * `cors` option for browser clients on other origins (off by default).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createToolsHandler } from "../../src/index.js";
import { createHarness, expectError, type Harness, multipart } from "../support/harness.js";

let h: Harness;
let key: string;

beforeAll(async () => {
  h = await createHarness();
  key = (await h.issueAgentKey("agent-m")).key;
});
afterAll(async () => {
  h.assertNoLeaks();
  await h.close();
});

describe("HEAD", () => {
  it("answers a GET route's status and headers without a body", async () => {
    const get = await h.call("GET", "/openapi.json");
    const head = await h.call("HEAD", "/openapi.json");
    expect(head.status).toBe(200);
    expect(head.bytes.length).toBe(0);
    expect(head.headers.get("content-type")).toBe(get.headers.get("content-type"));
    expect(head.headers.get("content-length")).toBe(get.headers.get("content-length"));
  });

  it("authenticates like GET, and a staged file's HEAD gives its size without sending it", async () => {
    expectError(await h.call("GET", "/search"), 401, "unauthorized");
    expect((await h.call("HEAD", "/search")).status).toBe(401);
    const staged = (await h.call("POST", "/upload", { key, rawBody: multipart("twelve bytes", "text/plain") })).json;
    const head = await h.call("HEAD", `/files/${staged.stagingKey}`, { key });
    expect(head.status).toBe(200);
    expect(head.headers.get("content-length")).toBe("12");
    expect(head.bytes.length).toBe(0);
  });
});

describe("OPTIONS and 405", () => {
  it("OPTIONS on a known path answers 204 with Allow, without a key", async () => {
    const res = await h.call("OPTIONS", "/toolkit/notes");
    expect(res.status).toBe(204);
    expect(res.headers.get("allow")).toBe("GET, HEAD, OPTIONS");
    expect((await h.call("OPTIONS", "/connections/conn_1")).headers.get("allow")).toBe("DELETE, OPTIONS");
    expectError(await h.call("OPTIONS", "/nope"), 404, "not_found");
  });

  it("without the cors option, no Access-Control header is ever sent", async () => {
    const preflight = await h.call("OPTIONS", "/search", {
      headers: { origin: "https://app.test", "access-control-request-method": "GET" },
    });
    const get = await h.call("GET", "/search", { key, headers: { origin: "https://app.test" } });
    for (const res of [preflight, get]) expect([...res.headers.keys()].filter((name) => name.startsWith("access-control-"))).toEqual([]);
  });
});

describe("the cors option", () => {
  let c: Harness;
  let ckey: string;
  beforeAll(async () => {
    c = await createHarness({ cors: { origins: ["https://app.test", "http://localhost:3000"], maxAgeSeconds: 120 } });
    ckey = (await c.issueAgentKey("agent-c")).key;
  });
  afterAll(async () => {
    c.assertNoLeaks();
    await c.close();
  });

  const preflight = (origin: string, path = "/execute", method = "POST", headers = "x-api-key, content-type") =>
    c.call("OPTIONS", path, { headers: { origin, "access-control-request-method": method, "access-control-request-headers": headers } });

  it("a preflight from an allowed origin gets the path's methods, the requested headers and a max age", async () => {
    const res = await preflight("https://app.test");
    expect(res.status).toBe(204);
    expect(Object.fromEntries([...res.headers].filter(([name]) => name.startsWith("access-control-")))).toEqual({
      "access-control-allow-origin": "https://app.test",
      "access-control-allow-methods": "POST, OPTIONS",
      "access-control-allow-headers": "x-api-key, content-type",
      "access-control-max-age": "120",
    });
    expect(res.headers.get("vary")).toMatch(/Origin/);
  });

  it("a preflight from another origin gets no permission, and one with malformed header names none for them", async () => {
    const other = await preflight("https://evil.test");
    expect(other.status).toBe(204);
    expect(other.headers.get("access-control-allow-origin")).toBeNull();
    const odd = await preflight("https://app.test", "/execute", "POST", "x-api-key, bad name");
    expect(odd.headers.get("access-control-allow-headers")).toBeNull();
  });

  it("answers, errors included, carry the origin and the readable headers; other origins get none", async () => {
    const ok = await c.call("GET", "/search", { key: ckey, headers: { origin: "http://localhost:3000" } });
    expect(ok.headers.get("access-control-allow-origin")).toBe("http://localhost:3000");
    expect(ok.headers.get("access-control-expose-headers")).toMatch(/Retry-After/);
    expect(ok.headers.get("vary")).toMatch(/Origin/);
    const denied = await c.call("GET", "/search", { headers: { origin: "https://app.test" } });
    expect(denied.status).toBe(401);
    expect(denied.headers.get("access-control-allow-origin")).toBe("https://app.test");
    expect(
      (await c.call("GET", "/search", { key: ckey, headers: { origin: "https://evil.test" } })).headers.get("access-control-allow-origin"),
    ).toBeNull();
    expect((await c.call("GET", "/search", { key: ckey })).headers.get("access-control-allow-origin")).toBeNull();
  });

  it("a redirect (immutable headers) gets them too", async () => {
    const res = await c.call("GET", "/auth/callback?code=x&state=unknown", {
      headers: { origin: "https://app.test", accept: "application/json" },
    });
    expect(res.headers.get("access-control-allow-origin")).toBe("https://app.test");
  });

  it('origins "*" allows any origin, without Vary', async () => {
    const any = createToolsHandler({ cors: { origins: "*" } });
    const res = await any(new Request("http://x.test/proxy/tools/openapi.json", { headers: { origin: "https://whoever.test" } }));
    expect(res.headers.get("access-control-allow-origin")).toBe("*");
    expect(res.headers.get("vary")).toBeNull();
  });

  it("a wrong option is refused at startup, naming it", () => {
    expect(() => createToolsHandler({ cors: { origins: ["https://app.test/path"] } })).toThrow(/option "cors\.origins\.0" must be origins/);
    expect(() => createToolsHandler({ cors: { origins: ["not a url"] } })).toThrow(/cors\.origins/);
    expect(() => createToolsHandler({ cors: { origins: [], extra: 1 } as never })).toThrow(/unknown option "cors\.extra"/);
  });
});
