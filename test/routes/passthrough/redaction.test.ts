/**
 * The passthrough's answer body has the connection's credential masked while it streams: an
 * upstream that echoes the request's headers (as httpbin's `/headers` or a debugging endpoint
 * does) must not hand the bearer token, or a Basic pair's base64, to the agent. A text type gets
 * `[redacted]` and loses the upstream's Content-Length (the headers go out before the body is
 * read); a binary one has the secret's bytes overwritten with `*` in place and keeps its length.
 * Real servers on both sides (`toNodeHandler`, node:http upstream), with the global fetch (every
 * answer streamed) and `createUndiciFetch` (answers up to 64 KiB arrive whole).
 */
import { createServer, request as httpRequest, type Server, type ServerResponse } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createUndiciFetch } from "../../../adapters/node.js";
import { defineToolkit } from "../../../src/index.js";
import { close, listen, startToolsServer, type ToolsServer } from "./servers.js";

const RUN = crypto.randomUUID();
const TOKEN = `pt-tok-${RUN}`;
const PASSWORD = `pt-pwd-${RUN}`;
const BASIC = Buffer.from(`robin:${PASSWORD}`).toString("base64");
const PNG = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 0x0d]);
const LINES = 100_000;

/** Writes `body` in pieces, each after the last one was flushed, so a secret may straddle chunks. */
async function dribble(res: ServerResponse, body: Buffer, piece: number): Promise<void> {
  for (let i = 0; i < body.length; i += piece)
    await new Promise<void>((resolve) => res.write(body.subarray(i, i + piece), () => resolve()));
  res.end();
}

/** The body of each path, made from the request's Authorization. */
function bodyFor(path: string, authorization: string): { type: string; body: Buffer } {
  switch (path) {
    case "/headers":
      return { type: "application/json", body: Buffer.from(JSON.stringify({ headers: { authorization, accept: "*/*" } })) };
    case "/plain":
      return { type: "application/json", body: Buffer.from('{"nothing":"secret"}') };
    case "/image":
      return { type: "image/png", body: Buffer.concat([PNG, Buffer.from(authorization), Buffer.from([0, 0xff])]) };
    case "/lines": {
      const lines = Array.from({ length: LINES }, (_, i) => `{"i":${i},"echo":"${authorization}"}\n`);
      return { type: "application/x-ndjson", body: Buffer.from(lines.join("")) };
    }
    default:
      return { type: "text/plain", body: Buffer.from("not found") };
  }
}

let upstream: Server;
let origin: string;

beforeAll(async () => {
  upstream = createServer((req, res) => {
    const url = new URL(req.url ?? "/", "http://x");
    const { type, body } = bodyFor(url.pathname, req.headers.authorization ?? "");
    req.resume();
    const declared = url.searchParams.has("declared");
    res.writeHead(200, { "content-type": type, ...(declared ? { "content-length": body.length } : {}) });
    if (req.method === "HEAD") return void res.end();
    void dribble(res, body, url.pathname === "/lines" ? 64 * 1024 - 5 : 9);
  });
  origin = await listen(upstream);
});
afterAll(async () => {
  if (upstream) await close(upstream);
});

/** A passthrough request by node:http, so the answer's framing headers are seen as sent. */
function get(tools: ToolsServer, path: string, method = "GET") {
  return new Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: Buffer }>((resolve, reject) => {
    const req = httpRequest(`${tools.passthrough}${path}`, { method, headers: { "x-api-key": tools.key } }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (chunk: Buffer) => chunks.push(chunk));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }));
      res.on("error", reject);
    });
    req.on("error", reject);
    req.end();
  });
}

const fetches = [
  ["the global fetch", () => undefined],
  ["createUndiciFetch", () => createUndiciFetch()],
] as const;

describe.each(fetches)("with %s", (name, makeFetch) => {
  const fetch = makeFetch();
  const whole = name === "createUndiciFetch"; // a declared length of at most 64 KiB arrives whole
  let tools: ToolsServer;

  beforeAll(async () => {
    tools = await startToolsServer(
      [
        defineToolkit({ slug: "echo", name: "Echo", description: "Echoes headers.", baseUrl: origin, auth: { type: "bearer" }, tools: [] }),
        defineToolkit({
          slug: "echob",
          name: "Echo B",
          description: "Echoes headers.",
          baseUrl: origin,
          auth: { type: "basic" },
          tools: [],
        }),
      ],
      fetch ? { fetch } : {},
    );
    await tools.connect({ toolkit: "echo", credentials: { token: TOKEN } });
    await tools.connect({ toolkit: "echob", credentials: { username: "robin", password: PASSWORD } });
  });
  afterAll(async () => {
    await tools?.close();
    await fetch?.close();
  });

  it("a JSON answer echoing the bearer token has it as [redacted], and a Content-Length that fits what is sent, or none", async () => {
    for (const query of ["", "?declared"]) {
      const res = await get(tools, `/echo/headers${query}`);
      expect(res.status).toBe(200);
      expect(JSON.parse(res.body.toString())).toEqual({ headers: { authorization: "Bearer [redacted]", accept: "*/*" } });
      if (whole && query) expect(res.headers["content-length"]).toBe(String(res.body.length));
      else expect(res.headers["content-length"]).toBeUndefined();
    }
  });

  it("a Basic pair echoed as its base64 is masked", async () => {
    const res = await get(tools, "/echob/headers?declared");
    expect(JSON.parse(res.body.toString())).toEqual({ headers: { authorization: "Basic [redacted]", accept: "*/*" } });
    expect(res.body.toString()).not.toContain(BASIC);
  });

  it("a binary answer has the token's bytes overwritten with * and keeps its declared length", async () => {
    const res = await get(tools, "/echo/image?declared");
    const sent = bodyFor("/image", `Bearer ${TOKEN}`).body;
    expect(res.headers["content-length"]).toBe(String(sent.length));
    expect(res.body.toString("latin1")).toBe(sent.toString("latin1").replace(TOKEN, "*".repeat(TOKEN.length)));
  });

  it("a text answer without a secret is passed on byte for byte", async () => {
    const res = await get(tools, "/echo/plain?declared");
    expect(res.body.toString()).toBe('{"nothing":"secret"}');
  });

  it("HEAD keeps the upstream's Content-Length: there is no body to change", async () => {
    const res = await get(tools, "/echo/headers?declared", "HEAD");
    expect(res.status).toBe(200);
    expect(Number(res.headers["content-length"])).toBeGreaterThan(0);
    expect(res.body.length).toBe(0);
  });

  it("100,000 JSON lines, each with the token, sent in chunks of 64 KiB less 5 bytes, stream with every one masked", {
    timeout: 60_000,
  }, async () => {
    const res = await get(tools, "/echo/lines?declared");
    expect(res.headers["content-length"]).toBeUndefined();
    expect(res.headers["transfer-encoding"]).toBe("chunked");
    const text = res.body.toString();
    expect(text).not.toContain(TOKEN);
    expect(text).toBe(bodyFor("/lines", "Bearer [redacted]").body.toString());
  });
});
