/**
 * The Fastify plugin in process, in an app that has body parsers and hooks of its own: a JSON
 * parser it replaced, a catch-all parser that reads every other body, and a preHandler hook. The
 * handler still gets each body unread and streaming, its URL as sent; the app's own routes keep
 * their parsers, and the app's hooks guard the handler's routes too.
 */
import { request as httpRequest } from "node:http";
import Fastify, { type FastifyInstance } from "fastify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { toFastifyPlugin } from "../../adapters/fastify.js";

/** A handler that answers with what it received. */
async function echo(request: Request): Promise<Response> {
  const body = await request.text();
  return Response.json({ method: request.method, url: request.url, type: request.headers.get("content-type"), body });
}

let app: FastifyInstance;
let origin: string;
const handled: string[] = [];
const responded: number[] = [];
beforeAll(async () => {
  app = Fastify();
  app.removeContentTypeParser("application/json");
  app.addContentTypeParser("application/json", { parseAs: "string" }, (_request, body, done) =>
    done(null, { parsedByTheApp: JSON.parse(body as string) }),
  );
  app.addContentTypeParser("*", { parseAs: "buffer" }, (_request, body, done) =>
    done(null, { bytesReadByTheApp: (body as Buffer).byteLength }),
  );
  app.addHook("preHandler", async (request, reply) => {
    if (request.headers["x-deny"]) await reply.code(403).send({ denied: true });
  });
  app.addHook("onResponse", async (_request, reply) => void responded.push(reply.statusCode));
  app.post("/notes", async (request) => ({ saved: request.body }));
  await app.register(
    toFastifyPlugin((request) => (handled.push(new URL(request.url).pathname), echo(request))),
    { prefix: "/tools" },
  );
  // Sends the body back as it reads it.
  await app.register(
    toFastifyPlugin(async (request) => new Response(request.body, { headers: { "content-type": "application/octet-stream" } })),
    { prefix: "/stream" },
  );
  origin = await app.listen({ port: 0, host: "127.0.0.1" });
});
afterAll(() => app.close());

const post = async (path: string, headers: Record<string, string>, body: BodyInit) => {
  const response = await fetch(`${origin}${path}`, { method: "POST", headers, body });
  return { status: response.status, json: await response.json() };
};

describe("toFastifyPlugin beside an app's own parsers and hooks", () => {
  it("hands the handler every body as sent, whatever parsers the app registered", async () => {
    const json = '{ "tool" : "X",\n "arguments": { "n": 1e2 } }';
    expect((await post("/tools/execute", { "content-type": "application/json" }, json)).json).toMatchObject({
      type: "application/json",
      body: json,
    });
    const multipart = '--b\r\ncontent-disposition: form-data; name="file"; filename="a.txt"\r\n\r\nhello\r\n--b--\r\n';
    expect((await post("/tools/upload", { "content-type": "multipart/form-data; boundary=b" }, multipart)).json.body).toBe(multipart);
    expect((await post("/tools/upload", { "content-type": "application/octet-stream" }, new Uint8Array([104, 105]))).json.body).toBe("hi");
    expect((await post("/tools/x", { "content-type": "text/plain" }, "plain, é")).json.body).toBe("plain, é");
  });

  it("passes the URL as sent: path escapes and the query string untouched", async () => {
    const got = await post("/tools/toolkit/%61cme?a=1&a=2&b[c]=d", { "content-type": "application/json" }, "{}");
    expect(got.json.url).toBe(`${origin}/tools/toolkit/%61cme?a=1&a=2&b[c]=d`);
  });

  it("leaves the app's own routes their parsers", async () => {
    expect((await post("/notes", { "content-type": "application/json" }, '{"a":[1]}')).json).toEqual({
      saved: { parsedByTheApp: { a: [1] } },
    });
    expect((await post("/notes", { "content-type": "application/octet-stream" }, new Uint8Array(5))).json).toEqual({
      saved: { bytesReadByTheApp: 5 },
    });
  });

  it("runs the app's hooks: one that answers keeps the request from the handler, and onResponse runs after it", async () => {
    handled.length = 0;
    responded.length = 0;
    const denied = await post("/tools/execute", { "content-type": "application/json", "x-deny": "1" }, "{}");
    expect(denied).toEqual({ status: 403, json: { denied: true } });
    expect(handled).toEqual([]);
    await post("/tools/execute", { "content-type": "application/json" }, "{}");
    expect(handled).toEqual(["/tools/execute"]);
    await new Promise((resolve) => setImmediate(resolve));
    expect(responded).toEqual([403, 200]);
  });

  it("streams a body both ways: the first chunk comes back before the client sends the second", async () => {
    const received = await new Promise<string>((resolve, reject) => {
      const req = httpRequest(`${origin}/stream/echo`, {
        method: "POST",
        headers: { "content-type": "application/json", "transfer-encoding": "chunked" },
      });
      const guard = setTimeout(
        () => reject(new Error("the first chunk did not come back before the rest was sent: the body was buffered")),
        10_000,
      );
      req.on("response", (res) => {
        let text = "";
        res.setEncoding("utf8");
        res.on("data", (chunk: string) => {
          text += chunk;
          if (text === '{"first": ') req.end('"and the rest"}');
        });
        res.on("end", () => (clearTimeout(guard), resolve(text)));
      });
      req.on("error", reject);
      req.write('{"first": ');
    });
    expect(received).toBe('{"first": "and the rest"}');
  });

  it("leaves a malformed Content-Type or path escape to Fastify, which answers in its own error format", async () => {
    handled.length = 0;
    const res = await post("/tools/execute", { "content-type": "not a media type" }, "{}");
    expect(res).toMatchObject({ status: 415, json: { code: "FST_ERR_CTP_INVALID_MEDIA_TYPE" } });
    const badUrl = await fetch(`${origin}/tools/toolkit/%zz`);
    expect({ status: badUrl.status, json: await badUrl.json() }).toMatchObject({ status: 400, json: { code: "FST_ERR_BAD_URL" } });
    expect(handled).toEqual([]);
  });
});
