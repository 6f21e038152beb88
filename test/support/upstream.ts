import { createServer, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

/** One request a test server received, exactly as it arrived. */
export interface RecordedRequest {
  method: string;
  /** Path and query string, as sent on the request line. */
  url: string;
  headers: IncomingHttpHeaders;
  body: string;
}

/** A node:http server on 127.0.0.1 with a random port that records every request. */
export interface TestServer {
  origin: string;
  port: number;
  requests: RecordedRequest[];
  close(): Promise<void>;
}

type Route = (request: RecordedRequest, response: ServerResponse, url: URL) => void;

/**
 * Starts a recording server answering with `route`, on 127.0.0.1 by default. `dualStack` listens
 * on `::` with IPv4 mapped in, so every loopback spelling (localhost, [::1], 2130706433, ...)
 * really reaches it.
 */
export async function startServer(route: Route, options: { dualStack?: boolean } = {}): Promise<TestServer> {
  const requests: RecordedRequest[] = [];
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      const recorded: RecordedRequest = {
        method: req.method ?? "",
        url: req.url ?? "",
        headers: req.headers,
        body: Buffer.concat(chunks).toString("utf8"),
      };
      requests.push(recorded);
      route(recorded, res, new URL(recorded.url, "http://upstream.invalid"));
    });
  });
  const address = options.dualStack ? { port: 0, host: "::", ipv6Only: false } : { port: 0, host: "127.0.0.1" };
  await new Promise<void>((resolve) => server.listen(address, resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    origin: `http://127.0.0.1:${port}`,
    port,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function send(res: ServerResponse, status: number, body: string | Uint8Array, headers: Record<string, string | string[]> = {}): void {
  res.writeHead(status, headers);
  res.end(body);
}

const sendJson = (res: ServerResponse, status: number, value: unknown, headers: Record<string, string | string[]> = {}) =>
  send(res, status, JSON.stringify(value), { "content-type": "application/json", ...headers });

/** Bytes of the fake PNG served by `/v1/binary`. */
export const BINARY_BYTES = Uint8Array.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0xff, 0x10, 0x80]);

/**
 * The toolkits' API. It never echoes a credential back, except `/v1/whoami`, which only the tool
 * that checks redaction calls. Routes:
 * - `/v1/echo`: 200 JSON `{ ok, method, path }` (path without the query string).
 * - `/v1/headers`: 200 with headers an agent may see and ones it must not.
 * - `/v1/status/{code}`: that status, JSON; `?retry=N` adds `Retry-After: N`.
 * - `/v1/text`, `/v1/binary`: a text/plain and an image/png body.
 * - `/v1/redirect?to=URL&code=302`: a redirect to `to`.
 * - `/v1/slow?ms=N`: answers after N ms.
 * - `/v1/items/{id}` (GET) and `/v1/items` (POST): for the JSON toolkit.
 * - `/t/{tenant}/echo`: for the toolkit whose base URL has a placeholder.
 * - `/v1/reflect?status=N&as=text`: echoes its own URL (query string and all) in the body (JSON,
 *   or text with `as=text`) and in a `Link` header, answering status N (default 200), as an
 *   upstream's pagination links and error pages do; it is how a query-string key comes back.
 */
export function upstreamRoute(request: RecordedRequest, res: ServerResponse, url: URL): void {
  const path = url.pathname;
  if (path === "/v1/echo" || /^\/t\/[^/]+\/echo$/.test(path)) return sendJson(res, 200, { ok: true, method: request.method, path });
  if (path === "/v1/headers") {
    return sendJson(
      res,
      200,
      { ok: true },
      {
        etag: '"v1"',
        "x-request-id": "req-42",
        "x-ratelimit-remaining": "9",
        "set-cookie": ["session=upstream-session; HttpOnly"],
        "www-authenticate": 'Bearer realm="upstream"',
        "x-internal-debug": "upstream-internal",
      },
    );
  }
  const status = /^\/v1\/status\/(\d{3})$/.exec(path);
  if (status) {
    const retry = url.searchParams.get("retry");
    return sendJson(res, Number(status[1]), { error: `status ${status[1]}` }, retry ? { "retry-after": retry } : {});
  }
  if (path === "/v1/text") return send(res, 200, "hello as text", { "content-type": "text/plain; charset=utf-8" });
  if (path === "/v1/binary") return send(res, 200, BINARY_BYTES, { "content-type": "image/png" });
  if (path === "/v1/redirect") {
    return send(res, Number(url.searchParams.get("code") ?? 302), "redirecting", {
      location: url.searchParams.get("to") ?? "/",
      "content-type": "text/plain",
    });
  }
  if (path === "/v1/slow") {
    setTimeout(() => sendJson(res, 200, { slow: true }), Number(url.searchParams.get("ms") ?? 1000)).unref();
    return;
  }
  if (path === "/v1/reflect") {
    const status = Number(url.searchParams.get("status") ?? 200);
    const link = { link: `<${request.url}>; rel="next"` };
    if (url.searchParams.get("as") === "text")
      return send(res, status, `Not found: GET ${request.url}?token=abc`, { "content-type": "text/plain", ...link });
    return sendJson(
      res,
      status,
      { error: status >= 400 ? `failed at ${request.url}?token=abc` : null, self: request.url, nested: [{ next: request.url }] },
      link,
    );
  }
  if (path === "/v1/deep") {
    // JSON nested `depth` levels: {"a":[{"a":[...]}]}.
    const depth = Number(url.searchParams.get("depth") ?? 5000);
    const open = '{"a":['.repeat(Math.ceil(depth / 2));
    return send(res, 200, `${open}1${"]}".repeat(Math.ceil(depth / 2))}`, { "content-type": "application/json" });
  }
  if (path === "/v1/whoami") return sendJson(res, 200, { authorization: request.headers.authorization ?? null });
  const item = /^\/v1\/items\/([^/]+)$/.exec(path);
  if (item && request.method === "GET")
    return sendJson(res, 200, { id: decodeURIComponent(item[1]!), verbose: url.searchParams.get("verbose") });
  if (path === "/v1/items" && request.method === "POST") return sendJson(res, 201, { created: JSON.parse(request.body || "null") });
  return sendJson(res, 404, { error: "no such upstream route" });
}

/** The server that must never receive a request: anything it gets is a policy failure. */
export function foreignRoute(_request: RecordedRequest, res: ServerResponse): void {
  send(res, 200, "foreign server reached", { "content-type": "text/plain" });
}
