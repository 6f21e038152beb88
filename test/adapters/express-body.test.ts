/**
 * The Express adapter after each of Express's body parsers, on Express 5 and 4, in process: the
 * handler gets what the parser read (a Buffer or string as it is, a parsed object as JSON), and an
 * unread body streams through unchanged.
 */

import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import express5 from "express";
import express4 from "express4";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { toExpressHandler } from "../../adapters/express.js";

/** A handler that answers with what it received, read as a stream as the handler's routes read it. */
async function echo(request: Request): Promise<Response> {
  const body = request.body ? await new Response(request.body).text() : "";
  return Response.json({ method: request.method, url: request.url, type: request.headers.get("content-type"), body });
}

for (const [name, express] of [
  ["Express 5", express5],
  ["Express 4", express4],
] as const) {
  describe(`${name}: a body parser before toExpressHandler`, () => {
    let server: Server;
    let origin: string;
    beforeAll(async () => {
      const app = express();
      app.use("/json", express.json(), toExpressHandler(echo));
      app.use("/text", express.text(), toExpressHandler(echo));
      app.use("/raw", express.raw(), toExpressHandler(echo));
      app.use("/form", express.urlencoded({ extended: true }), toExpressHandler(echo));
      app.use("/none", toExpressHandler(echo));
      // A middleware that reads the body and keeps nothing of it on req.body, as multer does with a form.
      const swallow = (req: { on: (e: string, f: () => void) => void; resume: () => void }, _res: unknown, next: () => void) => {
        req.on("end", next);
        req.resume();
      };
      app.use("/swallowed", swallow, toExpressHandler(echo));
      server = app.listen(0, "127.0.0.1");
      await new Promise((resolve) => server.once("listening", resolve));
      origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    });
    afterAll(() => new Promise((resolve) => server.close(resolve)));

    const post = async (path: string, type: string, body: BodyInit) =>
      (await fetch(`${origin}${path}`, { method: "POST", headers: { "content-type": type }, body })).json();

    it("express.json(): the parsed object, as JSON", async () => {
      const sent = '{ "tool" : "X",\n "arguments": { "n": 1e2, "s": "\\u00e9" } }';
      const got = await post("/json/execute?a=1&a=2", "application/json", sent);
      expect(JSON.parse(got.body)).toEqual(JSON.parse(sent));
      expect(got.url).toBe(`${origin}/json/execute?a=1&a=2`);
    });

    it("express.text() and express.raw(): the bytes as read", async () => {
      expect((await post("/text", "text/plain", "just text, é")).body).toBe("just text, é");
      expect((await post("/raw", "application/octet-stream", new Uint8Array([104, 105]))).body).toBe("hi");
    });

    it("express.urlencoded(): the parsed form as JSON, under its own content type", async () => {
      const got = await post("/form", "application/x-www-form-urlencoded", "a=1&b[c]=2");
      expect(got.type).toBe("application/x-www-form-urlencoded");
      expect(JSON.parse(got.body)).toEqual({ a: "1", b: { c: "2" } });
    });

    it("an empty body stays empty after express.json() (which sets req.body to {})", async () => {
      const got = (await (
        await fetch(`${origin}/json`, { method: "POST", headers: { "content-type": "application/json", "content-length": "0" } })
      ).json()) as { body: string };
      expect(got.body).toBe("");
    });

    it("a body read and not kept (multer, a stream reader) is a 400 in the error format that says to mount the handler first", async () => {
      for (const type of ["application/json", "multipart/form-data; boundary=x"]) {
        const response = await fetch(`${origin}/swallowed`, { method: "POST", headers: { "content-type": type }, body: '--x\r\n{"a":1}' });
        expect(response.status).toBe(400);
        expect(await response.json()).toEqual({ code: "invalid_request", error: expect.stringMatching(/mount the handler before it/) });
      }
    });

    it("a body no parser read streams through as sent, as does one a parser skipped", async () => {
      expect((await post("/none", "application/json", '{ "kept": "as sent" }')).body).toBe('{ "kept": "as sent" }');
      expect((await post("/json", "text/plain", "not for express.json")).body).toBe("not for express.json");
    });
  });
}
