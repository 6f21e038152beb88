/**
 * `bodyFile` on POST /proxy: the agent's own staged file sent as the raw request body, streamed
 * from the blob store with its stored type and its length; every misuse is a 400 that sends nothing.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createUndiciFetch } from "../../adapters/node.js";
import { bearer, defineToolkit } from "../../src/index.js";
import { CREDENTIALS, createHarness, expectError, type Harness, multipart } from "../support/harness.js";
import { type RawServer, startRawServer } from "./servers.js";

/** Sent as image/png, so it starts with PNG's signature (uploads check it). */
const PNG_SIGNATURE = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];
const BYTES = Uint8Array.from({ length: 70_000 }, (_, i) => PNG_SIGNATURE[i] ?? (i * 7) % 256);

const fetches = [
  ["the global fetch", () => undefined],
  ["createUndiciFetch", () => createUndiciFetch()],
] as const;

describe.each(fetches)("bodyFile with %s", (_name, makeFetch) => {
  let sink: RawServer;
  let h: Harness;
  let key: string;
  let otherKey: string;
  let stagingKey: string;
  const fetch = makeFetch();

  beforeAll(async () => {
    sink = await startRawServer((request, res) => {
      if (request.url === "/files/moved") return void res.writeHead(307, { location: "/files/put" }).end();
      res.writeHead(200, { "content-type": "application/json" });
      res.end(JSON.stringify({ received: request.body.length }));
    });
    h = await createHarness({
      ...(fetch ? { fetch } : {}),
      uploads: { ttlMs: 60_000 },
      extraToolkits: () => [
        defineToolkit({
          slug: "sink",
          name: "Sink",
          description: "Receives files.",
          baseUrl: `${sink.origin}/files`,
          auth: bearer(),
          tools: [],
        }),
      ],
    });
    key = (await h.issueAgentKey("agent-a")).key;
    otherKey = (await h.issueAgentKey("agent-b")).key;
    await h.connect(key, "sink", { token: CREDENTIALS.bearerToken });
    await h.connect(otherKey, "sink", { token: CREDENTIALS.bearerToken2 });
    stagingKey = await upload(key, BYTES, "image/png");
  });
  afterAll(async () => {
    h.assertNoLeaks();
    await fetch?.close();
    await Promise.all([h.close(), sink.close()]);
  });

  async function upload(as: string, bytes: Uint8Array, type: string): Promise<string> {
    const res = await h.call("POST", "/upload", { key: as, rawBody: multipart(bytes as BlobPart, type, "file.bin") });
    expect(res.status, res.text).toBe(200);
    return res.json.stagingKey;
  }
  const proxy = (body: Record<string, unknown>, as = key) =>
    h.call("POST", "/proxy", { key: as, body: { toolkit: "sink", method: "PUT", url: `${sink.origin}/files/put`, ...body } });

  it.each(["POST", "PUT", "PATCH"])("%s sends the exact bytes with the stored type and a Content-Length", async (method) => {
    const res = await proxy({ method, bodyFile: stagingKey });
    expect(res.json).toMatchObject({ successful: true, status: 200, data: { received: BYTES.length } });
    const sent = sink.requests.at(-1)!;
    expect(sent.method).toBe(method);
    expect([...sent.body]).toEqual([...BYTES]);
    expect(sent.headers["content-type"]).toBe("image/png");
    expect(sent.headers["content-length"]).toBe(String(BYTES.length));
    expect(sent.headers["transfer-encoding"]).toBeUndefined();
    expect(sent.headers.authorization).toBe(`Bearer ${CREDENTIALS.bearerToken}`);
  });

  it("the caller's Content-Type wins, and a caller's Content-Length is ignored", async () => {
    await proxy({ bodyFile: stagingKey, headers: { "Content-Type": "application/octet-stream", "Content-Length": "5" } });
    const sent = sink.requests.at(-1)!;
    expect(sent.headers["content-type"]).toBe("application/octet-stream");
    expect(sent.headers["content-length"]).toBe(String(BYTES.length));
    expect(sent.body.length).toBe(BYTES.length);
  });

  it("an empty staged file is sent as an empty body", async () => {
    const empty = await upload(key, new Uint8Array(0), "text/plain");
    expect((await proxy({ bodyFile: empty })).json).toMatchObject({ successful: true, data: { received: 0 } });
    expect(sink.requests.at(-1)!.headers["content-length"]).toBe("0");
  });

  it("a 307 redirect is returned unfollowed: a stream cannot be sent twice", async () => {
    const res = await proxy({ url: `${sink.origin}/files/moved`, bodyFile: stagingKey });
    expect(res.json).toMatchObject({ status: 307, headers: { location: "/files/put" } });
    expect(sink.requests.at(-1)!.url).toBe("/files/moved");
  });

  it("misuse is a 400 that sends nothing", async () => {
    const before = sink.requests.length;
    const foreign = await upload(otherKey, BYTES, "image/png");
    expectError(await proxy({ bodyFile: stagingKey, body: "text" }), 400, "invalid_request", /either "body".*or "bodyFile"/);
    expectError(await proxy({ method: "GET", bodyFile: stagingKey }), 400, "invalid_request", /GET request cannot carry a body.*bodyFile/);
    expectError(await proxy({ method: "DELETE", bodyFile: stagingKey }), 400, "invalid_request", /bodyFile/);
    expectError(await proxy({ bodyFile: foreign }), 400, "invalid_request", /no staged file/);
    expectError(await proxy({ bodyFile: "stg_doesnotexistdoesnotexist" }), 400, "invalid_request", /no staged file/);
    expectError(await proxy({ bodyFile: "not-a-key" }), 400, "invalid_request", /no staged file/);
    expectError(await proxy({ bodyFile: 42 }), 400, "invalid_request", /bodyFile/);
    expect(sink.requests.length).toBe(before);
  });

  it("an expired staged file is a 400", async () => {
    const short = await createHarness({
      ...(fetch ? { fetch } : {}),
      uploads: { ttlMs: 50 },
      extraToolkits: () => [
        defineToolkit({
          slug: "sink",
          name: "Sink",
          description: "Receives files.",
          baseUrl: `${sink.origin}/files`,
          auth: bearer(),
          tools: [],
        }),
      ],
    });
    const shortKey = (await short.issueAgentKey("agent-a")).key;
    await short.connect(shortKey, "sink", { token: CREDENTIALS.bearerToken });
    const staged = (await short.call("POST", "/upload", { key: shortKey, rawBody: multipart("soon gone", "text/plain") })).json.stagingKey;
    await new Promise((resolve) => setTimeout(resolve, 80));
    const before = sink.requests.length;
    const res = await short.call("POST", "/proxy", {
      key: shortKey,
      body: { toolkit: "sink", method: "POST", url: `${sink.origin}/files/put`, bodyFile: staged },
    });
    expectError(res, 400, "invalid_request", /unknown or expired/);
    expect(sink.requests.length).toBe(before);
    await short.close();
  });

  it("the OpenAPI document describes bodyFile as a staging key", async () => {
    const doc = (await h.call("GET", "/openapi.json")).json;
    const text = JSON.stringify(doc);
    expect(text).toContain('"bodyFile"');
    expect(text).toMatch(/"bodyFile":\{[^}]*"format":"tools-proxy-staging-key"/);
  });
});
