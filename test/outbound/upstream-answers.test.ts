/**
 * How an upstream answer becomes a result, against a real upstream and a small response cap
 * (64 bytes): each content type as JSON, text or a staged file, empty bodies, bodies with no body
 * at all (HEAD, 304) whatever length they declare, the cap on declared and counted sizes (for
 * the proxy and for a tool's ctx.fetch), a body that breaks off, the error sentence, the headers
 * passed back, and a blob store that is down.
 */
import { createServer, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import {
  type BlobStore,
  bearer,
  defineTool,
  defineToolkit,
  memoryBlobStore,
  StoreUnavailableError,
  type Toolkit,
} from "../../src/index.js";
import { CREDENTIALS, createHarness, expectError, type Harness } from "../support/harness.js";

const CAP = 64;
const TOO_LARGE = `The upstream response is larger than ${CAP} bytes.`;

let api: Server;
let origin: string;
/** Upstream answers whose connection has closed, by request URL. */
const closed = new Set<string>();
let h: Harness;
let key: string;

/** The API. `type` is the Content-Type (none when absent), `bytes` a body of that many "a"s. */
function answer(method: string, url: URL, res: ServerResponse): void {
  const type = url.searchParams.get("type");
  const typed = type === null ? {} : { "content-type": type };
  const body = url.searchParams.get("body") ?? "a".repeat(Number(url.searchParams.get("bytes") ?? 0));
  switch (url.pathname) {
    case "/up/sized": // with its Content-Length
      return void res.writeHead(200, { ...typed, "content-length": String(Buffer.byteLength(body)) }).end(body);
    case "/up/chunked": // without one
      res.writeHead(200, typed);
      if (body) res.write(body);
      return void res.end();
    case "/up/declared": // declares a length, then sends nothing until the client gives up
      res.writeHead(200, { ...typed, "content-length": url.searchParams.get("length") ?? "1000" });
      return void res.flushHeaders();
    case "/up/cut": // starts a body, then the connection drops
      res.writeHead(200, typed);
      res.write(body);
      return void setTimeout(() => res.destroy(), 20);
    case "/up/large": // the length of a large representation, without it (a HEAD, a 304)
      return void res.writeHead(Number(url.searchParams.get("status") ?? 200), { ...typed, "content-length": "1000000000" }).end();
    case "/up/status": {
      const status = Number(url.searchParams.get("code"));
      const reason = url.searchParams.get("reason");
      const headers = { "content-type": "application/json" };
      if (reason === null) res.writeHead(status, headers);
      else res.writeHead(status, reason, headers);
      return void res.end(JSON.stringify({ status }));
    }
    case "/up/headers":
      return void res
        .writeHead(200, {
          "content-type": "text/plain",
          "content-length": "2",
          "content-language": "en",
          "content-disposition": 'attachment; filename="a.txt"',
          etag: '"e1"',
          "last-modified": "Tue, 01 Jul 2025 10:00:00 GMT",
          "cache-control": "no-cache",
          location: "/up/elsewhere",
          link: '</up/next>; rel="next"',
          "retry-after": "3",
          "x-request-id": "req-7",
          "x-ratelimit-limit": "100",
          ratelimit: "limit=100, remaining=9",
          "ratelimit-policy": "100;w=60",
          "set-cookie": "session=upstream",
          "www-authenticate": "Bearer",
          "x-powered-by": "upstream",
        })
        .end("ok");
    case "/up/moved":
      return void res.writeHead(302, { location: "/up/sized?body=moved" }).end();
  }
  res.writeHead(404).end();
}

const read = defineTool({
  slug: "ANSWERS_READ",
  name: "Read",
  description: "Reads one answer through ctx.fetch.",
  input: z.object({ path: z.string(), method: z.string().default("GET") }),
  run: async (args, ctx) => {
    const response = await ctx.fetch(`${origin}/up${args.path}`, { method: args.method });
    return { status: response.status, url: response.url, text: await response.text() };
  },
});

const toolkit = (): Toolkit =>
  defineToolkit({
    slug: "answers",
    name: "Answers",
    description: "An API that answers in every way.",
    baseUrl: `${origin}/up`,
    auth: bearer(),
    tools: [read],
  });

beforeAll(async () => {
  api = createServer((req, res) => {
    req.resume();
    req.on("end", () => answer(req.method ?? "", new URL(req.url ?? "/", "http://api.invalid"), res));
    res.on("close", () => closed.add(req.url ?? ""));
  });
  await new Promise<void>((resolve) => api.listen(0, "127.0.0.1", resolve));
  origin = `http://127.0.0.1:${(api.address() as AddressInfo).port}`;
  h = await createHarness({ maxResponseBytes: CAP, uploads: { ttlMs: 60_000 }, extraToolkits: () => [toolkit()] });
  key = (await h.issueAgentKey("agent-answers")).key;
  await h.connect(key, "answers", { token: CREDENTIALS.bearerToken });
});
afterAll(async () => {
  h.assertNoLeaks();
  api.closeAllConnections();
  await Promise.all([h.close(), new Promise((resolve) => api.close(resolve))]);
});

const proxy = (path: string, method = "GET", harness = h, as = key) =>
  harness.call("POST", "/proxy", { key: as, body: { toolkit: "answers", method, url: `${origin}/up${path}` } });
const execute = (path: string, method = "GET") =>
  h.call("POST", "/execute", { key, body: { tool: "ANSWERS_READ", arguments: { path, method } } });

describe("answers without a body", () => {
  it("a 304 that declares the length of a large representation is a success with null data", async () => {
    // RFC 9110 lets a 304 carry the Content-Length the 200 would have had; it has no body.
    expect((await proxy("/large?status=304&type=application/json")).json).toMatchObject({
      successful: true,
      status: 304,
      data: null,
      error: null,
      headers: { "content-length": "1000000000", "content-type": "application/json" },
    });
    expect((await proxy("/large?status=304")).json).toMatchObject({ successful: true, status: 304, data: null });
  });
});
