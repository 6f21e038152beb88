import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

/** One request as it arrived, with its raw body bytes. */
export interface RawRequest {
  method: string;
  url: string;
  headers: IncomingMessage["headers"];
  body: Buffer;
}

/** A local server that counts TCP connections and bytes it streamed out, and records requests. */
export interface RawServer {
  origin: string;
  requests: RawRequest[];
  /** TCP connections accepted so far. */
  connections(): number;
  /** Sockets closed so far (by either side). */
  closedSockets(): number;
  /** Body bytes written by `streamBytes` for the request with this tag. */
  written: Map<string, number>;
  close(): Promise<void>;
}

type Handler = (request: RawRequest, res: ServerResponse, server: RawServer) => void;

/** Starts a server on 127.0.0.1 with a random port; `handler` answers after the request body is read. */
export async function startRawServer(handler: Handler): Promise<RawServer> {
  let connections = 0;
  let closed = 0;
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      const request = { method: req.method ?? "", url: req.url ?? "", headers: req.headers, body: Buffer.concat(chunks) };
      raw.requests.push(request);
      handler(request, res, raw);
    });
  });
  server.on("connection", (socket) => {
    connections++;
    socket.on("close", () => closed++);
  });
  server.keepAliveTimeout = 10_000;
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const raw: RawServer = {
    origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    requests: [],
    connections: () => connections,
    closedSockets: () => closed,
    written: new Map(),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
  return raw;
}

/**
 * Streams up to `total` bytes of `chunk`s as fast as the client reads them (waiting for `drain`),
 * counting what was written under `tag` in `server.written`, and stops when the socket closes.
 */
export function streamBytes(
  res: ServerResponse,
  server: RawServer,
  tag: string,
  total: number,
  chunk = Buffer.alloc(64 * 1024, 0x61),
): void {
  let written = 0;
  let closed = false;
  res.on("close", () => (closed = true));
  const pump = () => {
    while (!closed && written < total) {
      const part = total - written >= chunk.length ? chunk : chunk.subarray(0, total - written);
      written += part.length;
      server.written.set(tag, written);
      if (!res.write(part)) return void res.once("drain", pump);
    }
    if (!closed) res.end();
  };
  pump();
}

/** Resolves once `check` holds, polling every 10 ms; rejects after `ms`. */
export async function waitFor(check: () => boolean, ms = 2_000): Promise<void> {
  const until = Date.now() + ms;
  while (!check()) {
    if (Date.now() > until) throw new Error("waitFor: condition not met in time");
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

export const MiB = 1024 * 1024;
export const GiB = 1024 * MiB;
