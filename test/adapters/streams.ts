/**
 * Large bodies for the adapter tests, made and checked on the fly: an upload is generated chunk
 * by chunk while it is sent (never held whole), and a download is hashed as it arrives.
 */
import { createHash, randomBytes } from "node:crypto";
import { Agent, request as httpRequest } from "node:http";

const CHUNK = 1024 * 1024;
const BLOCK = randomBytes(CHUNK);

/** The `index`-th MiB of a generated file: random bytes, stamped with the index so no two chunks are equal. */
function chunkAt(index: number, size: number): Buffer {
  const chunk = Buffer.from(BLOCK.subarray(0, Math.min(CHUNK, size - index * CHUNK)));
  chunk.writeUInt32BE(index, 0);
  return chunk;
}

/** SHA-256 of the generated file of `size` bytes. */
export function generatedSha256(size: number): string {
  const hash = createHash("sha256");
  for (let i = 0; i * CHUNK < size; i++) hash.update(chunkAt(i, size));
  return hash.digest("hex");
}

export interface StreamedUpload {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  json: any;
  text: string;
  /** Bytes of the body written to the socket when the answer's status line arrived. */
  sentWhenAnswered: number;
  /** The whole body's size, multipart framing included. */
  total: number;
}

/**
 * POSTs a multipart upload of a generated file of `size` bytes, part `file`, with node:http,
 * writing 1 MiB at a time as the socket drains. `chunked` leaves Content-Length out, so only the
 * bytes that arrive can tell the server the size. Writing stops as soon as the server answers.
 * With `pauseAt`, writing waits for `onPause` once that many bytes of the file are sent. With
 * `stopAt`, writing stops there for good, and only an answer (within 30 s) ends the upload.
 */
export function streamUpload(
  url: string,
  key: string,
  options: {
    size: number;
    type?: string;
    filename?: string;
    chunked?: boolean;
    pauseAt?: number;
    onPause?: () => Promise<void>;
    stopAt?: number;
  },
): Promise<StreamedUpload> {
  const boundary = `----adapter-test-${randomBytes(8).toString("hex")}`;
  const head = Buffer.from(
    `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${options.filename ?? "big.bin"}"\r\n` +
      `Content-Type: ${options.type ?? "application/octet-stream"}\r\n\r\n`,
  );
  const tail = Buffer.from(`\r\n--${boundary}--\r\n`);
  const total = head.length + options.size + tail.length;
  const headers: Record<string, string> = { "x-api-key": key, "content-type": `multipart/form-data; boundary=${boundary}` };
  if (!options.chunked) headers["content-length"] = String(total);

  return new Promise((resolve, reject) => {
    // A keep-alive connection, as browsers and curl use: with `Connection: close` a Node server
    // closes the socket right after answering, and the client may see the reset first.
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    const req = httpRequest(url, { method: "POST", headers, agent });
    let sent = 0;
    let next = 0;
    let answered = false;
    req.on("response", (res) => {
      answered = true;
      const sentWhenAnswered = sent;
      const chunks: Buffer[] = [];
      res.on("data", (chunk: Buffer) => chunks.push(chunk));
      res.on("error", reject);
      res.on("end", () => {
        const text = Buffer.concat(chunks).toString("utf8");
        let json: unknown;
        try {
          json = JSON.parse(text);
        } catch {
          json = undefined;
        }
        resolve({ status: res.statusCode ?? 0, headers: res.headers, json, text, sentWhenAnswered, total });
        req.destroy();
        agent.destroy();
      });
    });
    // An error after the answer (the server closing a connection it no longer reads) is expected.
    req.on(
      "error",
      (error) => answered || reject(new Error(`the upload failed before any answer, after ${sent} of ${total} bytes: ${error.message}`)),
    );
    const write = (chunk: Buffer) => {
      sent += chunk.length;
      return req.write(chunk);
    };
    let paused = false;
    const pump = () => {
      while (!answered) {
        if (next === 0 && sent === 0 && !write(head)) return void req.once("drain", pump);
        if (!paused && options.pauseAt !== undefined && next * CHUNK >= options.pauseAt) {
          paused = true;
          return void options.onPause!().then(pump, reject);
        }
        if (options.stopAt !== undefined && next * CHUNK >= options.stopAt) {
          const waited = setTimeout(() => {
            req.destroy();
            reject(new Error(`no answer within 30 s while the upload waited after ${sent} of ${total} bytes`));
          }, 30_000);
          req.once("response", () => clearTimeout(waited));
          return;
        }
        if (next * CHUNK >= options.size) {
          write(tail);
          req.end();
          return;
        }
        if (!write(chunkAt(next++, options.size))) return void req.once("drain", pump);
      }
    };
    pump();
  });
}

/**
 * GETs `url` and hashes the body as it arrives. `afterFirstChunk` runs once the first chunk is
 * in, before any more is read; `onChunk` after each chunk (the tests sample the server there).
 */
export async function streamDownload(
  url: string,
  key: string,
  hooks: { afterFirstChunk?: () => Promise<void>; onChunk?: () => void } = {},
) {
  const response = await fetch(url, { headers: { "x-api-key": key } });
  const hash = createHash("sha256");
  let size = 0;
  let chunks = 0;
  for await (const chunk of response.body as AsyncIterable<Uint8Array>) {
    hash.update(chunk);
    size += chunk.byteLength;
    if (chunks++ === 0) await hooks.afterFirstChunk?.();
    hooks.onChunk?.();
  }
  return { status: response.status, headers: response.headers, size, chunks, sha256: hash.digest("hex") };
}
