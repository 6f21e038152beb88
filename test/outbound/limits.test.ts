/**
 * Timeouts and the response size cap against real misbehaving servers: one that never answers,
 * one that sends headers then stalls, one that drips forever, and 1 GiB bodies (chunked and
 * declared). Each gives `successful: false` with a code, promptly, without reading the whole body
 * into memory, and closes the upstream connection. Run with the global fetch and the undici one.
 */

import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { createUndiciFetch } from "../../adapters/node.js";
import { bearer, defineJsonToolkit, defineTool, defineToolkit } from "../../src/index.js";
import { CREDENTIALS, createHarness, type Harness } from "../support/harness.js";
import { GiB, MiB, type RawServer, startRawServer, streamBytes, waitFor } from "./servers.js";

const STALL_MS = 250;
const CAP = 10 * MiB;

function route(
  request: { url: string; headers: Record<string, unknown> },
  res: import("node:http").ServerResponse,
  server: RawServer,
): void {
  const url = new URL(request.url, "http://io.invalid");
  const tag = url.searchParams.get("tag") ?? "";
  switch (url.pathname) {
    case "/io/stall-headers":
      return; // never answers
    case "/io/stall-body":
      res.writeHead(200, { "content-type": "application/json" });
      res.write('{"partial":');
      return;
    case "/io/drip": {
      res.writeHead(200, { "content-type": "text/plain" });
      const timer = setInterval(() => res.write("x"), 20);
      res.on("close", () => clearInterval(timer));
      return;
    }
    case "/io/forever-json":
      res.writeHead(200, { "content-type": "application/json" });
      return streamBytes(res, server, tag, GiB);
    case "/io/forever-binary":
      res.writeHead(200, { "content-type": "application/octet-stream" });
      return streamBytes(res, server, tag, GiB);
    case "/io/declared":
      res.writeHead(200, { "content-type": "application/json", "content-length": String(GiB) });
      return streamBytes(res, server, tag, GiB);
    case "/io/binary": {
      const size = Number(url.searchParams.get("size"));
      res.writeHead(200, { "content-type": "application/octet-stream" });
      return streamBytes(res, server, tag, size, Buffer.from(Array.from({ length: 256 }, (_, i) => i)));
    }
    case "/io/reflect":
      // An upstream that puts the credential it received in its error body.
      res.writeHead(400, { "content-type": "application/json" });
      return void res.end(JSON.stringify({ error: `bad token ${String(request.headers.authorization)}` }));
  }
  res.writeHead(404).end();
}

/** A tool that reads a path of the IO server through ctx.fetch and returns the length of the text. */
const readTool = (slug: string) =>
  defineTool({
    slug,
    name: "Read",
    description: "Reads a path of the IO server as text.",
    input: z.object({ path: z.string() }),
    run: async (args, ctx) => (await (await ctx.fetch(args.path)).text()).length,
  });

const fetches = [
  ["the global fetch", () => undefined],
  ["createUndiciFetch", () => createUndiciFetch()],
] as const;

describe.each(fetches)("with %s", (_name, makeFetch) => {
  let io: RawServer;
  let h: Harness;
  let key: string;
  const fetch = makeFetch();

  beforeAll(async () => {
    io = await startRawServer(route);
    h = await createHarness({
      ...(fetch ? { fetch } : {}),
      maxResponseBytes: CAP,
      timeouts: { proxyMs: 5_000, toolMs: 5_000 },
      extraToolkits: () => [
        defineToolkit({
          slug: "io",
          name: "IO",
          description: "Misbehaving upstreams.",
          baseUrl: `${io.origin}/io`,
          auth: bearer(),
          timeoutMs: STALL_MS,
          tools: [readTool("IO_READ")],
        }),
        defineToolkit({
          slug: "iobig",
          name: "IO big",
          description: "Same server, default timeout.",
          baseUrl: `${io.origin}/io`,
          auth: bearer(),
          tools: [readTool("IOBIG_READ")],
        }),
        defineJsonToolkit(
          {
            slug: "ioj",
            name: "IO JSON",
            description: "A declarative tool against the IO server.",
            baseUrl: `${io.origin}/io`,
            auth: { type: "bearer" },
            tools: [
              {
                slug: "IOJ_GET",
                name: "Get",
                description: "GET a path.",
                method: "GET",
                path: "/{path}",
                inputParameters: { type: "object", properties: { path: { type: "string" } }, required: ["path"] },
              },
            ],
          },
          { env: {} },
        ),
      ],
    });
    key = (await h.issueAgentKey("agent-a")).key;
    for (const slug of ["io", "iobig", "ioj"]) await h.connect(key, slug, { token: CREDENTIALS.bearerToken });
  });
  afterAll(async () => {
    h.assertNoLeaks();
    await fetch?.close();
    await Promise.all([h.close(), io.close()]);
  });

  const proxy = (toolkit: string, path: string) =>
    h.call("POST", "/proxy", { key, body: { toolkit, method: "GET", url: `${io.origin}/io/${path}` } });
  const execute = (tool: string, args: Record<string, unknown>) => h.call("POST", "/execute", { key, body: { tool, arguments: args } });

  /** Runs `call` and returns its result with the elapsed time and the peak growth of memory meanwhile. */
  async function measure<T>(call: () => Promise<T>): Promise<{ result: T; ms: number; peakGrowth: number }> {
    const usage = () => process.memoryUsage().rss;
    const baseline = usage();
    let peak = baseline;
    const sampler = setInterval(() => (peak = Math.max(peak, usage())), 5);
    const started = performance.now();
    try {
      const result = await call();
      return { result, ms: performance.now() - started, peakGrowth: Math.max(peak, usage()) - baseline };
    } finally {
      clearInterval(sampler);
    }
  }

  describe("timeouts (the toolkit's timeoutMs)", () => {
    it.each([
      ["an upstream that never answers", "stall-headers"],
      ["headers then a stalled body", "stall-body"],
      ["a body that drips forever", "drip"],
    ])("%s: code timeout after about timeoutMs, and the connection is closed", async (_what, path) => {
      const closedBefore = io.closedSockets();
      const { result, ms } = await measure(() => proxy("io", path));
      expect(result.json).toMatchObject({ successful: false, code: "timeout", retryable: true, data: null, status: null });
      expect(ms).toBeGreaterThanOrEqual(STALL_MS - 20);
      expect(ms).toBeLessThan(STALL_MS + 1_000);
      await waitFor(() => io.closedSockets() > closedBefore);
    });

    it("a tool whose ctx.fetch body stalls fails with code timeout", async () => {
      const closedBefore = io.closedSockets();
      const { result, ms } = await measure(() => execute("IO_READ", { path: "/stall-body" }));
      expect(result.json).toMatchObject({ successful: false, code: "timeout", retryable: true });
      expect(ms).toBeLessThan(STALL_MS + 1_000);
      await waitFor(() => io.closedSockets() > closedBefore);
    });
  });

  describe("the size cap (maxResponseBytes 10 MiB)", () => {
    it.each([
      ["JSON", "forever-json"],
      ["binary, streamed to the blob store", "forever-binary"],
    ])("a 1 GiB chunked %s body stops early with response_too_large", async (_what, path) => {
      const tag = `${path}-${Math.random()}`;
      const closedBefore = io.closedSockets();
      const { result, ms, peakGrowth } = await measure(() => proxy("iobig", `${path}?tag=${tag}`));
      expect(result.json).toMatchObject({
        successful: false,
        code: "response_too_large",
        retryable: false,
        upstreamStatus: 200,
        status: 200,
        data: null,
      });
      expect(result.json.error).toMatch(/larger than 10485760 bytes/);
      await waitFor(() => io.closedSockets() > closedBefore);
      expect(io.written.get(tag)!).toBeGreaterThan(CAP);
      expect(io.written.get(tag)!).toBeLessThan(CAP + 64 * MiB);
      expect(peakGrowth).toBeLessThan(200 * MiB);
      expect(ms).toBeLessThan(5_000);
    });

    it("a declared Content-Length over the cap fails before the body is read", async () => {
      const tag = `declared-${Math.random()}`;
      const closedBefore = io.closedSockets();
      const { result } = await measure(() => proxy("iobig", `declared?tag=${tag}`));
      expect(result.json).toMatchObject({ successful: false, code: "response_too_large", upstreamStatus: 200 });
      await waitFor(() => io.closedSockets() > closedBefore);
      expect(io.written.get(tag) ?? 0).toBeLessThan(CAP);
    });

    it("a binary body under the cap is staged whole, and GET /files gives the same bytes", async () => {
      const size = 3 * MiB + 17;
      const res = await proxy("iobig", `binary?size=${size}&tag=ok`);
      expect(res.json).toMatchObject({ successful: true, status: 200, data: { contentType: "application/octet-stream", size } });
      const file = await h.call("GET", `/files/${res.json.data.stagingKey}`, { key });
      expect(file.bytes.byteLength).toBe(size);
      expect(file.bytes[size - 1]).toBe((size - 1) % 256);
    });

    it("a tool reading a huge body through ctx.fetch fails with response_too_large", async () => {
      const { result, peakGrowth } = await measure(() => execute("IOBIG_READ", { path: "/forever-binary?tag=tool" }));
      expect(result.json).toMatchObject({ successful: false, code: "response_too_large", upstreamStatus: 200 });
      expect(peakGrowth).toBeLessThan(200 * MiB);
      const declared = await execute("IOBIG_READ", { path: "/declared?tag=tool-declared" });
      expect(declared.json).toMatchObject({ successful: false, code: "response_too_large" });
    });
  });

  describe("execute and secrets", () => {
    it("a declarative tool whose upstream echoes the credential in an error body does not leak it", async () => {
      const res = await execute("IOJ_GET", { path: "reflect" });
      expect(res.json).toMatchObject({ successful: false, code: "upstream_error", upstreamStatus: 400 });
      expect(res.text).not.toContain(CREDENTIALS.bearerToken);
      expect(io.requests.at(-1)!.headers.authorization).toBe(`Bearer ${CREDENTIALS.bearerToken}`);
    });
  });
});
