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
function answer(url: URL, res: ServerResponse): void {
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
    req.on("end", () => answer(new URL(req.url ?? "/", "http://api.invalid"), res));
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

describe("the body as data", () => {
  const json = { a: 1 };
  it.each([
    ["application/json", JSON.stringify(json), json],
    ["Application/JSON; charset=UTF-8", JSON.stringify(json), json],
    ["application/json ; charset=utf-8", JSON.stringify(json), json], // RFC 9110 allows space before ";"
    ["application/problem+json", JSON.stringify(json), json],
    ["application/json", "not json", "not json"],
    [null, "plain words", "plain words"],
    ["text/csv", "a,b", "a,b"],
    ["application/atom+xml", "<feed/>", "<feed/>"],
    ["application/xml", "<a/>", "<a/>"],
    ["application/javascript", "f()", "f()"],
    ["application/x-www-form-urlencoded", "a=1", "a=1"],
    ["application/graphql", "{ a }", "{ a }"],
  ])("%s is data %j", async (type, body, data) => {
    const query = `?body=${encodeURIComponent(body)}${type === null ? "" : `&type=${encodeURIComponent(type)}`}`;
    for (const path of ["/sized", "/chunked"]) {
      expect((await proxy(`${path}${query}`)).json, path).toMatchObject({ successful: true, status: 200, data });
    }
  });

  it.each(["application/json", "text/plain", "application/octet-stream", null])("an empty %s body is null", async (type) => {
    const query = type === null ? "" : `?type=${encodeURIComponent(type)}`;
    for (const path of ["/sized", "/chunked"]) {
      expect((await proxy(`${path}${query}`)).json, path).toMatchObject({ successful: true, status: 200, data: null });
    }
  });

  it("any other type is staged, up to exactly the cap", async () => {
    for (const path of ["/sized", "/chunked"]) {
      const res = await proxy(`${path}?type=application/octet-stream&bytes=${CAP}`);
      expect(res.json, path).toMatchObject({ successful: true, data: { contentType: "application/octet-stream", size: CAP } });
      const file = await h.call("GET", `/files/${res.json.data.stagingKey}`, { key });
      expect(file.text).toBe("a".repeat(CAP));
    }
  });
});

describe("the cap on the proxy's answer", () => {
  it("a body of exactly the cap is read, declared or counted", async () => {
    for (const path of ["/sized", "/chunked"]) {
      expect((await proxy(`${path}?type=text/plain&bytes=${CAP}`)).json, path).toMatchObject({ successful: true, data: "a".repeat(CAP) });
    }
  });

  it("a declared length over the cap fails at once, without waiting for the body", async () => {
    const res = await proxy(`/declared?type=application/json&length=${CAP + 1}`);
    expect(res.json).toEqual({
      data: null,
      error: TOO_LARGE,
      successful: false,
      code: "response_too_large",
      retryable: false,
      upstreamStatus: 200,
      status: 200,
      headers: { "content-type": "application/json", "content-length": String(CAP + 1), date: expect.any(String) },
    });
  });

  it.each(["text/plain", "application/json", "application/octet-stream"])(
    "a %s body counted past the cap fails, and nothing is staged",
    async (type) => {
      const res = await proxy(`/chunked?type=${type}&bytes=${CAP + 1}`);
      expect(res.json).toMatchObject({
        data: null,
        error: TOO_LARGE,
        successful: false,
        code: "response_too_large",
        retryable: false,
        status: 200,
      });
    },
  );

  it("a body that breaks off is upstream_unreachable, retryable", async () => {
    for (const type of ["text/plain", "application/octet-stream"]) {
      const res = await proxy(`/cut?type=${type}&body=partial`);
      expect(res.json, type).toMatchObject({
        data: null,
        error: "The upstream response was cut off.",
        successful: false,
        code: "upstream_unreachable",
        retryable: true,
        upstreamStatus: 200,
        status: 200,
      });
    }
  });

  it("a blob store that is down is a 503 of its own, not an upstream fault", async () => {
    const store = memoryBlobStore();
    const down: BlobStore = {
      put: () => Promise.reject(new StoreUnavailableError("Staged file storage is temporarily unavailable; retry shortly.")),
      get: (k) => store.get(k),
      head: (k) => store.head(k),
      delete: (k) => store.delete(k),
      deleteExpired: (now) => store.deleteExpired(now),
    };
    const other = await createHarness({ blobStore: down, extraToolkits: () => [toolkit()] });
    const as = (await other.issueAgentKey("agent-down")).key;
    await other.connect(as, "answers", { token: CREDENTIALS.bearerToken });
    expectError(await proxy("/sized?type=image/png&body=png", "GET", other, as), 503, "unavailable", /retry shortly/);
    other.assertNoLeaks();
    await other.close();
  });
});

describe("the status and headers", () => {
  it.each([
    [400, null, false, "Upstream answered 400 Bad Request."],
    [404, null, false, "Upstream answered 404 Not Found."],
    [503, "Busy Now", true, "Upstream answered 503 Busy Now."],
    [599, "", false, "Upstream answered 599."],
  ])("%i is an upstream_error", async (status, reason, retryable, error) => {
    const res = await proxy(`/status?code=${status}${reason === null ? "" : `&reason=${encodeURIComponent(reason)}`}`);
    expect(res.json).toEqual({
      data: { status },
      error,
      successful: false,
      code: "upstream_error",
      retryable,
      upstreamStatus: status,
      status,
      headers: expect.objectContaining({ "content-type": "application/json" }),
    });
  });

  it("399 is a success", async () => {
    expect((await proxy("/status?code=399")).json).toMatchObject({ successful: true, error: null, status: 399, data: { status: 399 } });
  });

  it("passes back the metadata headers and the rate-limit ones, never cookies, challenges or others", async () => {
    const res = await proxy("/headers");
    expect(res.json.headers).toEqual({
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
      date: expect.any(String),
      "x-request-id": "req-7",
      "x-ratelimit-limit": "100",
      ratelimit: "limit=100, remaining=9",
      "ratelimit-policy": "100;w=60",
    });
  });
});

describe("the cap on a tool's ctx.fetch", () => {
  it("a body up to the cap reads whole, declared or counted, and the response keeps its URL", async () => {
    for (const path of ["/sized", "/chunked"]) {
      const res = await execute(`${path}?bytes=${CAP}`);
      expect(res.json, path).toMatchObject({ successful: true, data: { status: 200, text: "a".repeat(CAP) } });
    }
    expect((await execute("/moved")).json).toMatchObject({ data: { url: `${origin}/up/sized?body=moved`, text: "moved" } });
  });

  it("an answer without a body (a HEAD) reads as empty", async () => {
    expect((await execute("/large", "HEAD")).json).toMatchObject({ successful: true, data: { status: 200, text: "" } });
  });

  it("a declared length over the cap fails the read at once, and the upstream connection is closed", async () => {
    const path = `/declared?length=${CAP + 1}&tag=${Math.random()}`;
    const res = await execute(path);
    expect(res.json).toEqual({
      data: null,
      error: TOO_LARGE,
      successful: false,
      code: "response_too_large",
      retryable: false,
      upstreamStatus: 200,
    });
    await expect.poll(() => closed.has(`/up${path}`), { timeout: 5_000 }).toBe(true);
  });

  it("a body counted past the cap fails the read", async () => {
    const res = await execute(`/chunked?bytes=${CAP + 1}`);
    expect(res.json).toEqual({
      data: null,
      error: TOO_LARGE,
      successful: false,
      code: "response_too_large",
      retryable: false,
      upstreamStatus: 200,
    });
  });
});
