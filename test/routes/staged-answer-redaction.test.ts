/**
 * An answer that is staged rather than read into data (any type but JSON and plain text) never
 * reaches the agent with the connection's credential in it, through `GET /files/{key}`: an
 * upstream on a real node:http server echoes the `Authorization` it got, in every spelling the
 * connection's secret can take (raw, percent-encoded, a Basic pair's base64), in bodies of the
 * types the review named. Text types, and text labelled `application/octet-stream`, have it
 * replaced with `[redacted]`; a binary body has its bytes overwritten with `*` in place, its length
 * kept. The secret is written a few bytes at a time, so it may straddle chunks. Run with the global
 * fetch (every answer streamed) and `createUndiciFetch` (small answers arrive whole).
 */
import { createServer, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { createUndiciFetch } from "../../adapters/node.js";
import { defineJsonToolkit, defineTool, defineToolkit } from "../../src/index.js";
import { createHarness, type Harness } from "../support/harness.js";

const RUN = Math.random().toString(36).slice(2, 10);
/** A token whose percent-encoded and form-encoded spellings differ from it. */
const TOKEN = `stg/tok+${RUN}=a b`;
const USER = "robin";
const PASSWORD = `stg-pwd-${RUN}-0123`;
const BASIC = Buffer.from(`${USER}:${PASSWORD}`).toString("base64");
const PNG = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 0x0d, 0x49, 0x48, 0x44, 0x52]);

/** The secret the upstream received, in each spelling it echoes. */
function echoed(authorization: string): string {
  const [scheme, value = ""] = authorization.split(/ (.*)/s);
  const secret = scheme === "Basic" ? value : value;
  return `raw=${secret};uri=${encodeURIComponent(secret)};form=${new URLSearchParams([["", secret]]).toString().slice(1)};header=${authorization}`;
}

/** The body of each type, with the echo in it. */
const bodies: Record<string, (echo: string) => Buffer> = {
  "application/octet-stream": (echo) => Buffer.from(JSON.stringify({ received: echo })),
  "application/x-ndjson": (echo) => Buffer.from(`{"n":1}\n${JSON.stringify({ received: echo })}\n`),
  "multipart/mixed; boundary=b0": (echo) => Buffer.from(`--b0\r\ncontent-type: text/plain\r\n\r\n${echo}\r\n--b0--\r\n`),
  "message/http": (echo) => Buffer.from(`GET /v1/me HTTP/1.1\r\nhost: api.test\r\nx-echo: ${echo}\r\n\r\n`),
  "image/png": (echo) => Buffer.concat([PNG, Buffer.from(echo), Buffer.from([0, 0xff, 0x10])]),
  "application/pdf": (echo) =>
    Buffer.concat([Buffer.from("%PDF-1.7\n%\xe2\xe3\xcf\xd3\n", "latin1"), Buffer.from(`(${echo})`), Buffer.from([0, 1])]),
};
const TEXT_TYPES = ["application/octet-stream", "application/x-ndjson", "multipart/mixed; boundary=b0", "message/http"];
const BINARY_TYPES = ["image/png", "application/pdf"];

/** Writes `body` a few bytes at a time, each write after the last one was flushed, so a secret may straddle chunks. */
async function dribble(res: ServerResponse, body: Buffer): Promise<void> {
  for (let i = 0; i < body.length; i += 7) {
    await new Promise<void>((resolve) => res.write(body.subarray(i, i + 7), () => resolve()));
  }
  res.end();
}

let upstream: Server;
let origin: string;
let h: Harness;
let key: string;
const fetches = [
  ["the global fetch", () => undefined],
  ["createUndiciFetch", () => createUndiciFetch()],
] as const;

beforeAll(async () => {
  upstream = createServer((req, res) => {
    const url = new URL(req.url ?? "/", "http://x");
    const type = url.searchParams.get("type") ?? "application/octet-stream";
    const body = bodies[type]!(echoed(req.headers.authorization ?? ""));
    req.resume();
    if (url.searchParams.has("whole")) return void res.writeHead(200, { "content-type": type, "content-length": body.length }).end(body);
    res.writeHead(200, { "content-type": type });
    void dribble(res, body);
  });
  await new Promise<void>((resolve) => upstream.listen(0, "127.0.0.1", resolve));
  origin = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await new Promise((resolve) => upstream.close(resolve));
});

describe.each(fetches)("with %s", (_name, makeFetch) => {
  const fetch = makeFetch();
  beforeAll(async () => {
    h = await createHarness({
      ...(fetch ? { fetch } : {}),
      extraToolkits: () => [
        defineToolkit({
          slug: "echo",
          name: "Echo",
          description: "Echoes its credential.",
          baseUrl: origin,
          auth: { type: "bearer" },
          tools: [],
        }),
        defineToolkit({
          slug: "echob",
          name: "Echo Basic",
          description: "Echoes its Basic credential.",
          baseUrl: origin,
          auth: { type: "basic" },
          tools: [
            defineTool({
              slug: "ECHOB_STAGE",
              name: "Stage",
              description: "Stages the upstream's answer itself.",
              input: z.object({ type: z.string() }),
              run: async (args, ctx) => {
                const response = await ctx.fetch(`/echo?type=${encodeURIComponent(args.type)}`);
                return ctx.files.stage(response.body!, { contentType: args.type });
              },
            }),
          ],
        }),
        defineJsonToolkit(
          {
            slug: "echoj",
            name: "Echo JSON",
            description: "A declared tool against the echo server.",
            baseUrl: origin,
            auth: { type: "bearer" },
            tools: [
              {
                slug: "ECHOJ_GET",
                name: "Get",
                description: "GET /echo with a type.",
                method: "GET",
                path: "/echo",
                inputParameters: { type: "object", properties: { type: { type: "string" } }, required: ["type"] },
                request: { parameters: [{ name: "type", in: "query" }], response: "auto" },
              },
            ],
          },
          { env: {} },
        ),
      ],
    });
    key = (await h.issueAgentKey("agent-stage")).key;
    for (const slug of ["echo", "echoj"]) await h.connect(key, slug, { token: TOKEN });
    await h.connect(key, "echob", { username: USER, password: PASSWORD });
    for (const secret of [TOKEN, PASSWORD, BASIC]) {
      h.addSecret(encodeURIComponent(secret));
      h.addSecret(new URLSearchParams([["", secret]]).toString().slice(1));
    }
    h.addSecret(BASIC);
  });
  afterAll(async () => {
    h.assertNoLeaks();
    await fetch?.close();
    await h.close();
  });

  /** The staged file of an ExecutionResult whose data is a staged file, as GET /files gives it. */
  async function download(result: { successful: boolean; data: { stagingKey: string; size: number } }) {
    expect(result, JSON.stringify(result)).toMatchObject({ successful: true, data: { stagingKey: expect.any(String) } });
    const file = await h.call("GET", `/files/${result.data.stagingKey}`, { key });
    expect(file.status).toBe(200);
    expect(file.bytes.byteLength).toBe(result.data.size);
    return Buffer.from(file.bytes);
  }

  /** Asserts no spelling of `secret` is in `bytes`. */
  function expectClean(bytes: Buffer, secrets: string[]) {
    const text = bytes.toString("latin1");
    for (const secret of secrets)
      for (const spelling of [secret, encodeURIComponent(secret), new URLSearchParams([["", secret]]).toString().slice(1)])
        expect(text).not.toContain(Buffer.from(spelling).toString("latin1"));
  }

  const proxy = (toolkit: string, type: string, whole = false) =>
    h.call("POST", "/proxy", {
      key,
      body: { toolkit, method: "GET", url: `${origin}/echo?type=${encodeURIComponent(type)}${whole ? "&whole=1" : ""}` },
    });

  describe.each([false, true])("POST /proxy (the upstream declares its length: %s)", (whole) => {
    it.each(TEXT_TYPES)("%s: staged with every spelling of the token as [redacted]", async (type) => {
      const bytes = await download((await proxy("echo", type, whole)).json);
      expectClean(bytes, [TOKEN]);
      expect(bytes.toString()).toContain("raw=[redacted];uri=[redacted];form=[redacted];header=Bearer [redacted]");
    });

    it.each(BINARY_TYPES)("%s: staged with the token's bytes overwritten by *, its length and other bytes kept", async (type) => {
      const sent = bodies[type]!(echoed(`Bearer ${TOKEN}`));
      const bytes = await download((await proxy("echo", type, whole)).json);
      expectClean(bytes, [TOKEN]);
      expect(bytes.length).toBe(sent.length);
      const stars = (s: string) => "*".repeat(Buffer.byteLength(s));
      const masked = `raw=${stars(TOKEN)};uri=${stars(encodeURIComponent(TOKEN))};form=${stars(new URLSearchParams([["", TOKEN]]).toString().slice(1))};header=Bearer ${stars(TOKEN)}`;
      expect(bytes.toString("latin1")).toBe(sent.toString("latin1").replace(echoed(`Bearer ${TOKEN}`), masked));
    });

    it("a Basic pair echoed as its base64 is masked, and the password itself", async () => {
      for (const type of ["application/x-ndjson", "image/png"]) {
        const bytes = await download((await proxy("echob", type, whole)).json);
        expectClean(bytes, [BASIC, PASSWORD]);
      }
    });
  });

  it("a binary answer that was masked is logged as such, without the secret", async () => {
    const mark = h.logs.length;
    await download((await proxy("echo", "image/png")).json);
    expect(h.logs.slice(mark).filter((l) => l.level === "warn")).toEqual([
      {
        level: "warn",
        message: "masked the connection's secret in a binary answer before staging it",
        fields: { contentType: "image/png", masked: 4 },
      },
    ]);
  });

  describe("HTTP tools", () => {
    it.each([...TEXT_TYPES, ...BINARY_TYPES])("a declared tool stages a %s answer with the token masked", async (type) => {
      const res = await h.call("POST", "/execute", { key, body: { tool: "ECHOJ_GET", arguments: { type } } });
      const bytes = await download(res.json);
      expectClean(bytes, [TOKEN]);
      expect(bytes.toString("latin1")).toMatch(TEXT_TYPES.includes(type) ? /raw=\[redacted\]/ : /raw=\*+;/);
    });

    it("a tool that stages an answer itself with ctx.files.stage gets the Basic credential masked too", async () => {
      for (const type of ["message/http", "application/pdf"]) {
        const res = await h.call("POST", "/execute", { key, body: { tool: "ECHOB_STAGE", arguments: { type } } });
        expectClean(await download(res.json), [BASIC, PASSWORD]);
      }
    });
  });
});
