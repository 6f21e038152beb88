/**
 * Issue 29, item 7: JSON nested deep is a 400 naming the limit on every route that parses a JSON
 * body, never a 500 (a RangeError in zod or JSON.stringify), and an upstream answer nested deep
 * reaches the agent as text.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { defineJsonToolkit } from "../../src/index.js";
import { CREDENTIALS, createHarness, expectError, type Harness } from "../support/harness.js";

let h: Harness;
let key: string;

/** `{"a":[{"a":[ ... ]}]}` nested `depth` levels, around `inner`. */
function nested(depth: number, inner: unknown = 1): unknown {
  let value: unknown = inner;
  for (let level = 0; level < depth; level++) value = level % 2 === 0 ? [value] : { a: value };
  return value;
}

/** A JSON text nested `depth` levels, written without recursion (JSON.stringify would overflow on its own). */
function nestedText(depth: number): string {
  return `${"[".repeat(depth)}1${"]".repeat(depth)}`;
}

const LIMIT = /more than 64 levels deep; send it with at most 64/;

beforeAll(async () => {
  h = await createHarness({
    extraToolkits: (origins) => [
      defineJsonToolkit(
        {
          slug: "tree",
          name: "Tree",
          description: "A tool whose argument is a recursive tree.",
          icon: "https://tree.test/icon.svg",
          baseUrl: `${origins.upstream}/v1`,
          auth: { type: "none" },
          tools: [
            {
              slug: "TREE_PUT",
              name: "Put a tree",
              description: "Sends a tree.",
              method: "POST",
              path: "/echo",
              inputParameters: {
                type: "object",
                properties: { tree: { $ref: "#/$defs/Node" } },
                $defs: { Node: { type: "object", properties: { children: { type: "array", items: { $ref: "#/$defs/Node" } } } } },
              },
            },
          ],
        },
        { env: {} },
      ),
    ],
  });
  key = (await h.issueAgentKey("agent-a")).key;
  await h.connect(key, "acme", { apiKey: CREDENTIALS.headerKey });
});
afterAll(async () => {
  h.assertNoLeaks();
  await h.close();
});

const raw = (path: string, text: string, headers: Record<string, string> = {}) =>
  h.call("POST", path, { key, rawBody: text, headers: { "content-type": "application/json", ...headers } });

describe("a JSON body nested deeper than 64 levels", () => {
  it.each([
    ["/proxy", 5000],
    ["/execute", 5000],
    ["/auth", 5000],
    ["/execute", 20000],
    ["/proxy", 65],
  ])("POST %s nested %i deep is a 400 naming the limit", async (path, depth) => {
    expectError(await raw(path, nestedText(depth)), 400, "invalid_request", LIMIT);
  });

  it("a body of 10 KB nested 5,000 deep inside an object (the issue's /proxy body) is a 400", async () => {
    const text = `{"toolkit":"acme","method":"POST","url":"${h.origins.upstream}/v1/echo","body":${nestedText(5000)}}`;
    expectError(await raw("/proxy", text), 400, "invalid_request", LIMIT);
  });

  it("brackets inside strings do not count", async () => {
    const res = await h.call("POST", "/proxy", {
      key,
      body: { toolkit: "acme", method: "POST", url: `${h.origins.upstream}/v1/echo`, body: { text: "[{".repeat(5000) } },
    });
    expect(res.status).toBe(200);
    expect(res.json.successful).toBe(true);
  });

  it("arguments 20,000 deep against a recursive schema are a 400 on /execute, and 60 deep run", async () => {
    const tree = `${'{"children":['.repeat(10_000)}{}${"]}".repeat(10_000)}`;
    const text = `{"tool":"TREE_PUT","arguments":{"tree":${tree}}}`;
    expectError(await raw("/execute", text), 400, "invalid_request", LIMIT);
    let shallow: unknown = {};
    for (let i = 0; i < 30; i++) shallow = { children: [shallow] };
    const ok = await h.call("POST", "/execute", { key, body: { tool: "TREE_PUT", arguments: { tree: shallow } } });
    expect(ok.status, ok.text).toBe(200);
    expect(ok.json.successful).toBe(true);
  });

  it("an MCP tools/call with arguments 20,000 deep is a 400 naming the limit, not JSON-RPC's -32603", async () => {
    const text = `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"TREE_PUT","arguments":{"tree":${nestedText(20000)}}}}`;
    const res = await raw("/mcp?toolkits=tree", text, { accept: "application/json, text/event-stream" });
    expectError(res, 400, "invalid_request", LIMIT);
  });

  it("64 levels are accepted", async () => {
    const body = { toolkit: "acme", method: "POST", url: `${h.origins.upstream}/v1/echo`, body: nested(62) };
    const res = await h.call("POST", "/proxy", { key, body });
    expect(res.status, res.text).toBe(200);
  });
});

describe("an upstream JSON answer nested deep", () => {
  it("POST /proxy gives an answer nested 5,000 deep as text, not a 500", async () => {
    const res = await h.call("POST", "/proxy", {
      key,
      body: { toolkit: "acme", method: "GET", url: `${h.origins.upstream}/v1/deep?depth=5000` },
    });
    expect(res.status, res.text.slice(0, 200)).toBe(200);
    expect(res.json.successful).toBe(true);
    expect(typeof res.json.data).toBe("string");
    expect(res.json.data.startsWith('{"a":[{"a":[')).toBe(true);
  });

  it("an answer nested 100 deep is parsed as JSON", async () => {
    const res = await h.call("POST", "/proxy", {
      key,
      body: { toolkit: "acme", method: "GET", url: `${h.origins.upstream}/v1/deep?depth=100` },
    });
    expect(res.json.data).toMatchObject({ a: [{ a: [{}] }] });
  });
});
