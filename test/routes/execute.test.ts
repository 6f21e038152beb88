import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CREDENTIALS, createHarness, expectError, type Harness, multipart } from "../support/harness.js";

let h: Harness;
let slow: Harness;
let key: string;

const execute = (body: unknown, as = key, harness = h) => harness.call("POST", "/execute", { key: as, body });

beforeAll(async () => {
  h = await createHarness();
  slow = await createHarness({ timeouts: { toolMs: 150 } });
  key = (await h.issueAgentKey("agent-a")).key;
});
afterAll(async () => {
  h.assertNoLeaks();
  slow.assertNoLeaks();
  await Promise.all([h.close(), slow.close()]);
});

describe("POST /execute: the request", () => {
  it("runs a tool and answers the ExecutionResult", async () => {
    const res = await execute({ tool: "CALC_ADD", arguments: { a: 2, b: 3 } });
    expect(res.status).toBe(200);
    expect(res.json).toEqual({ data: { sum: 5 }, error: null, successful: true });
    expect(h.events.at(-1)).toMatchObject({
      event: "tool.executed",
      payload: { tool: "CALC_ADD", toolkit: "calc", connectionId: null, successful: true },
    });
  });

  it("refuses invalid arguments with 400 naming each failing field", async () => {
    const res = await execute({ tool: "CALC_ADD", arguments: { a: "two", label: "far too long" } });
    expectError(res, 400, "invalid_request", /arguments\.a/);
    expect(res.json.error).toMatch(/arguments\.b/);
    expect(res.json.error).toMatch(/arguments\.label/);
    expectError(await execute({ tool: "CALC_ADD" }), 400, "invalid_request", /arguments\.a.*arguments\.b/);
    expectError(await execute({ tool: "CALC_ADD", arguments: [1, 2] }), 400, "invalid_request", /body\.arguments/);
    expectError(await execute({ arguments: {} }), 400, "invalid_request", /body\.tool/);
    expectError(await execute({ tool: "ITEMS_GET", arguments: { verbose: true } }), 400, "invalid_request", /arguments/);
  });

  it("answers 404 for an unknown tool", async () => {
    expectError(await execute({ tool: "NO_SUCH_TOOL", arguments: {} }), 404, "not_found", /NO_SUCH_TOOL/);
  });
});

describe("POST /execute: the connection", () => {
  it("answers 409 connection_required without an active connection", async () => {
    expectError(await execute({ tool: "NOTES_ECHO", arguments: {} }), 409, "connection_required", /POST \/proxy\/tools\/auth/);
    const expired = await h.insertConnection({
      agentId: "agent-a",
      toolkit: "acme",
      status: "expired",
      credential: { type: "apiKey", apiKey: CREDENTIALS.headerKey },
    });
    expectError(await execute({ tool: "ACME_PING", arguments: {} }), 409, "connection_required");
    expectError(await execute({ tool: "ACME_PING", arguments: {}, connection_id: expired }), 409, "connection_required", /expired/);
    expect(h.upstream.requests).toHaveLength(0);
  });

  it("answers 409 connection_ambiguous listing ids and labels, and connection_id chooses", async () => {
    const personal = await h.connect(key, "notes", { token: CREDENTIALS.bearerToken }, { label: "Personal" });
    const work = await h.connect(key, "notes", { token: CREDENTIALS.bearerToken2 }, { label: "Work" });
    const res = await execute({ tool: "NOTES_ECHO", arguments: {} });
    expectError(res, 409, "connection_ambiguous");
    expect(res.json.error).toContain(`${personal.id} ("Personal")`);
    expect(res.json.error).toContain(`${work.id} ("Work")`);
    expect(res.json.error).toMatch(/connection_id/);

    const chosen = await execute({ tool: "NOTES_ECHO", arguments: {}, connection_id: work.id });
    expect(chosen.json).toEqual({
      data: { upstream: { ok: true, method: "GET", path: "/v1/echo" }, connection: "Work" },
      error: null,
      successful: true,
    });
    expect(h.upstream.requests.at(-1)!.headers.authorization).toBe(`Bearer ${CREDENTIALS.bearerToken2}`);
    await execute({ tool: "NOTES_ECHO", arguments: {}, connection_id: personal.id });
    expect(h.upstream.requests.at(-1)!.headers.authorization).toBe(`Bearer ${CREDENTIALS.bearerToken}`);
    expectError(await execute({ tool: "CALC_ADD", arguments: { a: 1, b: 1 }, connection_id: work.id }), 404, "not_found");
  });
});

describe("POST /execute: failures inside the tool", () => {
  it("a thrown Error is a 200 with successful:false and the credential redacted", async () => {
    const before = h.logs.length;
    const res = await execute({
      tool: "NOTES_LEAKY",
      arguments: {},
      connection_id: (await h.call("GET", "/connections?toolkit=notes", { key })).json.connections[0].id,
    });
    expect(res.status).toBe(200);
    expect(res.json).toMatchObject({ data: null, successful: false, code: "tool_failed", retryable: false });
    expect(res.json.error).toMatch(/^The tool NOTES_LEAKY failed\. Error: Upstream refused the header/);
    expect(res.json.error).toContain("[redacted]");
    expect(res.json.error).not.toContain(CREDENTIALS.bearerToken);
    const logged = h.logs.slice(before).find((l) => l.message === "tool failed");
    expect(logged?.level).toBe("warn");
    expect(JSON.stringify(logged?.fields)).toContain("[redacted]");
  });

  it("a ToolRunError keeps its fields, with the message redacted", async () => {
    const res = await execute({ tool: "CALC_FAIL", arguments: {} });
    expect(res.json).toEqual({
      data: null,
      error: "The quota for this tool is used up.",
      successful: false,
      code: "quota_exceeded",
      retryable: true,
      retryAfterMs: 1500,
      upstreamStatus: 429,
    });
    const leakyKey = (await h.issueAgentKey("agent-leaky")).key;
    await h.connect(leakyKey, "notes", { token: CREDENTIALS.bearerToken });
    const leaky = await execute({ tool: "NOTES_LEAKY", arguments: { runError: true } }, leakyKey);
    expect(leaky.json).toMatchObject({ successful: false, code: "refused", retryable: false });
    expect(leaky.json.error).not.toContain(CREDENTIALS.bearerToken);
    expect(leaky.json.error).toContain("[redacted]");
  });

  it("a tool that runs past timeouts.toolMs fails with code timeout", async () => {
    const slowKey = (await slow.issueAgentKey("agent-a")).key;
    const started = Date.now();
    const res = await execute({ tool: "CALC_SLOW", arguments: {} }, slowKey, slow);
    expect(Date.now() - started).toBeLessThan(3000);
    expect(res.status).toBe(200);
    expect(res.json).toEqual({ data: null, error: "Timed out after 150 ms.", successful: false, code: "timeout", retryable: true });
  });

  it("a tool cannot send its credential outside the toolkit's base URL", async () => {
    const res = await execute({
      tool: "NOTES_FETCH_FOREIGN",
      arguments: {},
      connection_id: (await h.call("GET", "/connections?toolkit=notes", { key })).json.connections[0].id,
    });
    expect(res.json).toMatchObject({ successful: false, code: "invalid_request", data: null });
    expect(res.json.error).toMatch(/not allowed/);
    expect(h.foreign.requests).toHaveLength(0);
  });
});

describe("POST /execute: a declarative JSON toolkit against the real upstream", () => {
  it("fills the path, sends the query and injects the credential", async () => {
    await h.connect(key, "items", { apiKey: CREDENTIALS.itemsKey });
    const res = await execute({ tool: "ITEMS_GET", arguments: { id: "a b", verbose: true } });
    expect(res.json).toEqual({ data: { id: "a b", verbose: "true" }, error: null, successful: true });
    const sent = h.upstream.requests.at(-1)!;
    expect(sent.method).toBe("GET");
    expect(sent.url).toBe("/v1/items/a%20b?verbose=true");
    expect(sent.headers["x-items-key"]).toBe(CREDENTIALS.itemsKey);
  });

  it("sends the other arguments as a JSON body for POST", async () => {
    const res = await execute({ tool: "ITEMS_CREATE", arguments: { name: "widget" } });
    expect(res.json).toEqual({ data: { created: { name: "widget" } }, error: null, successful: true });
    const sent = h.upstream.requests.at(-1)!;
    expect(sent).toMatchObject({ method: "POST", url: "/v1/items", body: '{"name":"widget"}' });
    expect(sent.headers["content-type"]).toBe("application/json");
  });

  it("turns an upstream error into successful:false with its status and Retry-After", async () => {
    const res = await execute({ tool: "ITEMS_STATUS", arguments: { code: "503", retry: "9" } });
    expect(res.json).toMatchObject({
      data: null,
      successful: false,
      code: "upstream_error",
      retryable: true,
      retryAfterMs: 9000,
      upstreamStatus: 503,
    });
    expect(res.json.error).toMatch(/^Upstream answered 503/);
    const notFound = await execute({ tool: "ITEMS_STATUS", arguments: { code: "404" } });
    expect(notFound.json).toMatchObject({ successful: false, retryable: false, upstreamStatus: 404 });
  });
});

describe("POST /execute: staged file arguments", () => {
  it("refuses an unknown or malformed staging key with 400 naming the argument", async () => {
    expectError(
      await execute({ tool: "CALC_READ_FILE", arguments: { file: `stg_${"x".repeat(43)}` } }),
      400,
      "invalid_request",
      /arguments\.file: no staged file/,
    );
    expectError(
      await execute({ tool: "CALC_READ_FILE", arguments: { file: "../../etc/passwd" } }),
      400,
      "invalid_request",
      /arguments\.file/,
    );
  });

  it("gives the tool the bytes of the agent's own staged file", async () => {
    const up = await h.call("POST", "/upload", { key, rawBody: multipart("staged text", "text/plain", "note.txt") });
    const res = await execute({ tool: "CALC_READ_FILE", arguments: { file: up.json.stagingKey } });
    expect(res.json).toEqual({ data: { text: "staged text", size: 11, contentType: "text/plain" }, error: null, successful: true });
  });
});
