/**
 * Retries: the backoff function, `sendWithRetries` against scripted answers, and the handler's
 * `retries` option against a real local server that fails N times, counting the requests it got.
 */

import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { createUndiciFetch } from "../../adapters/node.js";
import { bearer, createToolsHandler, defineJsonToolkit, defineTool, defineToolkit } from "../../src/index.js";
import { backoffDelay, type RetryPolicy, resolveRetryPolicy, sendWithRetries } from "../../src/outbound/retry.js";
import { CREDENTIALS, createHarness, type Harness, multipart } from "../support/harness.js";
import { type RawServer, startRawServer } from "./servers.js";

describe("backoffDelay: full jitter", () => {
  const policy = { baseDelayMs: 100, maxDelayMs: 1_000 };

  it("draws from [0, min(maxDelayMs, baseDelayMs * 2^attempt))", () => {
    expect([0, 1, 2, 3, 4, 5].map((attempt) => backoffDelay(attempt, policy, () => 0.999999))).toEqual([99, 199, 399, 799, 999, 999]);
    expect([0, 1, 5].map((attempt) => backoffDelay(attempt, policy, () => 0))).toEqual([0, 0, 0]);
    expect(backoffDelay(2, policy, () => 0.5)).toBe(200);
  });

  it("stays within its ceiling for random draws, even for absurd attempts", () => {
    for (let i = 0; i < 1_000; i++) {
      const attempt = i % 12;
      const delay = backoffDelay(attempt, policy);
      expect(delay).toBeGreaterThanOrEqual(0);
      expect(delay).toBeLessThan(Math.min(1_000, 100 * 2 ** attempt));
    }
    expect(backoffDelay(10_000, policy, () => 0.5)).toBe(500);
  });

  it("resolveRetryPolicy fills defaults and treats absent or max 0 as off", () => {
    expect(resolveRetryPolicy(undefined)).toBeNull();
    expect(resolveRetryPolicy({ max: 0 })).toBeNull();
    expect(resolveRetryPolicy({ max: 2 })).toEqual({ max: 2, baseDelayMs: 200, maxDelayMs: 5_000 });
  });
});

describe("sendWithRetries against scripted answers", () => {
  const policy: RetryPolicy = { max: 3, baseDelayMs: 5, maxDelayMs: 50 };
  const script = (...answers: Array<number | Error | [number, Record<string, string>]>) => {
    let calls = 0;
    const send = async () => {
      const answer = answers[Math.min(calls++, answers.length - 1)]!;
      if (answer instanceof Error) throw answer;
      const [status, headers] = Array.isArray(answer) ? answer : [answer, {}];
      return new Response(`attempt ${calls}`, { status, headers });
    };
    return { send, calls: () => calls };
  };
  const run = (send: () => Promise<Response>, extra: Partial<Parameters<typeof sendWithRetries>[1]> = {}) =>
    sendWithRetries(send, { method: "GET", body: null, policy, signal: new AbortController().signal, ...extra });

  it("retries 503, 429, 408 and network errors until success", async () => {
    const s = script(503, 429, new TypeError("fetch failed"), 200);
    const response = await run(s.send);
    expect(response.status).toBe(200);
    expect(s.calls()).toBe(4);
  });

  it("stops after max retries and returns the last answer, or throws the last error", async () => {
    const s = script(502);
    expect((await run(s.send)).status).toBe(502);
    expect(s.calls()).toBe(4);
    const e = script(new TypeError("fetch failed"));
    await expect(run(e.send)).rejects.toThrow("fetch failed");
    expect(e.calls()).toBe(4);
  });

  it.each([400, 401, 404, 409, 501, 505])("does not retry %i", async (status) => {
    const s = script(status, 200);
    expect((await run(s.send)).status).toBe(status);
    expect(s.calls()).toBe(1);
  });

  it.each(["POST", "PATCH"])("never retries %s", async (method) => {
    const s = script(503, 200);
    expect((await run(s.send, { method })).status).toBe(503);
    expect(s.calls()).toBe(1);
  });

  it.each(["HEAD", "PUT", "DELETE", "OPTIONS"])("retries %s", async (method) => {
    const s = script(503, 200);
    expect((await run(s.send, { method })).status).toBe(200);
  });

  it("never retries a stream body", async () => {
    const s = script(503, 200);
    expect((await run(s.send, { method: "PUT", body: new ReadableStream() })).status).toBe(503);
    expect(s.calls()).toBe(1);
  });

  it("waits for Retry-After within maxDelayMs, and returns at once when it is longer", async () => {
    const within = script([503, { "retry-after": "0" }], 200);
    expect((await run(within.send)).status).toBe(200);
    const started = performance.now();
    const beyond = script([429, { "retry-after": "120" }], 200);
    const response = await run(beyond.send);
    expect(response.status).toBe(429);
    expect(response.headers.get("retry-after")).toBe("120");
    expect(beyond.calls()).toBe(1);
    expect(performance.now() - started).toBeLessThan(50);
  });

  it("honours a Retry-After date and waits that long", async () => {
    // HTTP dates have one-second resolution: a whole second at least 300 ms ahead.
    const at = new Date(Math.ceil((Date.now() + 300) / 1_000) * 1_000);
    const s = script([503, { "retry-after": at.toUTCString() }], 200);
    const started = performance.now();
    const response = await sendWithRetries(s.send, {
      method: "GET",
      body: null,
      policy: { max: 1, baseDelayMs: 1, maxDelayMs: 2_000 },
      signal: new AbortController().signal,
    });
    expect(response.status).toBe(200);
    expect(performance.now() - started).toBeGreaterThan(250);
    expect(Date.now()).toBeGreaterThanOrEqual(at.getTime() - 20);
  });

  it("returns the last answer rather than wait past the deadline", async () => {
    const s = script(503);
    const response = await run(s.send, {
      policy: { max: 5, baseDelayMs: 1_000, maxDelayMs: 1_000 },
      deadline: performance.now() + 20,
      random: () => 0.9,
    });
    expect(response.status).toBe(503);
    expect(s.calls()).toBe(1);
  });

  it("stops waiting as soon as the signal aborts", async () => {
    const controller = new AbortController();
    const s = script(503);
    setTimeout(() => controller.abort(new Error("gave up")), 30);
    const started = performance.now();
    await expect(
      run(s.send, { policy: { max: 5, baseDelayMs: 10_000, maxDelayMs: 10_000 }, signal: controller.signal, random: () => 0.9 }),
    ).rejects.toThrow("gave up");
    expect(performance.now() - started).toBeLessThan(1_000);
  });

  it("without a policy sends exactly once", async () => {
    const s = script(503, 200);
    expect((await run(s.send, { policy: null })).status).toBe(503);
    expect(s.calls()).toBe(1);
  });
});

/**
 * Answers by path: `/r/fail/{n}/{tag}` fails n times per tag, then 200. A failure is `?status=`
 * (default 503) with `?retryAfter=` after `?delay=` ms, or a reset connection with `?reset`.
 */
function flakyRoute(failures: Map<string, number>) {
  return (request: { method: string; url: string }, res: import("node:http").ServerResponse) => {
    const url = new URL(request.url, "http://r.invalid");
    const match = /^\/r\/fail\/(\d+)\/([\w-]+)$/.exec(url.pathname);
    if (!match) return void res.writeHead(404).end();
    const seen = (failures.get(match[2]!) ?? 0) + 1;
    failures.set(match[2]!, seen);
    if (seen > Number(match[1])) {
      res.writeHead(200, { "content-type": "application/json" });
      return void res.end(JSON.stringify({ ok: true, attempts: seen, method: request.method }));
    }
    if (url.searchParams.has("reset")) return void res.socket?.destroy();
    const retryAfter = url.searchParams.get("retryAfter");
    setTimeout(
      () => {
        res.writeHead(Number(url.searchParams.get("status") ?? 503), {
          "content-type": "application/json",
          ...(retryAfter ? { "retry-after": retryAfter } : {}),
        });
        res.end(JSON.stringify({ error: "try again" }));
      },
      Number(url.searchParams.get("delay") ?? 0),
    );
  };
}

const fetches = [
  ["the global fetch", () => undefined],
  ["createUndiciFetch", () => createUndiciFetch()],
] as const;

describe.each(fetches)("the retries option, against a real flaky server, with %s", (_name, makeFetch) => {
  let server: RawServer;
  let h: Harness;
  let off: Harness;
  let key: string;
  let offKey: string;
  const attempts = new Map<string, number>();
  const fetch = makeFetch();
  let tag = 0;
  const nextTag = () => `t${++tag}`;
  const requestsFor = (t: string) => attempts.get(t) ?? 0;

  const toolkits = (origin: string) => [
    defineToolkit({
      slug: "flaky",
      name: "Flaky",
      description: "Fails a few times.",
      baseUrl: `${origin}/r`,
      auth: bearer(),
      tools: [
        defineTool({
          slug: "FLAKY_GET",
          name: "Get",
          description: "GET through ctx.fetch.",
          input: z.object({ path: z.string() }),
          run: async (args, ctx) => (await ctx.fetch(args.path)).json(),
        }),
      ],
    }),
    defineToolkit({
      slug: "flakynoretry",
      name: "No retry",
      description: "Turns retries off.",
      baseUrl: `${origin}/r`,
      auth: bearer(),
      retries: { max: 0 },
      tools: [],
    }),
    defineJsonToolkit(
      {
        slug: "flakyjson",
        name: "Flaky JSON",
        description: "A declarative toolkit with its own retries.",
        baseUrl: `${origin}/r`,
        auth: { type: "bearer" },
        retries: { max: 2, baseDelayMs: 5 },
        tools: [
          {
            slug: "FLAKYJSON_GET",
            name: "Get",
            description: "GET /fail/{n}/{tag}.",
            method: "GET",
            path: "/fail/{n}/{tag}",
            inputParameters: { type: "object", properties: { n: { type: "string" }, tag: { type: "string" } }, required: ["n", "tag"] },
          },
        ],
      },
      { env: {} },
    ),
  ];

  beforeAll(async () => {
    server = await startRawServer(flakyRoute(attempts));
    h = await createHarness({
      ...(fetch ? { fetch } : {}),
      retries: { max: 3, baseDelayMs: 5, maxDelayMs: 500 },
      extraToolkits: () => toolkits(server.origin),
    });
    off = await createHarness({ ...(fetch ? { fetch } : {}), extraToolkits: () => toolkits(server.origin) });
    key = (await h.issueAgentKey("agent-a")).key;
    offKey = (await off.issueAgentKey("agent-a")).key;
    for (const slug of ["flaky", "flakynoretry", "flakyjson"]) {
      await h.connect(key, slug, { token: CREDENTIALS.bearerToken });
      await off.connect(offKey, slug, { token: CREDENTIALS.bearerToken });
    }
  });
  afterAll(async () => {
    h.assertNoLeaks();
    off.assertNoLeaks();
    await fetch?.close();
    await Promise.all([h.close(), off.close(), server.close()]);
  });

  const proxy = (body: Record<string, unknown>, harness = h, as = key) =>
    harness.call("POST", "/proxy", { key: as, body: { toolkit: "flaky", method: "GET", ...body } });
  const url = (path: string) => `${server.origin}/r/${path}`;

  it("are off by default: one request, the failure comes back", async () => {
    const t = nextTag();
    const res = await proxy({ url: url(`fail/2/${t}`) }, off, offKey);
    expect(res.json).toMatchObject({ successful: false, upstreamStatus: 503, retryable: true });
    expect(requestsFor(t)).toBe(1);
  });

  it.each(["GET", "PUT", "DELETE"])("%s: fails twice, then succeeds on the third request", async (method) => {
    const t = nextTag();
    const res = await proxy({ method, url: url(`fail/2/${t}`), ...(method === "PUT" ? { body: { a: 1 } } : {}) });
    expect(res.json).toMatchObject({ successful: true, status: 200, data: { ok: true, attempts: 3, method } });
    expect(requestsFor(t)).toBe(3);
  });

  it("retries a reset connection (a network error)", async () => {
    const t = nextTag();
    const res = await proxy({ url: url(`fail/2/${t}?reset`) });
    expect(res.json).toMatchObject({ successful: true, data: { attempts: 3 } });
    expect(requestsFor(t)).toBe(3);
  });

  it("gives up after max retries with the last answer", async () => {
    const t = nextTag();
    const res = await proxy({ url: url(`fail/9/${t}?status=502`) });
    expect(res.json).toMatchObject({ successful: false, code: "upstream_error", upstreamStatus: 502, retryable: true });
    expect(requestsFor(t)).toBe(4);
  });

  it.each(["POST", "PATCH"])("never retries %s", async (method) => {
    const t = nextTag();
    const res = await proxy({ method, url: url(`fail/1/${t}`), body: { a: 1 } });
    expect(res.json).toMatchObject({ successful: false, upstreamStatus: 503 });
    expect(requestsFor(t)).toBe(1);
  });

  it("does not retry a 404", async () => {
    const t = nextTag();
    expect((await proxy({ url: url(`fail/1/${t}?status=404`) })).json).toMatchObject({
      successful: false,
      upstreamStatus: 404,
      retryable: false,
    });
    expect(requestsFor(t)).toBe(1);
  });

  it("honours a short Retry-After, and returns a long one (over maxDelayMs) without retrying", async () => {
    const short = nextTag();
    expect((await proxy({ url: url(`fail/1/${short}?status=429&retryAfter=0`) })).json).toMatchObject({ successful: true });
    expect(requestsFor(short)).toBe(2);
    const long = nextTag();
    const res = await proxy({ url: url(`fail/1/${long}?status=429&retryAfter=30`) });
    expect(res.json).toMatchObject({ successful: false, upstreamStatus: 429, retryable: true, retryAfterMs: 30_000 });
    expect(requestsFor(long)).toBe(1);
  });

  it("never retries a streamed bodyFile", async () => {
    const upload = await h.call("POST", "/upload", { key, rawBody: multipart("file bytes", "text/plain") });
    const t = nextTag();
    const res = await proxy({ method: "PUT", url: url(`fail/1/${t}`), bodyFile: upload.json.stagingKey });
    expect(res.json).toMatchObject({ successful: false, upstreamStatus: 503 });
    expect(requestsFor(t)).toBe(1);
  });

  it("a toolkit's retries replace the handler's", async () => {
    const t = nextTag();
    expect((await proxy({ toolkit: "flakynoretry", url: url(`fail/1/${t}`) })).json).toMatchObject({ successful: false });
    expect(requestsFor(t)).toBe(1);
    const j = nextTag();
    const res = await off.call("POST", "/execute", { key: offKey, body: { tool: "FLAKYJSON_GET", arguments: { n: "2", tag: j } } });
    expect(res.json).toMatchObject({ successful: true, data: { attempts: 3 } });
    expect(requestsFor(j)).toBe(3);
  });

  it("a tool's ctx.fetch retries too", async () => {
    const t = nextTag();
    const res = await h.call("POST", "/execute", { key, body: { tool: "FLAKY_GET", arguments: { path: `/fail/2/${t}` } } });
    expect(res.json).toMatchObject({ successful: true, data: { attempts: 3 } });
    expect(requestsFor(t)).toBe(3);
  });

  async function timedHarness(retries: { max: number; baseDelayMs?: number; maxDelayMs?: number }) {
    const harness = await createHarness({
      ...(fetch ? { fetch } : {}),
      retries,
      timeouts: { proxyMs: 300 },
      extraToolkits: () => toolkits(server.origin),
    });
    const harnessKey = (await harness.issueAgentKey("agent-a")).key;
    await harness.connect(harnessKey, "flaky", { token: CREDENTIALS.bearerToken });
    return { harness, harnessKey };
  }

  it("do not start a wait that would end past the call's timeout: the answer comes back at once", async () => {
    const { harness, harnessKey } = await timedHarness({ max: 5, baseDelayMs: 1, maxDelayMs: 2_000 });
    const t = nextTag();
    const started = performance.now();
    const res = await proxy({ url: url(`fail/9/${t}?retryAfter=1`) }, harness, harnessKey);
    expect(performance.now() - started).toBeLessThan(250);
    expect(res.json).toMatchObject({ successful: false, code: "upstream_error", upstreamStatus: 503, retryAfterMs: 1_000 });
    expect(requestsFor(t)).toBe(1);
    await harness.close();
  });

  it("never outlive the call's timeout", async () => {
    const { harness, harnessKey } = await timedHarness({ max: 10, baseDelayMs: 1, maxDelayMs: 1 });
    const t = nextTag();
    const started = performance.now();
    const res = await proxy({ url: url(`fail/99/${t}?delay=80`) }, harness, harnessKey);
    expect(performance.now() - started).toBeLessThan(600);
    expect(res.json.successful).toBe(false);
    expect(["timeout", "upstream_error"]).toContain(res.json.code);
    expect(requestsFor(t)).toBeGreaterThanOrEqual(2);
    expect(requestsFor(t)).toBeLessThanOrEqual(5);
    await harness.close();
  });
});

describe("retries configuration", () => {
  it("is validated by createToolsHandler and defineToolkit", () => {
    expect(() => createToolsHandler({ retries: { max: 11 } })).toThrow(/retries\.max/);
    expect(() => createToolsHandler({ retries: { max: 1, baseDelayMs: -1 } })).toThrow(/retries\.baseDelayMs/);
    expect(() => createToolsHandler({ retries: { max: 1, jitter: true } as never })).toThrow(/retries\.jitter/);
    expect(() => defineToolkit({ slug: "x", name: "X", description: "", auth: bearer(), tools: [], retries: { max: -1 } })).toThrow(
      /retries/,
    );
  });

  it("a JSON toolkit file accepts retries and refuses a bad one", () => {
    const doc = (retries: unknown) => ({
      slug: "j",
      name: "J",
      description: "",
      baseUrl: "https://j.test",
      auth: { type: "none" },
      retries,
      tools: [],
    });
    expect(defineJsonToolkit(doc({ max: 2 }), { env: {} }).retries).toEqual({ max: 2 });
    expect(() => defineJsonToolkit(doc({ max: 2, extra: 1 }), { env: {} })).toThrow(/retries/);
  });
});
