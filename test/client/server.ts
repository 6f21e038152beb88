/**
 * A real node:http server for the client tests: the Tools API handler mounted under
 * /proxy/tools with the Node adapter, static pages beside it (for the browser test), an HTML 404
 * elsewhere (as a framework would answer), and a record of every request's headers.
 */
import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { toNodeHandler } from "../../adapters/node.js";
import type { BlobStore } from "../../src/index.js";

export const BASE_PATH = "/proxy/tools";

export interface ApiServer {
  origin: string;
  /** `origin` + /proxy/tools: the client's baseUrl. */
  baseUrl: string;
  /** Method, path and headers of every request, as it arrived. */
  requests: Array<{ method: string; url: string; headers: IncomingHttpHeaders }>;
  /** Serves the Tools API with `handler` from now on (the OAuth tests need the origin first). */
  mount(handler: (request: Request) => Promise<Response>): void;
  /** Serves `body` at `path` (outside the API). */
  page(path: string, contentType: string, body: string | Uint8Array): void;
  close(): Promise<void>;
}

/** Starts the server on 127.0.0.1 with a random port. */
export async function startApiServer(handler?: (request: Request) => Promise<Response>): Promise<ApiServer> {
  let api = handler ? toNodeHandler(handler) : null;
  const pages = new Map<string, { contentType: string; body: string | Uint8Array }>();
  const requests: ApiServer["requests"] = [];
  const server: Server = createServer((req, res) => {
    requests.push({ method: req.method ?? "", url: req.url ?? "", headers: req.headers });
    const path = (req.url ?? "/").split("?")[0]!;
    if (api && (path === BASE_PATH || path.startsWith(`${BASE_PATH}/`))) return api(req, res);
    const page = pages.get(path);
    if (page) return void res.writeHead(200, { "content-type": page.contentType }).end(page.body);
    res.writeHead(404, { "content-type": "text/html" }).end("<!doctype html><title>Not Found</title><h1>Cannot GET this page</h1>");
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    origin,
    baseUrl: `${origin}${BASE_PATH}`,
    requests,
    mount: (next) => void (api = toNodeHandler(next)),
    page: (path, contentType, body) => void pages.set(path, { contentType, body }),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** One `put` as the recording blob store saw it. */
export interface RecordedPut {
  key: string;
  /** Bytes that reached the store so far. */
  received: number;
  /** The value of `probe()` when the first chunk reached the store. */
  probeAtFirstChunk: number | null;
  outcome: "pending" | "stored" | "failed";
}

/**
 * Wraps a blob store to record each `put`: bytes received, and `probe()` (e.g. bytes a test's
 * generator has produced so far) at the moment the first chunk arrived.
 */
export function recordingBlobStore(inner: BlobStore, probe: () => number = () => 0): BlobStore & { puts: RecordedPut[] } {
  const puts: RecordedPut[] = [];
  return {
    ...inner,
    puts,
    get: (key) => inner.get(key),
    head: (key) => inner.head(key),
    delete: (key) => inner.delete(key),
    deleteExpired: (now) => inner.deleteExpired(now),
    async put(key, body, options) {
      const put: RecordedPut = { key, received: 0, probeAtFirstChunk: null, outcome: "pending" };
      puts.push(put);
      const counted = body.pipeThrough(
        new TransformStream<Uint8Array, Uint8Array>({
          transform(chunk, controller) {
            if (put.received === 0) put.probeAtFirstChunk = probe();
            put.received += chunk.byteLength;
            controller.enqueue(chunk);
          },
        }),
      );
      try {
        const info = await inner.put(key, counted, options);
        put.outcome = "stored";
        return info;
      } catch (error) {
        put.outcome = "failed";
        throw error;
      }
    },
  };
}
