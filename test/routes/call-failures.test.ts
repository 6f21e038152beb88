/**
 * How failed calls are reported: one classification for the proxy, declarative tools and code
 * tools' `ctx.fetch` (an unreachable upstream is `upstream_unreachable`, retryable, without its
 * address), and neither redaction nor a failing logger can turn a failed call into a 500.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { createUndiciFetch } from "../../adapters/node.js";
import { bearer, defineJsonToolkit, defineTool, defineToolkit, type Toolkit } from "../../src/index.js";
import { CREDENTIALS, createHarness, type Harness, type HarnessOptions } from "../support/harness.js";
import { startServer } from "../support/upstream.js";

/** An origin on which nothing listens: a port that was just freed. */
async function refusingOrigin(): Promise<string> {
  const server = await startServer(() => {});
  await server.close();
  return server.origin;
}

function unreachableToolkits(origin: string): Toolkit[] {
  return [
    defineJsonToolkit(
      {
        slug: "gone",
        name: "Gone",
        description: "An API whose server is down.",
        baseUrl: `${origin}/v1`,
        auth: { type: "bearer" },
        tools: [
          {
            slug: "GONE_GET",
            name: "Get",
            description: "Reads.",
            method: "GET",
            path: "/things",
            inputParameters: { type: "object", properties: {} },
          },
        ],
      },
      { env: {} },
    ),
    defineToolkit({
      slug: "gonecode",
      name: "Gone (code)",
      description: "A code toolkit whose server is down.",
      baseUrl: `${origin}/v1`,
      auth: bearer(),
      tools: [
        defineTool({
          slug: "GONECODE_LET_IT_FAIL",
          name: "Let it fail",
          description: "Lets ctx.fetch's error propagate.",
          input: z.object({}),
          run: async (_a, ctx) => (await ctx.fetch("/x")).json(),
        }),
        defineTool({
          slug: "GONECODE_GLOBAL_FETCH",
          name: "Global fetch",
          description: "Uses the global fetch, not ctx.fetch.",
          input: z.object({}),
          run: async () => (await fetch(`${origin}/v1/x`)).json(),
        }),
      ],
    }),
  ];
}

for (const [name, options] of [
  ["the global fetch", {}],
  ["the pooled undici fetch of tools-proxy/node", { fetch: createUndiciFetch() as typeof fetch }],
] as Array<[string, HarnessOptions]>) {
  describe(`an upstream that refuses connections, with ${name}`, () => {
    let h: Harness;
    let key: string;
    let origin: string;
    beforeAll(async () => {
      origin = await refusingOrigin();
      h = await createHarness({ ...options, extraToolkits: () => unreachableToolkits(origin) });
      key = (await h.issueAgentKey("agent-f")).key;
      await h.connect(key, "gone", { token: CREDENTIALS.bearerToken });
      await h.connect(key, "gonecode", { token: CREDENTIALS.bearerToken2 });
    });
    afterAll(async () => {
      h.assertNoLeaks();
      await h.close();
    });

    const unreachable = { data: null, successful: false, code: "upstream_unreachable", retryable: true };
    const port = () => new URL(origin).port;

    it("the proxy, a declarative tool and a code tool's ctx.fetch report it alike, without the address", async () => {
      const proxied = await h.call("POST", "/proxy", { key, body: { toolkit: "gone", method: "GET", url: `${origin}/v1/things` } });
      const declarative = await h.call("POST", "/execute", { key, body: { tool: "GONE_GET", arguments: {} } });
      const code = await h.call("POST", "/execute", { key, body: { tool: "GONECODE_LET_IT_FAIL", arguments: {} } });
      const global = await h.call("POST", "/execute", { key, body: { tool: "GONECODE_GLOBAL_FETCH", arguments: {} } });
      expect(proxied.json).toMatchObject({ ...unreachable, status: null });
      for (const res of [proxied, declarative, code, global]) {
        expect(res.status, res.text).toBe(200);
        expect(res.json).toMatchObject(unreachable);
        expect(res.json.error).toBe(proxied.json.error);
        expect(res.text).not.toContain(port());
        expect(res.text).not.toMatch(/127\.0\.0\.1|ECONNREFUSED|\bat \w/);
      }
    });

    it("the log line keeps the cause for the operator", async () => {
      await h.call("POST", "/execute", { key, body: { tool: "GONE_GET", arguments: {} } });
      const logged = h.logs.filter((l) => l.message === "tool failed").at(-1);
      expect(JSON.stringify(logged?.fields)).toMatch(/ECONNREFUSED/);
    });
  });
}

describe("redaction and logging never change an answer", () => {
  let h: Harness;
  let key: string;
  beforeAll(async () => {
    h = await createHarness();
    key = (await h.issueAgentKey("agent-r")).key;
    await h.connect(key, "items", { apiKey: CREDENTIALS.itemsKey });
  });
  afterAll(async () => {
    h.assertNoLeaks();
    await h.close();
  });

  it("a declarative tool failing with a body that quotes ?token=... is answered and logged (was a 500)", async () => {
    const reflect = await createHarness({
      extraToolkits: (origins) => [
        defineJsonToolkit(
          {
            slug: "echoing",
            name: "Echoing",
            description: "Echoes URLs in its errors.",
            baseUrl: `${origins.upstream}/v1`,
            auth: { type: "none" },
            tools: [
              {
                slug: "ECHOING_FAIL",
                name: "Fail",
                description: "Fails.",
                method: "GET",
                path: "/reflect",
                inputParameters: { type: "object", properties: { status: { type: "string" } } },
              },
            ],
          },
          { env: {} },
        ),
      ],
    });
    const k = (await reflect.issueAgentKey("agent-e")).key;
    const res = await reflect.call("POST", "/execute", { key: k, body: { tool: "ECHOING_FAIL", arguments: { status: "500" } } });
    expect(res.status, res.text).toBe(200);
    expect(res.json).toMatchObject({ successful: false, code: "upstream_error", upstreamStatus: 500 });
    expect(res.json.error).toContain("?token=[redacted]");
    const logged = reflect.logs.find((l) => l.message === "tool failed");
    expect(logged, "the failure is logged").toBeDefined();
    expect(JSON.stringify(logged!.fields)).toContain("token=[redacted]");
    expect(JSON.stringify(logged!.fields)).not.toContain("token=abc");
    await reflect.close();
  });

  it("a logger that throws leaves the answer as it was", async () => {
    const throwing = await createHarness({
      logger: {
        warn: () => {
          throw new Error("logger down");
        },
        error: () => {
          throw new Error("logger down");
        },
      },
    });
    const k = (await throwing.issueAgentKey("agent-t")).key;
    const res = await throwing.call("POST", "/execute", { key: k, body: { tool: "CALC_FAIL", arguments: {} } });
    expect(res.status).toBe(200);
    expect(res.json).toMatchObject({ successful: false, code: "quota_exceeded" });
    await throwing.close();
  });
});
