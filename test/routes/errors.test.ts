import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ERROR_STATUS, type LimitsHook, memoryStore, StoreUnavailableError, type ToolsStore } from "../../src/index.js";
import { BASE, CREDENTIALS, createHarness, expectError, type Harness, multipart } from "../support/harness.js";

/** A memory store whose every method fails while `mode` says so. */
function switchableStore() {
  const inner = memoryStore();
  const state = { mode: "ok" as "ok" | "unavailable" | "broken", leak: "" };
  const store = new Proxy(inner, {
    get(target, name, receiver) {
      const value = Reflect.get(target, name, receiver);
      if (typeof value !== "function") return value;
      return (...args: unknown[]) => {
        if (state.mode === "unavailable") throw new StoreUnavailableError();
        if (state.mode === "broken")
          throw new Error(`connect ECONNREFUSED postgres://admin:hunter2@db.internal:5432 while reading ${state.leak}`);
        return (value as (...a: unknown[]) => unknown).apply(target, args);
      };
    },
  }) as ToolsStore;
  return { store, state };
}

const limitCalls: Array<{ route: string; agentId: string | null }> = [];
const limits: LimitsHook = ({ principal, route }) => {
  limitCalls.push({ route, agentId: principal.agentId });
  if (principal.agentId === "busy") return { allow: false, reason: "rate_limited", retryAfterSeconds: 30 };
  if (principal.agentId === "broke") return { allow: false, reason: "insufficient_credits" };
  return { allow: true };
};

let h: Harness;
let key: string;
const switchable = switchableStore();

beforeAll(async () => {
  h = await createHarness({ store: switchable.store, limits, uploads: { maxBytes: 1024, allowedContentTypes: ["text/*", "image/png"] } });
  key = (await h.issueAgentKey("agent-a")).key;
});
afterAll(async () => {
  h.assertNoLeaks();
  await h.close();
});

describe("every code of the error table", () => {
  it("the table is the contract's, plus 405 for a known path with another method and the passthrough's two 502s and its 504", () => {
    expect(ERROR_STATUS).toEqual({
      invalid_request: 400,
      unauthorized: 401,
      insufficient_credits: 402,
      not_found: 404,
      method_not_allowed: 405,
      connection_required: 409,
      connection_ambiguous: 409,
      payload_too_large: 413,
      unsupported_media_type: 415,
      rate_limited: 429,
      internal: 500,
      upstream_unreachable: 502,
      upstream_redirect: 502,
      unavailable: 503,
      upstream_timeout: 504,
    });
  });

  it("400 invalid_request: malformed JSON, a wrong body, bad percent-encoding", async () => {
    expectError(
      await h.call("POST", "/execute", { key, rawBody: '{"tool": "CALC_ADD",', headers: { "content-type": "application/json" } }),
      400,
      "invalid_request",
      /not valid JSON/,
    );
    expectError(
      await h.call("POST", "/execute", { key, rawBody: "", headers: { "content-type": "application/json" } }),
      400,
      "invalid_request",
      /not valid JSON/,
    );
    expectError(await h.call("POST", "/execute", { key, body: ["CALC_ADD"] }), 400, "invalid_request", /Invalid body/);
    expectError(await h.call("GET", "/toolkit/%E0%A4%A", { key }), 400, "invalid_request", /percent-encoding/);
  });

  it("400 invalid_request when a middleware read the body before the handler (not a 500)", async () => {
    const request = new Request(`${BASE}/proxy/tools/execute`, {
      method: "POST",
      headers: { "x-api-key": key, "content-type": "application/json" },
      body: JSON.stringify({ tool: "CALC_ADD", arguments: { a: 1, b: 1 } }),
    });
    await request.text(); // what a body parser mounted first does
    const response = await h.handler(request);
    expect(response.status).toBe(400);
    expect(await response.json()).toEqual({
      code: "invalid_request",
      error: expect.stringMatching(/read before it reached the Tools API handler/),
    });
  });

  it("401 unauthorized", async () => {
    expectError(await h.call("POST", "/execute", { body: { tool: "CALC_ADD", arguments: { a: 1, b: 1 } } }), 401, "unauthorized");
  });

  it("402 insufficient_credits and 429 rate_limited (with Retry-After) from the limits hook", async () => {
    const broke = (await h.issueAgentKey("broke")).key;
    const busy = (await h.issueAgentKey("busy")).key;
    const poor = await h.call("POST", "/execute", { key: broke, body: { tool: "CALC_ADD", arguments: { a: 1, b: 1 } } });
    expectError(poor, 402, "insufficient_credits", /credits/);
    const limited = await h.call("GET", "/search", { key: busy });
    expectError(limited, 429, "rate_limited", /Retry-After/);
    expect(limited.headers.get("retry-after")).toBe("30");
    expect(limitCalls.slice(-2)).toEqual([
      { route: "POST /execute", agentId: "broke" },
      { route: "GET /search", agentId: "busy" },
    ]);
    expect(h.events.filter((e) => e.event === "tool.executed")).toEqual([]);
    const calls = limitCalls.length;
    expect((await h.call("GET", "/openapi.json")).status).toBe(200);
    expect(limitCalls.length).toBe(calls);
  });

  it("404 not_found: an unknown route, a path outside basePath", async () => {
    expectError(await h.call("GET", "/nope", { key }), 404, "not_found", /No route GET \/proxy\/tools\/nope.*openapi\.json/);
    expectError(await h.call("GET", "http://tools.test/other/search", { key }), 404, "not_found");
  });

  it("405 method_not_allowed with Allow: a known path with another method", async () => {
    const post = await h.call("POST", "/search", { key });
    expectError(post, 405, "method_not_allowed", /POST is not a method of \/proxy\/tools\/search; it answers GET, HEAD, OPTIONS/);
    expect(post.headers.get("allow")).toBe("GET, HEAD, OPTIONS");
    expect((await h.call("PUT", "/execute", { key })).headers.get("allow")).toBe("POST, OPTIONS");
    expect((await h.call("POST", "/connections/conn_x", { key })).headers.get("allow")).toBe("DELETE, OPTIONS");
    expect((await h.call("POST", "/auth/callback", {})).headers.get("allow")).toBe("GET, HEAD, OPTIONS");
  });

  it("409 connection_required and connection_ambiguous", async () => {
    expectError(await h.call("POST", "/execute", { key, body: { tool: "NOTES_ECHO", arguments: {} } }), 409, "connection_required");
    await h.connect(key, "notes", { token: CREDENTIALS.bearerToken });
    await h.connect(key, "notes", { token: CREDENTIALS.bearerToken2 });
    expectError(
      await h.call("POST", "/execute", { key, body: { tool: "NOTES_ECHO", arguments: {} } }),
      409,
      "connection_ambiguous",
      /Notes 2/,
    );
  });

  it("413 payload_too_large: a JSON body over 1 MiB, a file over uploads.maxBytes", async () => {
    const big = JSON.stringify({ tool: "CALC_ADD", arguments: { a: 1, b: 2, pad: "x".repeat(1024 * 1024) } });
    expectError(
      await h.call("POST", "/execute", { key, rawBody: big, headers: { "content-type": "application/json" } }),
      413,
      "payload_too_large",
      /1048576 bytes/,
    );
    expectError(
      await h.call("POST", "/upload", { key, rawBody: multipart("x".repeat(2048), "text/plain") }),
      413,
      "payload_too_large",
      /1024 bytes/,
    );
    expect((await h.call("POST", "/upload", { key, rawBody: multipart("x".repeat(1024), "text/plain") })).status).toBe(200);
  });

  it("415 unsupported_media_type: a non-JSON body on a JSON route, a file type not allowed", async () => {
    const body = JSON.stringify({ tool: "CALC_ADD", arguments: { a: 1, b: 2 } });
    expectError(
      await h.call("POST", "/execute", { key, rawBody: body, headers: { "content-type": "text/plain" } }),
      415,
      "unsupported_media_type",
      /application\/json/,
    );
    expectError(await h.call("POST", "/proxy", { key, rawBody: body }), 415, "unsupported_media_type");
    expectError(
      await h.call("POST", "/upload", { key, rawBody: multipart("MZ", "application/x-msdownload", "a.exe") }),
      415,
      "unsupported_media_type",
      /application\/x-msdownload/,
    );
  });

  it("400 for an upload that is not multipart or has no file part", async () => {
    expectError(await h.call("POST", "/upload", { key, body: { file: "x" } }), 400, "invalid_request", /multipart/);
    expectError(
      await h.call("POST", "/upload", { key, rawBody: multipart("x", "text/plain", "a.txt", "other") }),
      400,
      "invalid_request",
      /part named `file`/,
    );
  });

  it("503 unavailable with Retry-After when the store is down", async () => {
    switchable.state.mode = "unavailable";
    try {
      const res = await h.call("GET", "/connections", { key });
      expectError(res, 503, "unavailable", /retry/i);
      expect(res.headers.get("retry-after")).toBe("5");
    } finally {
      switchable.state.mode = "ok";
    }
  });

  it("500 internal for an unknown failure: generic, no stack, no internal message", async () => {
    switchable.state.mode = "broken";
    switchable.state.leak = key;
    const before = h.logs.length;
    try {
      const res = await h.call("GET", "/connections", { key });
      expectError(res, 500, "internal");
      expect(res.json.error).toBe("The server failed to handle this request. Retry later, and contact the operator if it persists.");
      for (const fragment of ["hunter2", "postgres", "ECONNREFUSED", "db.internal", " at ", ".ts:"])
        expect(res.text).not.toContain(fragment);
    } finally {
      switchable.state.mode = "ok";
    }
    const logged = h.logs.slice(before).find((l) => l.message === "request failed");
    expect(logged?.level).toBe("error");
    expect(JSON.stringify(logged?.fields)).toContain("ECONNREFUSED");
    expect(JSON.stringify(logged?.fields)).toContain("[redacted]");
    expect(JSON.stringify(logged?.fields)).not.toContain(key);
    expect(JSON.stringify(logged?.fields)).toContain("postgres://admin:[redacted]@db.internal");
    h.addSecret("hunter2");
  });
});

describe("hooks", () => {
  it("a hook that throws never fails the request, and is logged", async () => {
    const failing = await createHarness({
      hooks: {
        "connection.created": () => {
          throw new Error("hook broke");
        },
      },
    });
    const agent = (await failing.issueAgentKey("agent-a")).key;
    const res = await failing.call("POST", "/auth", {
      key: agent,
      body: { toolkit: "notes", credentials: { token: CREDENTIALS.bearerToken } },
    });
    expect(res.status).toBe(201);
    await new Promise((resolve) => setTimeout(resolve, 10));
    expect(failing.logs.some((l) => l.level === "warn" && l.message === "hook connection.created failed")).toBe(true);
    failing.assertNoLeaks();
    await failing.close();
  });
});
