/**
 * The handler's whole answers (src/core/whole-bodies.ts): what the Node bridge writes without a
 * `Response`, and the standard `Response` every other caller gets, are the same answer.
 */
import { describe, expect, it } from "vitest";
import { errorResponse, ToolsError } from "../../src/core/errors.js";
import { json } from "../../src/core/http.js";
import { answersOf, knownBody, rememberBody, standardResponse, wholeParts } from "../../src/core/whole-bodies.js";
import { createToolsHandler, issueApiKey, memoryStore } from "../../src/index.js";

describe("a whole answer", () => {
  it("passes for a Response and gives its parts until its headers or body are asked for", async () => {
    const answer = json({ a: "é" }, 201, { "X-Extra": "1" });
    expect(answer).toBeInstanceOf(Response);
    expect(answer.status).toBe(201);
    expect(answer.ok).toBe(true);
    expect(answer.bodyUsed).toBe(false);
    const body = new TextEncoder().encode('{"a":"é"}');
    expect(wholeParts(answer)).toEqual({
      status: 201,
      headers: { "content-type": "application/json; charset=utf-8", "content-length": String(body.length), "x-extra": "1" },
      body,
    });

    answer.headers.set("access-control-allow-origin", "*"); // as CORS does: the parts no longer say it all
    expect(wholeParts(answer)).toBeNull();
    expect(answer.headers.get("access-control-allow-origin")).toBe("*");
    expect(answer.statusText).toBe("");
    expect(await answer.json()).toEqual({ a: "é" });
    expect(answer.bodyUsed).toBe(true);
  });

  it("delegates every reading method to one standard Response", async () => {
    const make = () => json({ n: 1 }, 404);
    expect(await make().text()).toBe('{"n":1}');
    expect(new Uint8Array(await make().arrayBuffer())).toEqual(new TextEncoder().encode('{"n":1}'));
    expect(await make().bytes()).toEqual(new TextEncoder().encode('{"n":1}'));
    expect(await (await make().blob()).text()).toBe('{"n":1}');
    const answer = make();
    expect(answer.ok).toBe(false);
    expect(answer.type).toBe("default");
    expect(answer.url).toBe("");
    expect(answer.redirected).toBe(false);
    expect(await answer.clone().json()).toEqual({ n: 1 });
    expect(await new Response(answer.body).text()).toBe('{"n":1}');
  });

  it("becomes a plain Response for callers other than the Node bridge", async () => {
    const answer = errorResponse(new ToolsError("rate_limited", "Slow down.", { retryAfter: 2.5, headers: { "X-Why": "burst" } }));
    const plain = standardResponse(answer);
    expect(Object.getPrototypeOf(plain)).toBe(Response.prototype);
    expect(plain.status).toBe(429);
    expect(Object.fromEntries(plain.headers)).toEqual({
      "content-length": String((await plain.clone().bytes()).length),
      "content-type": "application/json; charset=utf-8",
      "retry-after": "3",
      "x-why": "burst",
    });
    expect(await plain.json()).toEqual({ error: "Slow down.", code: "rate_limited" });
    const other = new Response("x");
    expect(standardResponse(other)).toBe(other);
    expect(wholeParts(other)).toBeNull();
  });
});

describe("a handler's answers", () => {
  it("are whole for the Node bridge and standard Responses for everyone else (Bun and Deno take no other)", async () => {
    const store = memoryStore();
    const tools = createToolsHandler({ store, toolkits: [] });
    const { key } = await issueApiKey(store, { workspaceId: "ws", agentId: "agent" });
    const request = () => new Request("http://x.test/proxy/tools/connections", { headers: { "x-api-key": key } });

    const answer = await answersOf(tools)(request());
    const parts = wholeParts(answer);
    expect(parts?.status).toBe(200);
    expect(JSON.parse(new TextDecoder().decode(parts?.body))).toEqual({ connections: [] });

    for (const served of [await tools(request()), await tools.handler(request())]) {
      expect(Object.getPrototypeOf(served)).toBe(Response.prototype);
      expect(await served.json()).toEqual({ connections: [] });
    }
    const denied = await tools(new Request("http://x.test/proxy/tools/connections"));
    expect(Object.getPrototypeOf(denied)).toBe(Response.prototype);
    expect(denied.status).toBe(401);
    await tools.close();
  });

  it("of a plain fetch function are its own", () => {
    const plain = async () => new Response("x");
    expect(answersOf(plain)).toBe(plain);
  });
});

describe("a request body the Node bridge read whole", () => {
  it("is what readJson reads, and nothing is known of other requests", () => {
    const request = new Request("http://x.test/", { method: "POST", body: "ignored" });
    expect(knownBody(request)).toBeUndefined();
    const bytes = new TextEncoder().encode("{}");
    rememberBody(request, bytes);
    expect(knownBody(request)).toBe(bytes);
    expect(knownBody(new Request("http://x.test/"))).toBeUndefined();
  });
});
