import { describe, expect, it } from "vitest";
import { memoryBlobStore } from "../../src/blob/memory.js";
import type { BlobStore } from "../../src/blob/types.js";
import type { HandlerContext, UploadSettings } from "../../src/context/context.js";
import { StoreUnavailableError } from "../../src/core/errors.js";
import { isAllowedContentType, MAX_PARTS, receiveUpload } from "../../src/uploads/multipart.js";
import { newStagingKey } from "../../src/uploads/staging.js";
import { concatBytes } from "../../src/util/bytes.js";

const BOUNDARY = "----toolsProxyBoundary7MA4YWxkTrZu0gW";

interface Part {
  name: string;
  filename?: string;
  type?: string;
  /** Extra raw header lines. */
  headers?: string[];
  body: Uint8Array | string;
}

const encoder = new TextEncoder();

function formBody(parts: Part[], { close = true, epilogue = "" } = {}): Uint8Array {
  const pieces: Uint8Array[] = [];
  for (const part of parts) {
    const disposition = `form-data; name="${part.name}"${part.filename === undefined ? "" : `; filename="${part.filename}"`}`;
    const lines = [`--${BOUNDARY}`, `Content-Disposition: ${disposition}`];
    if (part.type) lines.push(`Content-Type: ${part.type}`);
    lines.push(...(part.headers ?? []));
    pieces.push(encoder.encode(`${lines.join("\r\n")}\r\n\r\n`));
    pieces.push(typeof part.body === "string" ? encoder.encode(part.body) : part.body);
    pieces.push(encoder.encode("\r\n"));
  }
  if (close) pieces.push(encoder.encode(`--${BOUNDARY}--\r\n${epilogue}`));
  return concatBytes(pieces);
}

/** A body stream that hands out `bytes` in chunks of `chunkSize`, on demand; optionally errors after `failAfter` bytes. */
function bodyStream(bytes: Uint8Array, chunkSize = 1000, failAfter?: number) {
  let offset = 0;
  const stats = { pulled: 0 };
  const stream = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (failAfter !== undefined && offset >= failAfter) return controller.error(new Error("connection reset"));
      if (offset >= bytes.byteLength) return controller.close();
      const chunk = bytes.slice(offset, offset + chunkSize);
      offset += chunk.byteLength;
      stats.pulled = offset;
      controller.enqueue(chunk);
    },
  });
  return { stream, stats };
}

function uploadRequest(body: ReadableStream<Uint8Array> | Uint8Array, headers: Record<string, string> = {}): Request {
  const stream = body instanceof Uint8Array ? bodyStream(body).stream : body;
  return new Request("http://localhost/proxy/tools/upload", {
    method: "POST",
    body: stream,
    headers: { "content-type": `multipart/form-data; boundary=${BOUNDARY}`, ...headers },
    duplex: "half",
  } as RequestInit);
}

function context(uploads: Partial<UploadSettings> = {}, blobStore: BlobStore = memoryBlobStore()) {
  const ctx = {
    blobStore,
    uploads: { maxBytes: 64 * 1024, ttlMs: 60_000, allowedContentTypes: ["image/*", "text/plain", "application/octet-stream"], ...uploads },
    emit: () => {},
  } as unknown as HandlerContext;
  return ctx;
}

function target() {
  return { key: newStagingKey(), metadata: { workspaceId: "ws", agentId: "a1" }, expiresAt: new Date(Date.now() + 60_000) };
}

async function expectNoBlob(ctx: HandlerContext, key: string) {
  expect(await ctx.blobStore.head(key)).toBeNull();
  expect(await ctx.blobStore.delete(key)).toBe(false);
}

async function readBlob(ctx: HandlerContext, key: string): Promise<Uint8Array> {
  return new Uint8Array(await new Response((await ctx.blobStore.get(key))!.body).arrayBuffer());
}

/** PNG's signature: files declared image/png must start with it. */
const PNG_SIGNATURE = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];

/** `size` bytes that differ by seed; they start as a PNG file does, so they may be sent as image/png. */
function bytes(size: number, seed = 1): Uint8Array {
  const out = new Uint8Array(size);
  for (let i = 0; i < size; i++) out[i] = i < PNG_SIGNATURE.length ? PNG_SIGNATURE[i]! : (i * 13 + seed) & 255;
  return out;
}

describe("receiveUpload", () => {
  it("streams the part named file into the blob store with its type, name and owner", async () => {
    const ctx = context();
    const t = target();
    const file = bytes(20_000);
    const body = formBody([
      { name: "note", body: "ignored field" },
      { name: "file", filename: "photo.png", type: "image/png", body: file },
      { name: "other", body: "ignored after the file too" },
    ]);
    const info = await receiveUpload(uploadRequest(body), ctx, t);
    expect(info).toMatchObject({
      key: t.key,
      size: file.byteLength,
      contentType: "image/png",
      filename: "photo.png",
      metadata: t.metadata,
    });
    expect(info.expiresAt.getTime()).toBe(t.expiresAt.getTime());
    expect(await readBlob(ctx, t.key)).toEqual(file);
  });

  it("refuses a second part named file with a 400, and keeps nothing of the first", async () => {
    const ctx = context();
    const t = target();
    const body = formBody([
      { name: "file", filename: "photo.png", type: "image/png", body: bytes(20_000) },
      { name: "file", filename: "second.png", type: "image/png", body: bytes(10, 9) },
    ]);
    await expect(receiveUpload(uploadRequest(body), ctx, t)).rejects.toMatchObject({
      code: "invalid_request",
      message: expect.stringMatching(/more than one part named `file`/),
    });
    expect(await ctx.blobStore.get(t.key)).toBeNull();
  });

  it("parses the body whatever its chunking, including one byte at a time", async () => {
    const file = bytes(3000, 5);
    const body = formBody([{ name: "file", filename: "a.bin", type: "application/octet-stream", body: file }], {
      epilogue: "trailing epilogue",
    });
    for (const chunkSize of [1, 7, 64, 4096]) {
      const ctx = context();
      const t = target();
      await receiveUpload(uploadRequest(bodyStream(body, chunkSize).stream), ctx, t);
      expect(await readBlob(ctx, t.key)).toEqual(file);
    }
  });

  it("stores a part without Content-Type as application/octet-stream and keeps a charset", async () => {
    const ctx = context();
    const untyped = target();
    await receiveUpload(uploadRequest(formBody([{ name: "file", body: "raw" }])), ctx, untyped);
    expect((await ctx.blobStore.head(untyped.key))!.contentType).toBe("application/octet-stream");
    const text = target();
    await receiveUpload(
      uploadRequest(formBody([{ name: "file", filename: "a.txt", type: "Text/Plain; charset=UTF-8", body: "héllo" }])),
      ctx,
      text,
    );
    expect((await ctx.blobStore.head(text.key))!.contentType).toBe("text/plain; charset=utf-8");
  });

  it("keeps only the last segment of the uploader's file name", async () => {
    const ctx = context();
    for (const [given, stored] of [
      ["../../etc/passwd", "passwd"],
      ["C:\\fakepath\\photo.png", "photo.png"],
      ["..", null],
    ] as const) {
      const t = target();
      await receiveUpload(uploadRequest(formBody([{ name: "file", filename: given, type: "image/png", body: bytes(16) }])), ctx, t);
      expect((await ctx.blobStore.head(t.key))!.filename).toBe(stored);
    }
  });

  it("accepts a file of exactly maxBytes", async () => {
    const ctx = context({ maxBytes: 5000 });
    const t = target();
    await receiveUpload(uploadRequest(formBody([{ name: "file", type: "image/png", body: bytes(5000) }])), ctx, t);
    expect((await ctx.blobStore.head(t.key))!.size).toBe(5000);
  });

  describe("limits", () => {
    it("refuses a file over maxBytes with 413, counting bytes as they arrive, and stores nothing", async () => {
      const ctx = context({ maxBytes: 5000 });
      const t = target();
      const request = uploadRequest(formBody([{ name: "file", type: "image/png", body: bytes(5001) }]));
      expect(request.headers.get("content-length")).toBeNull();
      await expect(receiveUpload(request, ctx, t)).rejects.toMatchObject({ code: "payload_too_large" });
      await expectNoBlob(ctx, t.key);
    });

    it("counts the bytes that arrive, not a Content-Length that says fewer", async () => {
      const ctx = context({ maxBytes: 5000 });
      const t = target();
      const request = uploadRequest(formBody([{ name: "file", type: "image/png", body: bytes(20_000) }]), { "content-length": "100" });
      expect(request.headers.get("content-length")).toBe("100");
      await expect(receiveUpload(request, ctx, t)).rejects.toMatchObject({ code: "payload_too_large" });
      await expectNoBlob(ctx, t.key);
    });

    it("stops reading a body that goes on far past the limit", async () => {
      const ctx = context({ maxBytes: 1000 });
      const huge = bodyStream(formBody([{ name: "other", body: bytes(5 * 1024 * 1024) }]), 16 * 1024);
      await expect(receiveUpload(uploadRequest(huge.stream), ctx, target())).rejects.toMatchObject({ code: "payload_too_large" });
      expect(huge.stats.pulled).toBeLessThan(1024 * 1024);
    });

    it("refuses an honest Content-Length over the limit before reading the body", async () => {
      const ctx = context({ maxBytes: 1000 });
      const body = bodyStream(formBody([{ name: "file", body: bytes(10_000) }]), 1000);
      const request = uploadRequest(body.stream, { "content-length": String(50 * 1024 * 1024) });
      await expect(receiveUpload(request, ctx, target())).rejects.toMatchObject({ code: "payload_too_large" });
      // A stream fills its queue once on creation; nothing beyond that was read.
      expect(body.stats.pulled).toBeLessThanOrEqual(1000);
    });

    it(`refuses more than ${MAX_PARTS} parts with 413, even after the file part started`, async () => {
      const fields = Array.from({ length: MAX_PARTS }, (_, i) => ({ name: `f${i}`, body: "v" }));
      const ctx = context();
      const before = target();
      await expect(
        receiveUpload(uploadRequest(formBody([...fields, { name: "file", type: "image/png", body: bytes(16) }])), ctx, before),
      ).rejects.toMatchObject({ code: "payload_too_large" });
      await expectNoBlob(ctx, before.key);
      const after = target();
      await expect(
        receiveUpload(uploadRequest(formBody([{ name: "file", type: "image/png", body: bytes(100) }, ...fields])), ctx, after),
      ).rejects.toMatchObject({ code: "payload_too_large" });
      await expectNoBlob(ctx, after.key);
    });

    it("refuses part headers over 16 KiB with 413", async () => {
      const ctx = context();
      const t = target();
      const body = formBody([{ name: "file", type: "image/png", headers: [`X-Padding: ${"a".repeat(17 * 1024)}`], body: bytes(10) }]);
      await expect(receiveUpload(uploadRequest(body), ctx, t)).rejects.toMatchObject({ code: "payload_too_large" });
      await expectNoBlob(ctx, t.key);
    });
  });

  describe("bad requests", () => {
    it("answers 400 for a body that is not multipart or has no boundary", async () => {
      const ctx = context();
      const json = new Request("http://localhost/upload", { method: "POST", body: "{}", headers: { "content-type": "application/json" } });
      await expect(receiveUpload(json, ctx, target())).rejects.toMatchObject({ code: "invalid_request" });
      const noBoundary = uploadRequest(formBody([{ name: "file", body: "x" }]), { "content-type": "multipart/form-data" });
      await expect(receiveUpload(noBoundary, ctx, target())).rejects.toMatchObject({ code: "invalid_request" });
    });

    it("answers 400 when no part is named file", async () => {
      const ctx = context();
      const body = formBody([{ name: "upload", filename: "a.png", type: "image/png", body: bytes(16) }]);
      await expect(receiveUpload(uploadRequest(body), ctx, target())).rejects.toMatchObject({
        code: "invalid_request",
        message: expect.stringContaining("`file`"),
      });
    });

    it("answers 400 and stores nothing when the body ends before its closing boundary", async () => {
      const ctx = context();
      const t = target();
      const body = formBody([{ name: "file", type: "image/png", body: bytes(2000) }], { close: false });
      await expect(receiveUpload(uploadRequest(body), ctx, t)).rejects.toMatchObject({ code: "invalid_request" });
      await expectNoBlob(ctx, t.key);
    });

    it("answers 400 for an empty body", async () => {
      await expect(receiveUpload(uploadRequest(new Uint8Array(0)), context(), target())).rejects.toMatchObject({ code: "invalid_request" });
    });
  });

  it("answers 415 for a content type outside the allowlist, and stores nothing", async () => {
    const ctx = context();
    const t = target();
    const body = formBody([{ name: "file", filename: "setup.exe", type: "application/x-msdownload", body: bytes(100) }]);
    await expect(receiveUpload(uploadRequest(body), ctx, t)).rejects.toMatchObject({ code: "unsupported_media_type" });
    await expectNoBlob(ctx, t.key);
  });

  it("matches allowlist entries exactly or by a trailing wildcard", () => {
    const allowed = ["image/*", "application/pdf", "application/vnd.openxmlformats-officedocument.*"];
    expect(isAllowedContentType("image/webp", allowed)).toBe(true);
    expect(isAllowedContentType("IMAGE/PNG; foo=bar", allowed)).toBe(true);
    expect(isAllowedContentType("application/pdf", allowed)).toBe(true);
    expect(isAllowedContentType("application/vnd.openxmlformats-officedocument.wordprocessingml.document", allowed)).toBe(true);
    expect(isAllowedContentType("application/pdfx", allowed)).toBe(false);
    expect(isAllowedContentType("imagex/png", allowed)).toBe(false);
    expect(isAllowedContentType("text/html", allowed)).toBe(false);
  });

  it("leaves no blob when the request body errors mid-way (the client went away)", async () => {
    const ctx = context();
    const t = target();
    const body = bodyStream(formBody([{ name: "file", type: "image/png", body: bytes(50_000) }]), 4096, 20_000);
    await expect(receiveUpload(uploadRequest(body.stream), ctx, t)).rejects.toMatchObject({ code: "invalid_request" });
    await expectNoBlob(ctx, t.key);
  });

  it("rejects with the blob store's error when the store is down", async () => {
    const store: BlobStore = {
      ...memoryBlobStore(),
      async put(_key, body) {
        await body.cancel();
        throw new StoreUnavailableError();
      },
    };
    const ctx = context({}, store);
    const body = formBody([{ name: "file", type: "image/png", body: bytes(200_000) }]);
    await expect(receiveUpload(uploadRequest(body), ctx, target())).rejects.toBeInstanceOf(StoreUnavailableError);
  });

  it("stores concurrent uploads side by side", async () => {
    const ctx = context();
    const uploads = Array.from({ length: 12 }, (_, i) => ({ t: target(), file: bytes(10_000 + i * 100, i) }));
    await Promise.all(
      uploads.map(({ t, file }, i) =>
        receiveUpload(uploadRequest(bodyStream(formBody([{ name: "file", type: "image/png", body: file }]), 512 + i).stream), ctx, t),
      ),
    );
    for (const { t, file } of uploads) expect(await readBlob(ctx, t.key)).toEqual(file);
  });

  it("reads the request no faster than a slow blob store writes (backpressure)", async () => {
    const size = 8 * 1024 * 1024;
    let consumed = 0;
    let maxLead = 0;
    const source = bodyStream(formBody([{ name: "file", type: "application/octet-stream", body: bytes(size) }]), 64 * 1024);
    const memory = memoryBlobStore();
    const slowStore: BlobStore = {
      ...memory,
      put(key, body, options) {
        const reader = body.getReader();
        const slow = new ReadableStream<Uint8Array>(
          {
            async pull(controller) {
              await new Promise((resolve) => setTimeout(resolve, 1));
              const { done, value } = await reader.read();
              if (done) return controller.close();
              consumed += value.byteLength;
              maxLead = Math.max(maxLead, source.stats.pulled - consumed);
              controller.enqueue(value);
            },
          },
          { highWaterMark: 0 },
        );
        return memory.put(key, slow, options);
      },
    };
    const ctx = context({ maxBytes: size }, slowStore);
    const t = target();
    await receiveUpload(uploadRequest(source.stream), ctx, t);
    expect((await memory.head(t.key))!.size).toBe(size);
    // Without backpressure the whole 8 MiB would be read ahead of the store.
    expect(maxLead).toBeLessThan(3 * 1024 * 1024);
  });
});
