/**
 * Raw bytes from the network through the real Node adapter (`toNodeHandler`) into the handler
 * with a file system blob store: generated methods, request targets (origin, absolute and
 * asterisk form, dot segments, percent-encoded NUL and invalid UTF-8), Host headers, header
 * values, JSON and multipart bodies (odd boundaries, many parts, huge part headers, truncated),
 * some sent in full and some cut off mid-body by a client that goes away.
 *
 * Properties, for every request: an answer (or, for a client that left, none) within a few
 * seconds, never a 500, every answer of the handler in the error format `{ error, code }`, no
 * error logged, no unhandled rejection or exception, no blob or temporary file left behind by a
 * refused upload, and the server still answering afterwards. The seed is fixed: each run sends
 * the same requests.
 */
import { mkdtemp, readdir, rm } from "node:fs/promises";
import { createServer, type Server } from "node:http";
import { type AddressInfo, connect } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { toNodeHandler } from "../../adapters/node.js";
import { filesystemBlobStore } from "../../src/blob/fs.js";
import { createToolsHandler, issueApiKey, memoryStore, type ToolsHandler } from "../../src/index.js";

const BOUNDARY = "fcBoundary7d1";
let server: Server;
let port: number;
let tools: ToolsHandler;
let apiKey: string;
let directory: string;
const logged: unknown[] = [];
const crashes: unknown[] = [];
const onCrash = (error: unknown) => crashes.push(error);

beforeAll(async () => {
  process.on("unhandledRejection", onCrash);
  process.on("uncaughtException", onCrash);
  directory = await mkdtemp(join(tmpdir(), "tp-adapter-prop-"));
  const store = memoryStore();
  tools = createToolsHandler({
    store,
    blobStore: filesystemBlobStore({ directory }),
    secret: "p".repeat(32),
    uploads: { maxBytes: 2048 },
    sweepIntervalMs: 0,
    logger: { error: (message, fields) => logged.push({ message, fields }) },
  });
  apiKey = (await issueApiKey(store, { workspaceId: "ws", agentId: "agent" })).key;
  server = createServer(toNodeHandler(tools));
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  port = (server.address() as AddressInfo).port;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
  await tools.close();
  await rm(directory, { recursive: true, force: true });
  process.off("unhandledRejection", onCrash);
  process.off("uncaughtException", onCrash);
});

interface Exchange {
  /** The raw answer; "" when the server closed without one. */
  answer: string;
  hung: boolean;
}

/** Sends `head` and `body`; with `cutAfter`, only that many body bytes, then the socket is destroyed. */
function exchange(head: Buffer, body: Buffer, cutAfter: number | null): Promise<Exchange> {
  return new Promise((resolve) => {
    const socket = connect(port, "127.0.0.1");
    const chunks: Buffer[] = [];
    const finish = (hung: boolean) => {
      clearTimeout(timer);
      socket.destroy();
      resolve({ answer: Buffer.concat(chunks).toString("latin1"), hung });
    };
    const timer = setTimeout(() => finish(true), 5000);
    socket.on("data", (chunk: Buffer) => chunks.push(chunk));
    socket.on("error", () => {});
    socket.on("close", () => finish(false));
    socket.on("connect", () => {
      if (cutAfter === null) return void socket.write(Buffer.concat([head, body]));
      socket.write(Buffer.concat([head, body.subarray(0, cutAfter)]), () => setTimeout(() => finish(false), 20));
    });
  });
}

const text = (values: string[]) => fc.constantFrom(...values);
const segment = fc.oneof(
  {
    weight: 2,
    arbitrary: text([
      "upload",
      "files",
      "auth",
      "callback",
      "connections",
      "execute",
      "proxy",
      "search",
      "toolkit",
      "openapi.json",
      "..",
      ".",
      "",
      "%2e%2e",
      "%00",
      "%ff",
      "%E0%A4%A",
      "%F0%9F%98%80",
      "stg_AAAAAAAAAAAAAAAAAAAAAA",
      "é",
      "a;b",
      "%2F",
    ]),
  },
  fc.stringMatching(/^[A-Za-z0-9._~%!$&'()*+,;=:@-]{0,40}$/),
);
const query = fc.oneof(
  fc.constant(""),
  text(["?toolkit=%00", "?limit=-1", "?limit=1e309", "?cursor=%ff", "?state=x&error=%00", `?keywords=${"a".repeat(600)}`, "?a=1&a=2"]),
);
const oddTarget = fc.oneof(
  fc.tuple(fc.array(segment, { maxLength: 5 }), query).map(([parts, q]) => `/proxy/tools/${parts.join("/")}${q}`),
  text([
    "*",
    "http://evil.test/proxy/tools/search",
    "//evil.test/proxy/tools/search",
    "/proxy/tools/../../etc/passwd",
    `/${"a".repeat(8000)}`,
  ]),
);
const method = text(["GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS", "PROPFIND", "TRACE", "M-SEARCH", "CONNECT"]);
/** The API's routes, with odd values where they take one. */
const route = fc.oneof(
  fc.constant(["POST", "/proxy/tools/upload"]),
  fc.tuple(
    fc.constant("GET"),
    fc.oneof(segment, fc.stringMatching(/^stg_[A-Za-z0-9_-]{10,140}$/)).map((key) => `/proxy/tools/files/${key}`),
  ),
  fc
    .tuple(fc.constantFrom("GET", "DELETE"), fc.constantFrom("auth", "connections"), segment)
    .map(([m, what, id]) => [m, `/proxy/tools/${what}/${id}`]),
  fc.tuple(fc.constant("GET"), query).map(([m, q]) => [m, `/proxy/tools/auth/callback${q}`]),
  fc
    .tuple(fc.constantFrom("GET", "POST"), fc.constantFrom("search", "connections", "execute", "auth", "proxy", "openapi.json"), query)
    .map(([m, what, q]) => [m, `/proxy/tools/${what}${q}`]),
  fc
    .tuple(fc.constant("GET"), segment, fc.boolean(), query)
    .map(([m, kit, search, q]) => [m, `/proxy/tools/toolkit/${kit}${search ? "/search" : ""}${q}`]),
);
const line = fc.oneof({ weight: 3, arbitrary: route }, { weight: 1, arbitrary: fc.tuple(method, oddTarget) });
const host = fc.oneof(
  { weight: 4, arbitrary: fc.constant("127.0.0.1") },
  text(["example.test:8080", "evil.test/x?", "[::1]", "a:b:c", "", "ex ample", "ÿ"]),
);
const headerValue = fc.oneof(
  fc.stringMatching(/^[\x20-\x7e]{0,60}$/),
  fc.string({ unit: fc.integer({ min: 0x80, max: 0xff }).map((c) => String.fromCharCode(c)), maxLength: 20 }),
);
const auth = fc.oneof(
  { weight: 4, arbitrary: fc.constant("x-api-key: KEY") },
  fc.constant(""),
  text(["x-api-key: pak_wrong", "authorization: Bearer", "authorization: Basic Zm9vOmJhcg==", "x-agent-id: ../../x"]),
);

/** One part of a multipart body: its header lines and its bytes. */
const part = fc.record({
  name: text(["file", "other", "", 'fi"le']),
  filename: fc.option(fc.string({ maxLength: 30 }), { nil: undefined }),
  type: fc.option(text(["image/png", "text/plain", "application/pdf", "///", 'text/plain; charset="x"', "application/octet-stream"]), {
    nil: undefined,
  }),
  extra: fc.option(fc.constantFrom(`X-Big: ${"b".repeat(20_000)}`, "X: y"), { nil: undefined }),
  data: fc.uint8Array({ maxLength: 3000 }),
});
const multipart = fc.tuple(fc.array(part, { maxLength: 12 }), fc.boolean()).map(([parts, closed]) => {
  const pieces: Buffer[] = [];
  for (const p of parts) {
    const lines = [
      `--${BOUNDARY}`,
      `Content-Disposition: form-data; name="${p.name}"${p.filename === undefined ? "" : `; filename="${p.filename}"`}`,
    ];
    if (p.type) lines.push(`Content-Type: ${p.type}`);
    if (p.extra) lines.push(p.extra);
    pieces.push(Buffer.from(`${lines.join("\r\n")}\r\n\r\n`), Buffer.from(p.data), Buffer.from("\r\n"));
  }
  if (closed) pieces.push(Buffer.from(`--${BOUNDARY}--\r\n`));
  return Buffer.concat(pieces);
});
const body = fc.oneof(
  {
    weight: 3,
    arbitrary: fc.record({
      type: text([
        `multipart/form-data; boundary=${BOUNDARY}`,
        "multipart/form-data",
        `multipart/form-data; boundary="${BOUNDARY}"`,
        `multipart/form-data; boundary=${"z".repeat(80)}`,
      ]),
      bytes: multipart,
    }),
  },
  fc.record({
    type: fc.constant("application/json"),
    bytes: fc.oneof(
      fc.json().map((j) => Buffer.from(j)),
      text(['{"tool":"X","arguments":{"file":"stg_\\u0000"}}', '{"toolkit":"\\u0000"}', "{", "[]", "null"]).map((j) => Buffer.from(j)),
    ),
  }),
  fc.record({
    type: text(["text/plain", "", "application/x-www-form-urlencoded"]),
    bytes: fc.uint8Array({ maxLength: 200 }).map((b) => Buffer.from(b)),
  }),
);

const general = fc.record({
  line,
  host,
  auth,
  extra: fc.array(fc.tuple(text(["x-forwarded-host", "accept", "x-custom", "content-encoding", "x-agent-id"]), headerValue), {
    maxLength: 3,
  }),
  body: fc.option(body, { nil: undefined }),
  framing: text(["length", "chunked", "none"]),
  cut: fc.option(fc.nat({ max: 4000 }), { nil: null, freq: 4 }),
});
/** Uploads with a valid key and form type, so that the multipart parser and the blob store see the bodies. */
const upload = fc.record({
  line: fc.constant(["POST", "/proxy/tools/upload"]),
  host: fc.constant("127.0.0.1"),
  auth: fc.constant("x-api-key: KEY"),
  extra: fc.constant([] as Array<[string, string]>),
  body: fc.record({
    type: fc.constant(`multipart/form-data; boundary=${BOUNDARY}`),
    bytes: fc.oneof(
      multipart,
      fc
        .tuple(part, fc.boolean())
        .map(([p, closed]) =>
          Buffer.concat([
            Buffer.from(
              `--${BOUNDARY}\r\nContent-Disposition: form-data; name="file"; filename="${p.filename ?? "f"}"\r\n${p.type ? `Content-Type: ${p.type}\r\n` : ""}\r\n`,
            ),
            Buffer.from(p.data),
            Buffer.from(closed ? `\r\n--${BOUNDARY}--\r\n` : ""),
          ]),
        ),
    ),
  }),
  framing: text(["length", "length", "chunked"]),
  cut: fc.option(fc.nat({ max: 4000 }), { nil: null, freq: 3 }),
});
const request = fc.oneof({ weight: 2, arbitrary: general }, { weight: 1, arbitrary: upload });

type GeneratedRequest = typeof request extends fc.Arbitrary<infer T> ? T : never;

/** The request's bytes: the head, and the body framed as `framing` says. */
function encode(r: GeneratedRequest): { head: Buffer; body: Buffer } {
  const [method, target] = r.line;
  const lines = [`${method} ${target} HTTP/1.1`, `Host: ${r.host}`, "Connection: close"];
  if (r.auth) lines.push(r.auth.replace("KEY", apiKey));
  for (const [name, value] of r.extra) lines.push(`${name}: ${value}`);
  let payload = Buffer.alloc(0);
  if (r.body) {
    if (r.body.type) lines.push(`Content-Type: ${r.body.type}`);
    payload = r.body.bytes;
    if (r.framing === "length") lines.push(`Content-Length: ${payload.byteLength}`);
    if (r.framing === "chunked") {
      lines.push("Transfer-Encoding: chunked");
      payload = Buffer.concat([Buffer.from(`${payload.byteLength.toString(16)}\r\n`), payload, Buffer.from("\r\n0\r\n\r\n")]);
    }
    if (r.framing === "none") payload = Buffer.alloc(0);
  }
  return { head: Buffer.from(`${lines.join("\r\n")}\r\n\r\n`, "latin1"), body: payload };
}

describe("the Node adapter under generated raw requests", () => {
  it("answers every request in time, never with a 500, always in the error format, and logs no failure", async () => {
    await fc.assert(
      fc.asyncProperty(request, async (r) => {
        const { head, body: payload } = encode(r);
        const cut = r.cut !== null && r.cut < payload.byteLength ? r.cut : null;
        const { answer, hung } = await exchange(head, payload, cut);
        expect(hung, "no answer and no close within 5 s").toBe(false);
        if (cut !== null && answer === "") return; // the client left before the answer
        const status = /^HTTP\/1\.1 (\d{3})/.exec(answer)?.[1];
        if (!status) {
          // Node itself refused the request line, or closed a CONNECT nobody listens for.
          expect(answer, "the connection closed without an answer").toBe("");
          return;
        }
        expect(status).not.toBe("500");
        const [headers, ...rest] = answer.split("\r\n\r\n");
        if (Number(status) >= 400 && /content-type: application\/json/i.test(headers!) && r.line[0] !== "HEAD") {
          const text = rest.join("\r\n\r\n");
          const json = /transfer-encoding: chunked/i.test(headers!)
            ? text.replace(/^[0-9a-f]+\r\n|\r\n0\r\n\r\n$|\r\n[0-9a-f]+\r\n/gi, "")
            : text;
          if (json) expect(Object.keys(JSON.parse(json) as object).sort()).toEqual(["code", "error"]);
        }
        expect(logged).toEqual([]);
        expect(crashes).toEqual([]);
      }),
      { numRuns: 1000, seed: 20_260_401 },
    );
  }, 120_000); // about 5 s alone; more on a busy machine

  it("keeps no file from a refused or abandoned upload, and still answers", async () => {
    // An abandoned upload cleans up once its socket's close reaches the handler: wait for it.
    let temporary: string[] = [];
    for (let i = 0; i < 100; i++) {
      temporary = (await readdir(directory)).filter((name) => name.startsWith(".tmp-"));
      if (temporary.length === 0) break;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    expect(temporary).toEqual([]);
    const { answer } = await exchange(
      Buffer.from(`GET /proxy/tools/search HTTP/1.1\r\nHost: 127.0.0.1\r\nx-api-key: ${apiKey}\r\nConnection: close\r\n\r\n`),
      Buffer.alloc(0),
      null,
    );
    expect(answer).toMatch(/^HTTP\/1\.1 200/);
    expect(crashes).toEqual([]);
  });
});
