/**
 * Uploads through a real node:http server (`tools-proxy/node`) into the file system blob store:
 * every limit and error with its status and nothing left on disk, a client that goes away mid-way,
 * concurrent uploads, and a large file streamed in and back out.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CLOSING, generated, get, partHead, post, sha256, startUploadServer, type UploadServer } from "../support/upload-server.js";

const MiB = 1024 * 1024;
const MP4_START = new Uint8Array([0, 0, 0, 0x18, ...new TextEncoder().encode("ftypmp42")]);
const PNG_START = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
const text = (s: string) => new TextEncoder().encode(s);

/** A whole multipart body around a generated file. */
function* form(size: number, type: string | null, first?: Uint8Array, filename?: string): Generator<Uint8Array> {
  yield partHead(type, filename);
  yield* generated(size, first);
  yield CLOSING;
}

const bodyLength = (chunks: Iterable<Uint8Array>) => [...chunks].reduce((n, c) => n + c.byteLength, 0);

describe("uploads through node:http into filesystemBlobStore", () => {
  let server: UploadServer;
  let key: string;
  beforeAll(async () => {
    server = await startUploadServer({
      maxBytes: 64 * MiB,
      allowedContentTypes: ["video/*", "image/*", "application/pdf", "text/plain", "application/octet-stream"],
    });
    key = await server.key();
  });
  afterAll(() => server.close());

  it("streams a 48 MiB file in (chunked, no Content-Length) and back out with its headers", async () => {
    const size = 48 * MiB;
    const answer = (await post(`${server.url}/upload`, key, form(size, "video/mp4", MP4_START, "clip.mp4")))!;
    expect(answer.status, answer.body.toString()).toBe(200);
    const staged = JSON.parse(answer.body.toString()) as { stagingKey: string; size: number; contentType: string };
    expect(staged).toMatchObject({ size, contentType: "video/mp4" });

    const file = await get(`${server.url}/files/${staged.stagingKey}`, key);
    expect(file.status).toBe(200);
    expect(file.headers).toMatchObject({
      "content-type": "video/mp4",
      "content-length": String(size),
      "content-disposition": `attachment; filename="clip.mp4"; filename*=UTF-8''clip.mp4`,
      "x-content-type-options": "nosniff",
    });
    expect(sha256([file.body])).toBe(sha256(generated(size, MP4_START)));
    expect((await server.files()).filter((name) => name.endsWith(".blob"))).toHaveLength(1);
  });

  it("leaves nothing on disk when the client goes away mid-upload", async () => {
    const before = await server.files();
    let sawTemp = false;
    const result = await post(`${server.url}/upload`, key, form(32 * MiB, "video/mp4", MP4_START), {
      abortAfter: 8 * MiB,
      // Only abort once the store is writing, so the abort hits a write in progress.
      async beforeAbort() {
        for (let i = 0; i < 500 && !sawTemp; i++) {
          sawTemp = (await server.files()).some((name) => name.startsWith(".tmp-"));
          if (!sawTemp) await new Promise((resolve) => setTimeout(resolve, 10));
        }
      },
    });
    expect(result).toBeNull();
    expect(sawTemp).toBe(true);
    let files = await server.files();
    for (let i = 0; i < 500 && files.length !== before.length; i++) {
      await new Promise((resolve) => setTimeout(resolve, 10));
      files = await server.files();
    }
    expect(files.sort()).toEqual(before.sort());
  });

  it("stores concurrent uploads side by side, each whole", async () => {
    const uploads = Array.from({ length: 8 }, (_, i) => ({ size: MiB + i * 4099, first: new Uint8Array([...PNG_START, i]) }));
    const answers = await Promise.all(uploads.map((u) => post(`${server.url}/upload`, key, form(u.size, "image/png", u.first))));
    for (const [i, answer] of answers.entries()) {
      expect(answer!.status).toBe(200);
      const { stagingKey } = JSON.parse(answer!.body.toString()) as { stagingKey: string };
      const file = await get(`${server.url}/files/${stagingKey}`, key);
      expect(sha256([file.body])).toBe(sha256(generated(uploads[i]!.size, uploads[i]!.first)));
    }
  });

  it("serves a file to its owner only: 404 to another agent and another workspace", async () => {
    const answer = (await post(`${server.url}/upload`, key, form(1000, "text/plain", text("mine"))))!;
    const { stagingKey } = JSON.parse(answer.body.toString()) as { stagingKey: string };
    for (const other of [await server.key("other-agent"), await server.key("agent", "other-workspace")]) {
      const file = await get(`${server.url}/files/${stagingKey}`, other);
      expect(file.status).toBe(404);
      expect(JSON.parse(file.body.toString())).toMatchObject({ code: "not_found" });
    }
  });
});

describe("every limit and error through node:http, leaving nothing on disk", () => {
  let server: UploadServer;
  let key: string;
  beforeAll(async () => {
    server = await startUploadServer({ maxBytes: MiB, allowedContentTypes: ["image/*", "application/pdf", "text/plain"] });
    key = await server.key();
  });
  afterAll(() => server.close());

  const fields = (n: number) =>
    Array.from({ length: n }, (_, i) => text(`------uploadTestBoundary3f9a\r\nContent-Disposition: form-data; name="f${i}"\r\n\r\nv\r\n`));
  type Case = [string, () => { chunks: Iterable<Uint8Array>; contentLength?: number; contentType?: string }, number, string, RegExp];
  const table: Case[] = [
    [
      "a file over maxBytes, chunked (counted as it arrives)",
      () => ({ chunks: form(MiB + 1, "image/png", PNG_START) }),
      413,
      "payload_too_large",
      /upload limit of 1048576 bytes/,
    ],
    [
      "a Content-Length over the limit (refused before reading)",
      () => ({ chunks: form(2 * MiB, "image/png", PNG_START), contentLength: 2 * MiB + 300 }),
      413,
      "payload_too_large",
      /upload limit/,
    ],
    [
      "a Content-Length that cuts the form short",
      () => ({ chunks: [Buffer.concat([...form(10_000, "image/png", PNG_START)]).subarray(0, 5000)], contentLength: 5000 }),
      400,
      "invalid_request",
      /malformed or ended/,
    ],
    [
      "more than 10 parts",
      () => ({ chunks: [...fields(11), ...form(100, "image/png", PNG_START)] }),
      413,
      "payload_too_large",
      /more than 10 parts/,
    ],
    [
      "part headers over 16 KiB",
      () => ({ chunks: [partHead("image/png", "a.png", [`X-Pad: ${"a".repeat(17 * 1024)}`]), ...generated(100, PNG_START), CLOSING] }),
      413,
      "payload_too_large",
      /headers of a form part/,
    ],
    [
      "a type outside the allowlist",
      () => ({ chunks: form(100, "text/html", text("<script>")) }),
      415,
      "unsupported_media_type",
      /not accepted here/,
    ],
    [
      "a declared type the first bytes contradict",
      () => ({ chunks: form(5000, "image/png", text("MZ\x90\0 an executable")) }),
      415,
      "unsupported_media_type",
      /first bytes are not those of image\/png/,
    ],
    [
      "a PDF that is not one",
      () => ({ chunks: form(3000, "application/pdf", text("<html>")) }),
      415,
      "unsupported_media_type",
      /application\/pdf/,
    ],
    [
      "no part named file",
      () => ({ chunks: [partHead("image/png", "a.png", [], "upload"), ...generated(100, PNG_START), CLOSING] }),
      400,
      "invalid_request",
      /no part named `file`/,
    ],
    [
      "a body that is not multipart",
      () => ({ chunks: [text("{}")], contentType: "application/json" }),
      400,
      "invalid_request",
      /multipart\/form-data/,
    ],
    [
      "a body without its closing boundary",
      () => ({ chunks: [partHead("image/png"), ...generated(5000, PNG_START)] }),
      400,
      "invalid_request",
      /closing boundary/,
    ],
  ];

  const cases = table.map(([name, make, status, code, message]) => ({ name, make, status, code, message }));

  it.each(cases)("$name: $status $code", async ({ make, status, code, message }) => {
    const { chunks, contentLength, contentType } = make();
    const answer = (await post(`${server.url}/upload`, key, chunks, { contentLength, contentType }))!;
    expect(answer.status, answer.body.toString()).toBe(status);
    const body = JSON.parse(answer.body.toString()) as { code: string; error: string };
    expect(Object.keys(body).sort()).toEqual(["code", "error"]);
    expect(body.code).toBe(code);
    expect(body.error).toMatch(message);
    // The refusal waits for the store to clean up, so the directory is already empty.
    expect(await server.files()).toEqual([]);
  });

  it("a file of exactly maxBytes is accepted", async () => {
    const chunks = [...form(MiB, "image/png", PNG_START)];
    const answer = (await post(`${server.url}/upload`, key, chunks, { contentLength: bodyLength(chunks) }))!;
    expect(answer.status).toBe(200);
    expect(JSON.parse(answer.body.toString())).toMatchObject({ size: MiB });
  });
});
