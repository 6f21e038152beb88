/**
 * Hono without a server (`app.request`): `app.all(`${basePath}/*`, (c) => handler(c.req.raw))`
 * hands the handler the request as sent, its body unread, beside routes of the app's own; a
 * middleware that reads the body before it leaves it one it cannot read again (docs/adapters/hono.md).
 */
import { Hono } from "hono";
import { describe, expect, it } from "vitest";

/** A handler that answers with what it received. */
async function echo(request: Request): Promise<Response> {
  const used = request.bodyUsed;
  return Response.json({ url: request.url, used, body: used ? null : await request.text() });
}

const app = new Hono();
app.use("/read-first/*", async (c, next) => {
  await c.req.json();
  await next();
});
app.post("/notes", async (c) => c.json({ saved: await c.req.json() }));
app.all("/tools/*", (c) => echo(c.req.raw));
app.all("/read-first/tools/*", (c) => echo(c.req.raw));

const post = async (path: string, body: string) =>
  (await app.request(`http://app.test${path}`, { method: "POST", headers: { "content-type": "application/json" }, body })).json();

describe("Hono, with the handler at app.all(`${basePath}/*`)", () => {
  it("hands the handler the URL and body as sent, and the app's own route reads its JSON", async () => {
    const json = '{ "tool" : "X",\n "arguments": {} }';
    expect(await post("/tools/toolkit/%61cme?a=1&a=2&b[c]=d", json)).toEqual({
      url: "http://app.test/tools/toolkit/%61cme?a=1&a=2&b[c]=d",
      used: false,
      body: json,
    });
    expect(await post("/notes", '{"a":[1]}')).toEqual({ saved: { a: [1] } });
  });

  it("after a middleware that read the body, hands the handler a used body", async () => {
    expect(await post("/read-first/tools/execute", "{}")).toEqual({
      url: "http://app.test/read-first/tools/execute",
      used: true,
      body: null,
    });
  });
});
