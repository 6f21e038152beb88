import type { Duplex } from "node:stream";

/** Status, reason phrase, code and sentence for each parser error a client can cause; anything else is the default. */
const ANSWERS: Record<string, [number, string, "invalid_request" | "payload_too_large", string]> = {
  // A 431 keeps its status (clients and proxies know it) with the 400 family's code.
  HPE_HEADER_OVERFLOW: [
    431,
    "Request Header Fields Too Large",
    "invalid_request",
    "The request has more headers, or larger ones, than this server accepts (by default 16 KiB in all); send fewer or shorter headers.",
  ],
  HPE_CHUNK_EXTENSIONS_OVERFLOW: [
    413,
    "Payload Too Large",
    "payload_too_large",
    "The chunk extensions of the request body are too large; send the body without chunk extensions.",
  ],
  ERR_HTTP_REQUEST_TIMEOUT: [408, "Request Timeout", "invalid_request", "The request did not arrive in time; send it again, all at once."],
  HPE_UNEXPECTED_CONTENT_LENGTH: [
    400,
    "Bad Request",
    "invalid_request",
    "The request has both Content-Length and Transfer-Encoding; send only one of them.",
  ],
  HPE_INVALID_CONTENT_LENGTH: [
    400,
    "Bad Request",
    "invalid_request",
    "The Content-Length header must be one whole number of bytes; correct it, or leave it out and send the body chunked.",
  ],
  // Node 24 reports both Content-Length and Transfer-Encoding with this code, not the one above.
  HPE_INVALID_TRANSFER_ENCODING: [
    400,
    "Bad Request",
    "invalid_request",
    "The request's Transfer-Encoding cannot be used: " +
      "frame the body either with Transfer-Encoding: chunked alone or with a Content-Length alone, never both.",
  ],
  HPE_INVALID_HEADER_TOKEN: [
    400,
    "Bad Request",
    "invalid_request",
    "A header name or value holds a character HTTP does not allow; remove it and send the request again.",
  ],
};
const DEFAULT: (typeof ANSWERS)[string] = [
  400,
  "Bad Request",
  "invalid_request",
  "The request is not valid HTTP/1.1; check its request line, headers and body framing, and send it again.",
];

/**
 * A `clientError` listener for a `node:http` server: `server.on("clientError", handleClientError)`.
 * Node's parser refuses some requests before any handler sees them (headers over 16 KiB, a
 * malformed Content-Length, both Content-Length and Transfer-Encoding, ...) and by default answers
 * with an empty 400 or 431; this answers them like the Tools API does, with the JSON body
 * `{ error, code }` (`invalid_request`; 413 `payload_too_large` for oversized chunk extensions; a 431
 * or 408 keeps its status), then closes the connection. Nothing of the request is echoed. When the
 * socket can no longer carry an answer (the client went away, or a response has begun), it is
 * destroyed instead.
 */
export function handleClientError(error: Error & { code?: string }, socket: Duplex): void {
  const inFlight = (socket as Duplex & { _httpMessage?: { headersSent?: boolean } })._httpMessage;
  if (error.code === "ECONNRESET" || !socket.writable || inFlight?.headersSent) {
    socket.destroy();
    return;
  }
  const [status, reason, code, sentence] = ANSWERS[error.code ?? ""] ?? DEFAULT;
  const body = JSON.stringify({ error: sentence, code });
  const head =
    `HTTP/1.1 ${status} ${reason}\r\n` +
    "Content-Type: application/json; charset=utf-8\r\n" +
    `Content-Length: ${Buffer.byteLength(body)}\r\n` +
    "Connection: close\r\n\r\n";
  socket.end(head + body, () => socket.destroy());
}
