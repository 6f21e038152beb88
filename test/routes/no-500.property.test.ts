/**
 * Issue 29, item 7: no input on any JSON route is a 500. Bodies are generated (any JSON value,
 * nested up to far past the limit, broken text) and sent to every route that parses JSON; each
 * answer is below 500, and an error is the `{ error, code }` shape. Runs are bounded (a few
 * hundred requests in process, no server).
 */
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { defineJsonToolkit } from "../../src/index.js";
import { CREDENTIALS, createHarness, type Harness } from "../support/harness.js";

let h: Harness;
let key: string;

beforeAll(async () => {
  h = await createHarness({
    extraToolkits: (origins) => [
      defineJsonToolkit(
        {
          slug: "shapes",
          name: "Shapes",
          description: "A tool with patterns and a recursive schema.",
          icon: "https://shapes.test/icon.svg",
          baseUrl: `${origins.upstream}/v1`,
          auth: { type: "none" },
          tools: [
            {
              slug: "SHAPES_PUT",
              name: "Put",
              description: "Puts a shape.",
              method: "POST",
              path: "/echo",
              inputParameters: {
                type: "object",
                properties: {
                  id: { type: "string", pattern: "^(a+)+$" },
                  tags: { type: "object", patternProperties: { "^(x|x)*-$": { type: "string" } }, additionalProperties: false },
                  tree: { $ref: "#/$defs/Node" },
                },
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

/** A JSON text nested up to 20,000 levels, bare or where each route reads it (arguments, a proxied body, MCP params). */
const deepText = fc
  .tuple(
    fc.integer({ min: 1, max: 20_000 }),
    fc.constantFrom(["[", "]"], ['{"a":', "}"], ['{"children":[', "]}"]),
    fc.jsonValue({ maxDepth: 2 }),
    fc.constantFrom(
      (deep: string) => deep,
      (deep: string) => `{"tool":"SHAPES_PUT","arguments":{"tree":${deep}}}`,
      (deep: string) => `{"toolkit":"acme","method":"POST","url":"${h.origins.upstream}/v1/echo","body":${deep}}`,
      (deep: string) => `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"SHAPES_PUT","arguments":{"tree":${deep}}}}`,
    ),
  )
  .map(([depth, [open, close], inner, wrap]) => wrap(open.repeat(depth) + JSON.stringify(inner) + close.repeat(depth)));

const bodyText = fc.oneof(
  fc.jsonValue({ maxDepth: 6 }).map((value) => JSON.stringify(value)),
  deepText,
  fc.string({ maxLength: 200 }),
  fc
    .record({ tool: fc.constantFrom("SHAPES_PUT", "CALC_ADD", "ACME_PING"), arguments: fc.jsonValue({ maxDepth: 5 }) })
    .map((value) => JSON.stringify(value)),
  fc
    .record({
      tool: fc.constant("SHAPES_PUT"),
      arguments: fc.record(
        { id: fc.stringMatching(/^a{0,40}!?$/), tags: fc.dictionary(fc.string({ maxLength: 40 }), fc.string()) },
        { requiredKeys: [] },
      ),
    })
    .map((value) => JSON.stringify(value)),
  fc
    .tuple(fc.constantFrom("toolkit", "url", "method", "body"), fc.jsonValue({ maxDepth: 4 }))
    .map(([field, value]) => JSON.stringify({ toolkit: "acme", method: "POST", url: `${h.origins.upstream}/v1/echo`, [field]: value })),
);

describe("no JSON body is a 500", () => {
  it.each(["/proxy", "/execute", "/auth", "/mcp"])(
    "POST %s",
    async (path) => {
      await fc.assert(
        fc.asyncProperty(bodyText, async (text) => {
          const res = await h.call("POST", path, {
            key,
            rawBody: text,
            headers: { "content-type": "application/json", accept: "application/json, text/event-stream" },
          });
          expect(res.status, `${path} ${text.slice(0, 200)}: ${res.text.slice(0, 300)}`).toBeLessThan(500);
          // MCP answers JSON-RPC errors in the SDK's envelope; its -32603 (internal error) is the 500 of JSON-RPC.
          if (res.json?.jsonrpc === "2.0") expect(res.json.error?.code, res.text.slice(0, 300)).not.toBe(-32603);
          else if (res.status >= 400) expect(Object.keys(res.json ?? {}).sort()).toEqual(["code", "error"]);
        }),
        { numRuns: 120 },
      );
    },
    120_000,
  );
});
