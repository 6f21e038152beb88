/** The Node bridge of the node and express adapters, in process, for what the shared suite cannot reach. */
import { createServer, request as httpRequest, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { toNodeHandler } from "../../adapters/node.js";

let server: Server;
let port: number;
beforeAll(async () => {
  server = createServer(
    toNodeHandler(async (request) => {
      const url = new URL(request.url);
      if (url.pathname === "/throws") throw new Error("a bug with a secret-123 inside");
      return Response.json({ host: url.host, path: url.pathname + url.search });
    }),
  );
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  port = (server.address() as AddressInfo).port;
});
afterAll(() => new Promise((resolve) => server.close(resolve)));

/** A raw GET with a Host header of our choosing, which fetch would not send. */
function get(path: string, host: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest({ port, host: "127.0.0.1", path, headers: { host } }, (res) => {
      let body = "";
      res.on("data", (chunk: Buffer) => (body += chunk));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on("error", reject);
    req.end();
  });
}

describe("toNodeHandler", () => {
  it("answers a handler that throws with a 500 in the error format, saying nothing of the error", async () => {
    const res = await get("/throws", "example.test");
    expect(res.status).toBe(500);
    expect(JSON.parse(res.body)).toEqual({ error: expect.any(String), code: "internal" });
    expect(res.body).not.toContain("secret-123");
  });

  it("keeps the path and query as sent, whatever the Host header says", async () => {
    expect(JSON.parse((await get("//double/slash/%41?a=1&a=2&b[c]=d", "example.test:8080")).body)).toEqual({
      host: "example.test:8080",
      path: "//double/slash/%41?a=1&a=2&b[c]=d",
    });
    expect(JSON.parse((await get("/p?q", "evil.test/other?x=")).body)).toEqual({ host: "localhost", path: "/p?q" });
  });

  it("leaves the global Request and Response alone: fetch's answers are still instances of Response", async () => {
    const response = await fetch(`http://127.0.0.1:${port}/p`);
    expect(response).toBeInstanceOf(Response);
    expect(new Request(`http://127.0.0.1:${port}/`)).toBeInstanceOf(Request);
    await response.text();
  });
});
