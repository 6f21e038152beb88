/**
 * The credentialed fetch as a tool and the proxy use it, checked at a real upstream: the caller's
 * headers in each form fetch accepts, the method, redirects (which hop keeps the body, which turns
 * into a GET, which come back unfollowed), one refresh and retry after an OAuth 401, retries of an
 * idempotent call, the tool's own abort signal, and the length of a staged file sent as the body.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { type BlobStore, bearer, defineTool, defineToolkit, memoryBlobStore, none, oauth2, type Toolkit } from "../../src/index.js";
import { CREDENTIALS, createHarness, type Harness, multipart } from "../support/harness.js";

const RUN = Math.random().toString(36).slice(2, 10);

/** One request the API received. */
interface Received {
  method: string;
  url: string;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

let api: Server;
let origin: string;
const received: Received[] = [];
const tokenRequests: string[] = [];
/** Access tokens `/api/guarded` accepts. */
const valid = new Set<string>();
/** Resolves the waiter of a `/api/hang` request once it has arrived. */
let hangArrived: (() => void) | undefined;
let issued = 0;

let h: Harness;
let key: string;
/** The headers of each request the handler gave its fetch (a user's own fetch sees them too). */
const handedToFetch: Array<{ url: string; method: string; headers: Headers }> = [];
const recordingFetch: typeof fetch = (input, init) => {
  handedToFetch.push({ url: String(input), method: init?.method ?? "GET", headers: new Headers(init?.headers) });
  return fetch(input, init);
};

/** The API: each request is recorded with its body before it is answered. */
function answer(request: Received, res: import("node:http").ServerResponse): void {
  const url = new URL(request.url, "http://api.invalid");
  const path = url.pathname;
  if (path === "/token") {
    tokenRequests.push(new URLSearchParams(request.body).get("grant_type") ?? "");
    const accessToken = `fresh-${RUN}-${++issued}-abcdefgh`;
    h.addSecret(accessToken);
    valid.add(accessToken);
    res.writeHead(200, { "content-type": "application/json", "cache-control": "no-store" });
    return void res.end(JSON.stringify({ access_token: accessToken, token_type: "Bearer", expires_in: 3600 }));
  }
  const redirect = /^\/api\/redirect\/(\d{3})$/.exec(path);
  if (redirect) return void res.writeHead(Number(redirect[1]), { location: url.searchParams.get("to") ?? "/api/echo" }).end("moved");
  if (path === "/api/guarded" || path === "/api/refused") {
    const ok = path === "/api/guarded" && valid.has(String(request.headers.authorization).replace(/^Bearer /, ""));
    return void res.writeHead(ok ? 200 : 401, { "content-type": "application/json" }).end(JSON.stringify({ ok }));
  }
  if (path.startsWith("/api/flaky/")) {
    const first = received.filter((r) => r.url === request.url).length === 1;
    return void res.writeHead(first ? 503 : 200, { "content-type": "text/plain" }).end(first ? "busy" : "done");
  }
  if (path === "/api/hang") return hangArrived?.(); // never answered; the server closes it at the end
  res.writeHead(200, { "content-type": "text/plain" }).end(`${request.method} ${path}`);
}

const call = defineTool({
  slug: "HOPS_CALL",
  name: "Call",
  description: "Sends one request through ctx.fetch and reports the answer.",
  input: z.object({
    path: z.string(),
    method: z.string().optional(),
    body: z.string().optional(),
    stream: z.boolean().default(false),
    headers: z.record(z.string(), z.string()).default({}),
    headersAs: z.enum(["record", "headers", "pairs"]).default("record"),
  }),
  run: async (args, ctx) => {
    const headers =
      args.headersAs === "headers" ? new Headers(args.headers) : args.headersAs === "pairs" ? Object.entries(args.headers) : args.headers;
    const body = args.body === undefined ? undefined : args.stream ? new Blob([args.body]).stream() : args.body;
    const response = await ctx.fetch(`${origin}/api${args.path}`, { headers, ...(args.method ? { method: args.method } : {}), body });
    return { status: response.status, location: response.headers.get("location"), text: await response.text() };
  },
});

const abortable = defineTool({
  slug: "HOPS_ABORT",
  name: "Abort",
  description: "Sends a request with its own abort signal and aborts it once the API has it.",
  input: z.object({}),
  run: async (_args, ctx) => {
    const controller = new AbortController();
    const arrived = new Promise<void>((resolve) => {
      hangArrived = resolve;
    });
    const pending = ctx.fetch(`${origin}/api/hang`, { signal: controller.signal });
    await arrived;
    controller.abort();
    return pending.then(
      (response) => ({ aborted: false, status: response.status }),
      (error: unknown) => ({ aborted: true, name: (error as Error).name }),
    );
  },
});

function toolkits(): Toolkit[] {
  return [
    defineToolkit({
      slug: "hops",
      name: "Hops",
      description: "An API that redirects and refuses.",
      baseUrl: `${origin}/api`,
      auth: bearer(),
      tools: [call, abortable],
    }),
    defineToolkit({
      slug: "hopsauth",
      name: "Hops OAuth",
      description: "The same API behind OAuth.",
      baseUrl: `${origin}/api`,
      auth: oauth2({
        authorizationUrl: `${origin}/authorize`,
        tokenUrl: `${origin}/token`,
        clientId: "hops-client",
        clientSecret: `hops-client-secret-${RUN}`,
      }),
      tools: [{ ...call, slug: "HOPSAUTH_CALL" }],
    }),
    defineToolkit({
      slug: "hopsopen",
      name: "Hops open",
      description: "The same API without a credential, retrying busy answers.",
      baseUrl: `${origin}/api`,
      auth: none(),
      retries: { max: 2, baseDelayMs: 1, maxDelayMs: 5 },
      tools: [{ ...call, slug: "HOPSOPEN_CALL" }],
    }),
  ];
}

beforeAll(async () => {
  api = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      const request = { method: req.method ?? "", url: req.url ?? "", headers: req.headers, body: Buffer.concat(chunks).toString() };
      if (request.url !== "/token") received.push(request);
      answer(request, res);
    });
  });
  await new Promise<void>((resolve) => api.listen(0, "127.0.0.1", resolve));
  origin = `http://127.0.0.1:${(api.address() as AddressInfo).port}`;
  h = await createHarness({ fetch: recordingFetch, uploads: { ttlMs: 60_000 }, extraToolkits: toolkits });
  key = (await h.issueAgentKey("agent-hops")).key;
  await h.connect(key, "hops", { token: CREDENTIALS.bearerToken });
});
afterAll(async () => {
  h.assertNoLeaks();
  api.closeAllConnections();
  await Promise.all([h.close(), new Promise((resolve) => api.close(resolve))]);
});

/** Runs a tool and returns its data, failing with the whole answer when the call failed. */
async function run(tool: string, args: Record<string, unknown>) {
  const res = await h.call("POST", "/execute", { key, body: { tool, arguments: args } });
  expect(res.json.successful, res.text).toBe(true);
  return res.json.data as { status: number; location: string | null; text: string };
}
/** The requests the API received while `action` ran. */
async function during(action: () => Promise<unknown>): Promise<Received[]> {
  const mark = received.length;
  await action();
  return received.slice(mark);
}

describe("the caller's request", () => {
  it.each(["record", "headers", "pairs"])("headers given as %s reach the API, with the credential", async (headersAs) => {
    const [sent] = await during(() =>
      run("HOPS_CALL", { path: "/echo", headers: { "X-Custom": "kept", Accept: "text/plain" }, headersAs }),
    );
    expect(sent!.headers["x-custom"]).toBe("kept");
    expect(sent!.headers.accept).toBe("text/plain");
    expect(sent!.headers.authorization).toBe(`Bearer ${CREDENTIALS.bearerToken}`);
  });

  it.each(["record", "pairs"])(
    "a header value with a line break, given as %s, is refused with the header sentence and nothing is sent",
    async (headersAs) => {
      const sent = await during(async () => {
        const res = await h.call("POST", "/execute", {
          key,
          body: { tool: "HOPS_CALL", arguments: { path: "/echo", headers: { "X-Custom": "a\r\nX-Injected: 1" }, headersAs } },
        });
        expect(res.json, res.text).toMatchObject({ successful: false });
        expect(JSON.stringify(res.json), res.text).toContain('Header \\"X-Custom\\" has an invalid name, or a line break');
      });
      expect(sent).toEqual([]);
    },
  );

  it("a method in lowercase goes out in uppercase", async () => {
    const [sent] = await during(() => run("HOPS_CALL", { path: "/echo", method: "patch", body: "change" }));
    expect(sent).toMatchObject({ method: "PATCH", body: "change" });
  });

  it("the tool's own abort signal aborts the call", async () => {
    const res = await h.call("POST", "/execute", { key, body: { tool: "HOPS_ABORT", arguments: {} } });
    expect(res.json).toMatchObject({ successful: true, data: { aborted: true, name: "AbortError" } });
  });
});

describe("redirects", () => {
  it.each([301, 302, 303])("a POST answered %i is followed as a GET without the body or its headers", async (code) => {
    const hops = await during(async () => {
      const data = await run("HOPS_CALL", {
        path: `/redirect/${code}`,
        method: "POST",
        body: '{"a":1}',
        headers: { "content-type": "application/json" },
      });
      expect(data).toMatchObject({ status: 200, text: "GET /api/echo" });
    });
    expect(hops.map((r) => [r.method, r.url, r.body])).toEqual([
      ["POST", `/api/redirect/${code}`, '{"a":1}'],
      ["GET", "/api/echo", ""],
    ]);
    expect(hops[1]!.headers["content-type"]).toBeUndefined();
    expect(hops[1]!.headers["content-length"]).toBeUndefined();
    expect(hops[1]!.headers.authorization).toBe(`Bearer ${CREDENTIALS.bearerToken}`);
  });

  it.each([307, 308])("a POST answered %i is sent again as the same POST", async (code) => {
    const hops = await during(async () => {
      const data = await run("HOPS_CALL", {
        path: `/redirect/${code}`,
        method: "POST",
        body: '{"a":1}',
        headers: { "content-type": "application/json" },
      });
      expect(data).toMatchObject({ status: 200, text: "POST /api/echo" });
    });
    expect(hops.map((r) => [r.method, r.url, r.body, r.headers["content-type"]])).toEqual([
      ["POST", `/api/redirect/${code}`, '{"a":1}', "application/json"],
      ["POST", "/api/echo", '{"a":1}', "application/json"],
    ]);
  });

  it("a HEAD stays a HEAD, and a GET keeps every header it had", async () => {
    const heads = await during(() => run("HOPS_CALL", { path: "/redirect/302", method: "HEAD" }));
    expect(heads.map((r) => [r.method, r.url])).toEqual([
      ["HEAD", "/api/redirect/302"],
      ["HEAD", "/api/echo"],
    ]);
    const gets = await during(() =>
      run("HOPS_CALL", { path: "/redirect/302", headers: { "Content-Type": "application/json", "X-Custom": "kept" } }),
    );
    expect(gets.map((r) => [r.method, r.headers["content-type"], r.headers["x-custom"]])).toEqual([
      ["GET", "application/json", "kept"],
      ["GET", "application/json", "kept"],
    ]);
  });

  it("a streamed body is not sent twice: a 307 comes back unfollowed, a 303 is followed as a GET", async () => {
    const kept = await during(async () => {
      expect(await run("HOPS_CALL", { path: "/redirect/307", method: "POST", body: "streamed", stream: true })).toMatchObject({
        status: 307,
        location: "/api/echo",
      });
    });
    expect(kept.map((r) => [r.method, r.url, r.body])).toEqual([["POST", "/api/redirect/307", "streamed"]]);
    const changed = await during(async () => {
      expect(await run("HOPS_CALL", { path: "/redirect/303", method: "POST", body: "streamed", stream: true })).toMatchObject({
        status: 200,
        text: "GET /api/echo",
      });
    });
    expect(changed.map((r) => [r.method, r.url, r.body])).toEqual([
      ["POST", "/api/redirect/303", "streamed"],
      ["GET", "/api/echo", ""],
    ]);
  });
});

describe("after a 401", () => {
  let connectionId: string;
  const stale = `stale-${RUN}-abcdefgh`;
  beforeAll(async () => {
    h.addSecret(stale);
    connectionId = await h.insertConnection({
      agentId: "agent-hops",
      toolkit: "hopsauth",
      credential: { type: "oauth2", accessToken: stale, refreshToken: `refresh-${RUN}-abcdefgh`, tokenType: "Bearer" },
    });
  });
  /** The API's view of each call: the token it got and what it answered, from the stale one on. */
  const tokens = (requests: Received[]) =>
    requests.map((r) => [r.method, String(r.headers.authorization).replace(/^Bearer /, "") === stale ? "stale" : "fresh", r.body]);

  it("an OAuth call is refreshed once and sent again, body and all", async () => {
    valid.clear();
    const mark = tokenRequests.length;
    const hops = await during(async () => {
      const data = await run("HOPSAUTH_CALL", { path: "/guarded", method: "POST", body: "again" });
      expect(data).toMatchObject({ status: 200, text: '{"ok":true}' });
    });
    expect(tokens(hops)).toEqual([
      ["POST", "stale", "again"],
      ["POST", "fresh", "again"],
    ]);
    expect(tokenRequests.slice(mark)).toEqual(["refresh_token"]);
    expect(connectionId).toMatch(/^conn_/);
  });

  it("a HEAD answered 401 (no body) is refreshed and sent again too", async () => {
    valid.clear();
    const hops = await during(async () =>
      expect(await run("HOPSAUTH_CALL", { path: "/guarded", method: "HEAD" })).toMatchObject({ status: 200 }),
    );
    expect(hops.map((r) => r.method)).toEqual(["HEAD", "HEAD"]);
    expect(String(hops[1]!.headers.authorization)).toMatch(/^Bearer fresh-/);
  });

  it("a second 401 is the answer: one refresh, two requests", async () => {
    const mark = tokenRequests.length;
    const hops = await during(async () => expect(await run("HOPSAUTH_CALL", { path: "/refused" })).toMatchObject({ status: 401 }));
    expect(hops).toHaveLength(2);
    expect(tokenRequests.length - mark).toBe(1);
  });

  it("a streamed body is not refreshed for: the 401 is the answer", async () => {
    const mark = tokenRequests.length;
    const hops = await during(async () => {
      expect(await run("HOPSAUTH_CALL", { path: "/refused", method: "POST", body: "once", stream: true })).toMatchObject({ status: 401 });
    });
    expect(hops.map((r) => [r.method, r.body])).toEqual([["POST", "once"]]);
    expect(tokenRequests.length).toBe(mark);
  });

  it("a 401 to a bearer token or to a call without a credential is the answer, with nothing refreshed", async () => {
    const mark = tokenRequests.length;
    const hops = await during(async () => {
      expect(await run("HOPS_CALL", { path: "/refused" })).toMatchObject({ status: 401 });
      expect(await run("HOPSOPEN_CALL", { path: "/refused" })).toMatchObject({ status: 401 });
    });
    expect(hops).toHaveLength(2);
    expect(tokenRequests.length).toBe(mark);
  });
});

describe("retries and staged bodies", () => {
  it("an idempotent call answered 503 is retried per the toolkit's retries", async () => {
    const tag = `retry-${RUN}`;
    const hops = await during(async () =>
      expect(await run("HOPSOPEN_CALL", { path: `/flaky/${tag}` })).toMatchObject({ status: 200, text: "done" }),
    );
    expect(hops.map((r) => r.url)).toEqual([`/api/flaky/${tag}`, `/api/flaky/${tag}`]);
  });

  it("a staged file goes with its length, an empty one with 0, and a 303 after it is a GET without them", async () => {
    const upload = async (bytes: Uint8Array) => {
      const res = await h.call("POST", "/upload", { key, rawBody: multipart(bytes as BlobPart, "text/plain", "body.txt") });
      expect(res.status, res.text).toBe(200);
      return res.json.stagingKey as string;
    };
    const proxy = (path: string, bodyFile: string) =>
      h.call("POST", "/proxy", { key, body: { toolkit: "hops", method: "POST", url: `${origin}/api${path}`, bodyFile } });
    const words = await upload(new TextEncoder().encode("staged words"));
    const empty = await upload(new Uint8Array(0));

    const mark = handedToFetch.length;
    const sent = await during(async () => {
      expect((await proxy("/echo", words)).json).toMatchObject({ successful: true, status: 200 });
      expect((await proxy("/echo", empty)).json).toMatchObject({ successful: true, status: 200 });
    });
    expect(sent.map((r) => [r.body, r.headers["content-length"], r.headers["transfer-encoding"]])).toEqual([
      ["staged words", "12", undefined],
      ["", "0", undefined],
    ]);
    // Node's fetch measures an empty stream itself; a fetch that does not would send it chunked.
    expect(handedToFetch.slice(mark).map((r) => r.headers.get("content-length"))).toEqual(["12", "0"]);

    const hops = await during(async () =>
      expect((await proxy("/redirect/303", words)).json).toMatchObject({ status: 200, data: "GET /api/echo" }),
    );
    expect(hops.map((r) => [r.method, r.body, r.headers["content-length"], r.headers["content-type"]])).toEqual([
      ["POST", "staged words", "12", "text/plain"],
      ["GET", "", undefined, undefined],
    ]);
    expect(handedToFetch.slice(-2).map((r) => [r.method, r.headers.get("content-length"), r.headers.get("content-type")])).toEqual([
      ["POST", "12", "text/plain"],
      ["GET", null, null],
    ]);
  });

  it.each([Number.NaN, -1, 1.5])(
    "a staged file whose store reports size %d goes chunked, not with a Content-Length fetch refuses",
    async (size) => {
      // A blob store that does not know the size of what it stored (or gets it wrong) reports this.
      const store = memoryBlobStore();
      const sizeless: BlobStore = {
        put: (k, body, options) => store.put(k, body, options),
        head: (k) => store.head(k),
        delete: (k) => store.delete(k),
        deleteExpired: (now) => store.deleteExpired(now),
        get: async (k) => {
          const blob = await store.get(k);
          return blob && { ...blob, size };
        },
      };
      const other = await createHarness({ blobStore: sizeless, extraToolkits: toolkits });
      const as = (await other.issueAgentKey("agent-sizeless")).key;
      await other.connect(as, "hops", { token: CREDENTIALS.bearerToken });
      const upload = await other.call("POST", "/upload", { key: as, rawBody: multipart("no size", "text/plain", "body.txt") });
      const sent = await during(async () => {
        const res = await other.call("POST", "/proxy", {
          key: as,
          body: { toolkit: "hops", method: "PUT", url: `${origin}/api/echo`, bodyFile: upload.json.stagingKey },
        });
        expect(res.json).toMatchObject({ successful: true, status: 200, data: "PUT /api/echo" });
      });
      expect(sent.map((r) => [r.body, r.headers["content-length"], r.headers["transfer-encoding"]])).toEqual([
        ["no size", undefined, "chunked"],
      ]);
      other.assertNoLeaks();
      await other.close();
    },
  );
});
