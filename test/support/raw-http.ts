/** Raw HTTP/1.1 over node:net, for the requests that fetch would never send. */
import { connect } from "node:net";
import { expect } from "vitest";

/** Sends raw bytes and resolves with everything the server wrote before it closed the connection. */
export function rawExchange(port: number, bytes: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, "127.0.0.1");
    let answer = "";
    socket.setEncoding("latin1");
    socket.on("data", (chunk: string) => (answer += chunk));
    socket.on("error", (error: NodeJS.ErrnoException) => (error.code === "ECONNRESET" && answer ? resolve(answer) : reject(error)));
    socket.on("close", () => resolve(answer));
    socket.write(bytes);
  });
}

/** The status line, headers and parsed body of a raw HTTP/1.1 answer. */
export function parseAnswer(raw: string): { status: number; headers: Record<string, string>; body: unknown } {
  const [head = "", body = ""] = raw.split("\r\n\r\n");
  const [statusLine = "", ...lines] = head.split("\r\n");
  const headers = Object.fromEntries(
    lines.map((line) => [line.slice(0, line.indexOf(":")).toLowerCase(), line.slice(line.indexOf(":") + 1).trim()]),
  );
  expect(Number(headers["content-length"]), raw).toBe(Buffer.byteLength(body, "latin1"));
  return { status: Number(statusLine.split(" ")[1]), headers, body: JSON.parse(body) };
}

/** Requests Node's parser refuses, the status and code each gets, and a marker that must not be echoed. */
export const REFUSED: Array<{ name: string; request: string; status: number; code: string; error: RegExp }> = [
  {
    name: "headers over 16 KiB",
    request: `GET /proxy/tools/search HTTP/1.1\r\nHost: x\r\nX-Big: ECHO-MARK-${"a".repeat(20_000)}\r\n\r\n`,
    status: 431,
    code: "invalid_request",
    error: /more headers, or larger ones, than this server accepts/,
  },
  {
    name: "3,000 headers",
    request: `GET /proxy/tools/search HTTP/1.1\r\nHost: x\r\n${Array.from({ length: 3000 }, (_, i) => `X-ECHO-MARK-${i}: v\r\n`).join("")}\r\n`,
    status: 431,
    code: "invalid_request",
    error: /send fewer or shorter headers/,
  },
  {
    name: "a malformed Content-Length",
    request: "POST /proxy/tools/execute HTTP/1.1\r\nHost: x\r\nContent-Length: ECHO-MARK\r\n\r\n",
    status: 400,
    code: "invalid_request",
    error: /Content-Length header must be one whole number/,
  },
  {
    name: "both Content-Length and Transfer-Encoding",
    request: "POST /proxy/tools/execute HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\nECHO-MARK",
    status: 400,
    code: "invalid_request",
    error: /Transfer-Encoding: chunked alone or with a Content-Length alone, never both/,
  },
  {
    name: "chunk extensions over 16 KiB",
    request: `POST /proxy/tools/execute HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n1;ECHO-MARK=${"a".repeat(20_000)}\r\nx\r\n0\r\n\r\n`,
    status: 413,
    code: "payload_too_large",
    error: /chunk extensions/,
  },
  {
    name: "a request line that is not HTTP",
    request: "ECHO-MARK\r\n\r\n",
    status: 400,
    code: "invalid_request",
    error: /not valid HTTP\/1\.1/,
  },
];
