/** The Node bridge of the node and express adapters, in process, for what the shared suite cannot reach. */
import { createServer, request as httpRequest, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { connect, type Socket } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { toNodeHandler } from "../../adapters/node.js";
import { wholeBodyOf } from "../../src/core/whole-bodies.js";
import { createToolsHandler, issueApiKey, memoryStore } from "../../src/index.js";

let server: Server;
let port: number;
/** The bodies the /body route read: whether the bridge had read it whole, and its text. */
const bodies: Array<{ whole: boolean; text: string }> = [];
beforeAll(async () => {
  server = createServer(
    toNodeHandler(async (request) => {
      const url = new URL(request.url);
      if (url.pathname === "/throws") throw new Error("a bug with a secret-123 inside");
      if (url.pathname === "/early") return Response.json({ error: "Too large.", code: "payload_too_large" }, { status: 413 });
      if (url.pathname === "/body") {
        const seen = { whole: wholeBodyOf(request) !== undefined, text: "(unread)" };
        bodies.push(seen); // before reading: a handler run for a body that never ends is seen too
        seen.text = await request.text();
        return new Response(null, { status: 204 });
      }
      if (url.pathname === "/headers") {
        const names = ["host", "authorization", "content-type", "cookie", "x-api-key", "x-dup"];
        return Response.json({
          get: names.map((name) => request.headers.get(name)),
          all: [...request.headers],
          body: await request.text(),
        });
      }
      return Response.json({ host: url.host, path: url.pathname + url.search });
    }),
  );
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  port = (server.address() as AddressInfo).port;
});
afterAll(() => new Promise((resolve) => server.close(resolve)));

/** Resolves when `check` holds, checking every 10 ms. */
async function until(check: () => boolean | Promise<boolean>): Promise<void> {
  while (!(await check())) await new Promise((resolve) => setTimeout(resolve, 10));
}

/** Sends `request` as is over a socket and resolves to all that came back once the server closed. */
function rawExchange(request: string): Promise<string> {
  return new Promise((resolve, reject) => {
    let received = "";
    connect(port, "127.0.0.1", function (this: Socket) {
      this.end(request);
    })
      .on("data", (chunk: Buffer) => (received += chunk.toString("latin1")))
      .once("close", () => resolve(received))
      .once("error", reject);
  });
}

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

  it("answers a Host that makes no URL with the path (a:b:c, an IPv6 address without brackets) with a 400 in the error format", async () => {
    for (const host of ["a:b:c", "::1", "[::1"]) {
      const res = await get("/p", host);
      expect(res.status, host).toBe(400);
      expect(JSON.parse(res.body), host).toEqual({ error: expect.any(String), code: "invalid_request" });
    }
  });

  it("answers a method no Request may carry (TRACE) with a 400 in the error format, without running the handler", async () => {
    const res = await new Promise<{ status: number; body: string }>((resolve, reject) => {
      httpRequest({ port, host: "127.0.0.1", method: "TRACE", path: "/throws" }, (r) => {
        let body = "";
        r.on("data", (chunk: Buffer) => (body += chunk));
        r.on("end", () => resolve({ status: r.statusCode ?? 0, body }));
      })
        .on("error", reject)
        .end();
    });
    expect(res.status).toBe(400);
    expect(JSON.parse(res.body)).toEqual({ error: expect.any(String), code: "invalid_request" });
  });

  it("gives the handler the headers a Headers built from the lines sent gives, repeated lines joined (not only the first, as Node's req.headers keeps)", async () => {
    const lines = [
      "Authorization: Bearer one",
      "authorization: Bearer two",
      "Cookie: a=1",
      "Cookie: b=2",
      "X-Api-Key:  k  ",
      "x-dup: 1",
      "X-Dup: 2",
    ];
    const expected = new Headers(lines.map((line) => line.split(/:(.*)/s).slice(0, 2) as [string, string]));
    for (const [method, extra, body] of [
      ["GET", [], ""],
      ["POST", ["Content-Type: text/plain", "content-type: application/json", "Content-Length: 2"], "{}"], // read whole first
    ] as const) {
      for (const host of ["example.test:8080", "evil.test/other"]) {
        const sent = [`${method} /headers HTTP/1.1`, `Host: ${host}`, ...lines, ...extra, "Connection: close", "", body].join("\r\n");
        const answer = JSON.parse((await rawExchange(sent)).split("\r\n\r\n")[1]!);
        const seen = new Headers(expected);
        seen.set("host", host.includes("/") ? "localhost" : host);
        seen.set("connection", "close");
        for (const line of extra) seen.append(...(line.split(/:(.*)/s).slice(0, 2) as [string, string]));
        const names = ["host", "authorization", "content-type", "cookie", "x-api-key", "x-dup"];
        expect(answer, `${method} ${host}`).toEqual({ get: names.map((name) => seen.get(name)), all: [...seen], body });
      }
    }
  });

  it("leaves the global Request and Response alone: fetch's answers are still instances of Response", async () => {
    const response = await fetch(`http://127.0.0.1:${port}/p`);
    expect(response).toBeInstanceOf(Response);
    expect(new Request(`http://127.0.0.1:${port}/`)).toBeInstanceOf(Request);
    await response.text();
  });

  it("sends a status line with the status's own reason phrase when the Response has none", async () => {
    const res = await new Promise<{ status: number; message: string | undefined }>((resolve, reject) => {
      httpRequest({ port, host: "127.0.0.1", path: "/p" }, (r) => {
        r.resume();
        resolve({ status: r.statusCode ?? 0, message: r.statusMessage });
      })
        .on("error", reject)
        .end();
    });
    expect(res).toEqual({ status: 200, message: "OK" });
  });

  it("reads a small body whole before the handler runs, and streams a larger one", async () => {
    bodies.length = 0;
    const small = "x".repeat(64 * 1024);
    const large = "y".repeat(64 * 1024 + 1);
    for (const body of [small, large]) {
      const res = await fetch(`http://127.0.0.1:${port}/body`, { method: "POST", body });
      expect(res.status).toBe(204);
    }
    const chunked = new Blob(["z"]).stream(); // no Content-Length: streamed
    await fetch(`http://127.0.0.1:${port}/body`, { method: "POST", body: chunked, duplex: "half" } as RequestInit);
    expect(bodies).toEqual([
      { whole: true, text: small },
      { whole: false, text: large },
      { whole: false, text: "z" },
    ]);
  });

  it("never runs the handler for a client that leaves before its small body ended", async () => {
    bodies.length = 0;
    const accepted: Socket[] = [];
    const onConnection = (s: Socket) => accepted.push(s);
    server.on("connection", onConnection);
    const socket = connect(port, "127.0.0.1");
    await new Promise((resolve) => socket.once("connect", resolve));
    const head = "POST /body HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\n0123456789";
    socket.write(head);
    let peer: Socket | undefined;
    await until(() => {
      peer = accepted.find((s) => s.remotePort === socket.localPort);
      return peer !== undefined && peer.bytesRead >= head.length;
    });
    server.off("connection", onConnection);
    socket.destroy();
    await until(() => peer!.destroyed);
    const res = await fetch(`http://127.0.0.1:${port}/body`, { method: "POST", body: "after" });
    expect(res.status).toBe(204);
    expect(bodies).toEqual([{ whole: true, text: "after" }]);
  });
  it("after answering before the body ended, reads and drops the rest for a bounded time, then closes the connection", async () => {
    const declared = 1024 * 2 ** 20; // far more than the drain takes (64 MiB, 500 ms)
    const socket = connect(port, "127.0.0.1");
    await new Promise((resolve) => socket.once("connect", resolve));
    let answer = "";
    socket.on("data", (chunk: Buffer) => (answer += chunk.toString("latin1")));
    const closed = new Promise<void>((resolve) => socket.once("close", () => resolve()));
    socket.on("error", () => {}); // the server may close while we still send
    socket.write(`POST /early HTTP/1.1\r\nHost: x\r\nContent-Length: ${declared}\r\n\r\n`);
    const chunk = Buffer.alloc(64 * 1024, 120);
    let sent = 0;
    let open = true;
    void closed.then(() => (open = false));
    while (open && sent < declared) {
      sent += chunk.length;
      if (!socket.write(chunk)) await Promise.race([new Promise((resolve) => socket.once("drain", resolve)), closed]);
    }
    await closed;
    expect(answer).toMatch(/^HTTP\/1\.1 413 /);
    expect(answer).toContain('"code":"payload_too_large"');
    expect(sent, "the server read on after answering, past what the sockets hold").toBeGreaterThan(16 * 2 ** 20);
    expect(sent, "then closed the connection long before the declared body was sent").toBeLessThan(declared / 4);
  }, 30_000);
});

describe("toNodeHandler with the Tools API handler", () => {
  it("writes the handler's JSON answers whole, as the standard Response would have them", async () => {
    const store = memoryStore();
    const tools = createToolsHandler({ store, toolkits: [], cors: { origins: ["https://app.test"] } });
    const { key } = await issueApiKey(store, { workspaceId: "ws", agentId: "agent" });
    const api = createServer(toNodeHandler(tools));
    await new Promise<void>((resolve) => api.listen(0, "127.0.0.1", resolve));
    const base = `http://127.0.0.1:${(api.address() as AddressInfo).port}/proxy/tools`;
    try {
      const cases: Record<string, string>[] = [{ "x-api-key": key }, { "x-api-key": key, origin: "https://app.test" }, {}];
      for (const headers of cases) {
        const served = await fetch(`${base}/connections`, { headers });
        const direct = await tools(new Request(`${base}/connections`, { headers }));
        expect(served.status).toBe(direct.status);
        expect(served.statusText).toBe(served.status === 200 ? "OK" : "Unauthorized");
        const strip = (h: Headers) => Object.fromEntries([...h].filter(([name]) => !["date", "connection", "keep-alive"].includes(name)));
        expect(strip(served.headers)).toEqual(strip(direct.headers));
        expect(await served.text()).toBe(await direct.text());
      }
    } finally {
      await new Promise((resolve) => api.close(resolve));
      await tools.close();
    }
  });
});
