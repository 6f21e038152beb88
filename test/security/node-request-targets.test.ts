/**
 * Request targets other than a plain path, through the real Node adapter over raw sockets. The
 * absolute form (`GET http://host/path HTTP/1.1`, which proxies send and RFC 9112 §3.2.2 says a
 * server must accept) used to be glued after the Host header (`http://127.0.0.1:8080http://...`),
 * answering a misleading 400, or routing on a garbled URL. Now its path is the path, and
 * anything that is neither form is a 400 in the error format.
 */
import { createServer, type Server } from "node:http";
import { type AddressInfo, connect } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { toNodeHandler } from "../../adapters/node.js";

let server: Server;
let port: number;
beforeAll(async () => {
  server = createServer(toNodeHandler(async (request) => Response.json({ url: request.url })));
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  port = (server.address() as AddressInfo).port;
});
afterAll(() => new Promise((resolve) => server.close(resolve)));

/** One raw request line with a Host header; the status and the JSON body of the answer. */
function send(target: string, host = `127.0.0.1:${port}`, method = "GET"): Promise<{ status: number; body: Record<string, string> }> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, "127.0.0.1", () =>
      socket.write(`${method} ${target} HTTP/1.1\r\nHost: ${host}\r\nConnection: close\r\n\r\n`),
    );
    let answer = "";
    socket.on("data", (chunk: Buffer) => (answer += chunk.toString("latin1")));
    socket.on("error", reject);
    socket.on("close", () => {
      try {
        const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(answer)?.[1]);
        const [head, ...rest] = answer.split("\r\n\r\n");
        let body = rest.join("\r\n\r\n");
        if (/transfer-encoding: chunked/i.test(head!)) body = dechunk(body);
        resolve({ status, body: JSON.parse(body) as Record<string, string> });
      } catch (error) {
        reject(new Error(`${String(error)} in ${JSON.stringify(answer)}`));
      }
    });
  });
}

/** The data of a chunked body. */
function dechunk(body: string): string {
  let out = "";
  for (let at = 0; ; ) {
    const end = body.indexOf("\r\n", at);
    const size = parseInt(body.slice(at, end), 16);
    if (!size) return out;
    out += body.slice(end + 2, end + 2 + size);
    at = end + 2 + size + 2;
  }
}

describe("request targets through toNodeHandler", () => {
  it("takes the path and query of an absolute-form target, keeping the Host header's host", async () => {
    for (const target of [
      "http://127.0.0.1/proxy/tools/search?q=1",
      "http://other.test:9/proxy/tools/search?q=1",
      "HTTP://user:pass@evil.test/proxy/tools/search?q=1",
    ]) {
      expect(await send(target), target).toEqual({ status: 200, body: { url: `http://127.0.0.1:${port}/proxy/tools/search?q=1` } });
    }
    expect((await send("http://evil.test/proxy/tools/search", "localhost")).body.url).toBe("http://localhost/proxy/tools/search");
  });

  it("answers a target that is neither a path nor an absolute URL with a 400 in the error format", async () => {
    for (const [target, method] of [
      ["*", "OPTIONS"],
      ["*", "GET"],
      ["ftp://evil.test/x", "GET"],
    ]) {
      const { status, body } = await send(target!, "localhost", method);
      expect(status, target).toBe(400);
      expect(Object.keys(body).sort()).toEqual(["code", "error"]);
      expect(body.code).toBe("invalid_request");
    }
  });

  it("still keeps an origin-form path as sent", async () => {
    expect((await send("//double/slash/%41?a=1&a=2")).body.url).toBe(`http://127.0.0.1:${port}//double/slash/%41?a=1&a=2`);
  });
});
