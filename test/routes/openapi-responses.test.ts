/**
 * The OpenAPI document lists every answer a route really gives: each operation is driven into
 * the failures every route of its kind can meet (no key, a store that is down, a refusing limits
 * hook, a body that is not JSON or too large, a bad query, a badly encoded or overlong path
 * parameter), and the status it answered must be one the document gives for that operation.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { memoryStore, StoreUnavailableError, type ToolsStore } from "../../src/index.js";
import { createHarness, type Harness } from "../support/harness.js";

type Operation = { path: string; method: string; documented: string[]; public: boolean; hasBody: boolean; hasQuery: boolean };

let h: Harness;
let limited: Harness;
let down: Harness;
let key: string;
let limitedKey: string;
let operations: Operation[];
let limitedOperations: Operation[];
let storeUp = true;

beforeAll(async () => {
  h = await createHarness();
  key = (await h.issueAgentKey("agent-o")).key;
  limited = await createHarness({
    limits: ({ principal }) =>
      principal.agentId === "broke"
        ? { allow: false, reason: "insufficient_credits" }
        : { allow: false, reason: "rate_limited", retryAfterSeconds: 5 },
  });
  limitedKey = (await limited.issueAgentKey("busy")).key;
  // A store that goes down on demand, after the key was issued.
  const inner = memoryStore();
  const failing = new Proxy(inner, {
    get: (target, name, receiver) => {
      const value = Reflect.get(target, name, receiver);
      // A request's view of the store (withSignal) is of this proxy, so its reads fail with it.
      if (name === "withSignal") return value.bind(receiver);
      return typeof value === "function"
        ? (...args: unknown[]) => (storeUp ? value.apply(target, args) : Promise.reject(new StoreUnavailableError()))
        : value;
    },
  }) as ToolsStore;
  down = await createHarness({ store: failing });
  operations = operationsOf((await h.call("GET", "/openapi.json")).json);
  limitedOperations = operationsOf((await limited.call("GET", "/openapi.json")).json);
});

// eslint-disable-next-line @typescript-eslint/no-explicit-any
function operationsOf(doc: any): Operation[] {
  return Object.entries(
    doc.paths as Record<
      string,
      Record<
        string,
        { security?: unknown[]; responses: Record<string, unknown>; requestBody?: unknown; parameters?: Array<{ in: string }> }
      >
    >,
  ).flatMap(([path, methods]) =>
    Object.entries(methods).map(([method, op]) => ({
      path: path.replace(/^\/proxy\/tools/, ""),
      method: method.toUpperCase(),
      documented: Object.keys(op.responses),
      public: Array.isArray(op.security) && op.security.length === 0,
      hasBody: !!op.requestBody,
      hasQuery: !!op.parameters?.some((p) => p.in === "query"),
    })),
  );
}
afterAll(async () => {
  for (const harness of [h, limited, down]) {
    harness.assertNoLeaks();
    await harness.close();
  }
});

const fill = (path: string, value = "x") => path.replace(/\{[^}]+\}/g, value);

describe("every status a route answers is in its OpenAPI responses", () => {
  const cases: Array<[string, (op: Operation) => Promise<number | null>]> = [
    ["no API key", async (op) => (op.public ? null : (await h.call(op.method, fill(op.path))).status)],
    [
      "a store that is down",
      async (op) => {
        if (op.public) return null;
        storeUp = false;
        try {
          return (await down.call(op.method, fill(op.path), { key: `pak_${"A".repeat(43)}` })).status;
        } finally {
          storeUp = true;
        }
      },
    ],
    [
      "a limits hook that rate-limits",
      async (op) => (op.public ? null : (await limited.call(op.method, fill(op.path), { key: limitedKey })).status),
    ],
    [
      "a body that is not JSON",
      async (op) =>
        op.hasBody && op.path !== "/upload"
          ? (await h.call(op.method, fill(op.path), { key, rawBody: "x", headers: { "content-type": "text/plain" } })).status
          : null,
    ],
    [
      "a body over 1 MiB",
      async (op) =>
        op.hasBody && op.path !== "/upload"
          ? (
              await h.call(op.method, fill(op.path), {
                key,
                rawBody: `"${"x".repeat(1024 * 1024)}"`,
                headers: { "content-type": "application/json" },
              })
            ).status
          : null,
    ],
    [
      "malformed JSON",
      async (op) =>
        op.hasBody && op.path !== "/upload"
          ? (await h.call(op.method, fill(op.path), { key, rawBody: "{", headers: { "content-type": "application/json" } })).status
          : null,
    ],
    [
      "a query parameter given twice",
      async (op) =>
        op.hasQuery ? (await h.call(op.method, `${fill(op.path)}?limit=1&limit=2&toolkit=a&toolkit=b`, { key })).status : null,
    ],
    [
      "a badly encoded path parameter",
      async (op) => (op.path.includes("{") ? (await h.call(op.method, fill(op.path, "%E0%A4%A"), { key })).status : null),
    ],
    [
      "an overlong path parameter",
      async (op) => (op.path.includes("{") ? (await h.call(op.method, fill(op.path, "x".repeat(300)), { key })).status : null),
    ],
  ];
  for (const [name, provoke] of cases) {
    it(name, async () => {
      let provoked = 0;
      for (const [i, op] of operations.entries()) {
        const status = await provoke(op);
        if (status === null) continue;
        provoked++;
        const documented = name.includes("limits") ? limitedOperations[i]!.documented : op.documented;
        expect(documented, `${op.method} ${op.path} answered ${status}`).toContain(String(status));
      }
      expect(provoked).toBeGreaterThan(0);
    });
  }

  it("402 is documented with a limits hook, and no 402 or 429 without one", async () => {
    const doc = (await limited.call("GET", "/openapi.json")).json;
    expect(Object.keys(doc.paths["/proxy/tools/search"].get.responses)).toEqual(expect.arrayContaining(["402", "429"]));
    expect(operations.find((op) => op.path === "/search")!.documented).not.toContain("429");
  });
});
