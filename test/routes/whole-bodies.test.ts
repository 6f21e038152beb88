/**
 * The handler's whole answers (src/core/whole-bodies.ts): what the Node bridge writes without a
 * `Response`, and the standard `Response` every other caller gets, are the same answer.
 */
import { describe, expect, it } from "vitest";
import { errorResponse, ToolsError } from "../../src/core/errors.js";
import { json } from "../../src/core/http.js";
import {
  isWholeLength,
  isWholeWithin,
  standardResponse,
  takeWholeBody,
  wholeBodyOf,
  wholeParts,
  wholeResponse,
  withWholeBody,
} from "../../src/core/whole-bodies.js";
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
    expect(plain.url).toBe("");
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

describe("a whole answer's reads", () => {
  const bytes = new TextEncoder().encode("a=1&b=%C3%A9");
  const make = (status = 200) =>
    wholeResponse(bytes, {
      status,
      statusText: "Fine",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      url: "https://api.test/x",
    });

  it("answers ok for 2xx only, and its statusText and url as made", () => {
    expect([199, 200, 299, 300].map((status) => make(status).ok)).toEqual([false, true, true, false]);
    const answer = make();
    expect([answer.statusText, answer.url, answer.type, answer.redirected]).toEqual(["Fine", "https://api.test/x", "default", false]);
  });

  it("serves each read once from the bytes, then fails as a read Response does", async () => {
    const reads: Array<(r: Response) => Promise<unknown>> = [
      (r) => r.text(),
      (r) => r.json(),
      (r) => r.bytes(),
      (r) => r.arrayBuffer(),
      (r) => r.blob(),
    ];
    for (const read of reads) {
      const answer = make();
      await read(answer).catch(() => {}); // json() of form data throws, but it has read the body
      expect(answer.bodyUsed).toBe(true);
      expect(wholeParts(answer)).toBeNull();
      expect(isWholeWithin(answer, 1_000_000), "a read body has nothing left to take").toBe(false);
      expect(takeWholeBody(answer)).toBeUndefined();
      await expect(answer.text()).rejects.toThrow(/already been read/);
      expect(() => answer.clone()).toThrow(TypeError);
    }
    expect((await make().blob()).type).toBe("application/x-www-form-urlencoded");
    expect((await wholeResponse(bytes, { status: 200, headers: {} }).blob()).type, "no Content-Type").toBe("");
    expect(Object.fromEntries(await make().formData())).toEqual({ a: "1", b: "é" });
  });

  it("once its body was asked for as a stream, answers everything from that one Response", async () => {
    const reads: Array<[(r: Response) => Promise<unknown>, unknown]> = [
      [(r) => r.text(), "a=1&b=%C3%A9"],
      [(r) => r.bytes(), bytes],
      [async (r) => new Uint8Array(await r.arrayBuffer()), bytes],
      [async (r) => (await r.blob()).text(), "a=1&b=%C3%A9"],
      [async (r) => r.clone().text(), "a=1&b=%C3%A9"],
    ];
    for (const [read, expected] of reads) {
      const answer = make();
      expect(answer.body).toBe(answer.body); // one Response, one stream
      expect(await read(answer)).toEqual(expected);
    }
    const answer = make();
    void answer.body;
    answer.headers.set("x-late", "1");
    const standard = standardResponse(answer);
    expect([standard.headers.get("x-late"), standard.url, standard.statusText]).toEqual(["1", "https://api.test/x", "Fine"]);
    await expect(make().json()).rejects.toThrow(SyntaxError); // form data is no JSON
    const data = json({ n: 1 });
    void data.body;
    expect(await data.json()).toEqual({ n: 1 });
  });

  it("keeps the Headers it was given, and a taken body leaves a disturbed stream", async () => {
    const headers = new Headers({ "content-type": "text/plain" });
    const answer = wholeResponse(bytes, { status: 200, headers });
    expect(answer.headers).toBe(headers);
    expect(wholeParts(answer), "Headers given out from the start: no parts").toBeNull();
    expect(isWholeWithin(answer, bytes.length)).toBe(true);
    expect(isWholeWithin(answer, bytes.length - 1)).toBe(false);
    expect(takeWholeBody(answer)).toBe(bytes);
    expect(answer.body?.locked).toBe(true);
    expect(standardResponse(answer).bodyUsed).toBe(true);
  });

  it("a clone is a whole answer of its own, with its own headers", async () => {
    const answer = make();
    const copy = answer.clone();
    expect(takeWholeBody(copy.clone()), "a clone's bytes are whole too").toEqual(bytes);
    copy.headers.set("x-copy", "1");
    expect(answer.headers.get("x-copy")).toBeNull();
    expect(await copy.text()).toBe(await answer.text());
  });
});

describe("a handler's answers", () => {
  it("are whole for the Node bridge and standard Responses for everyone else (Bun and Deno take no other)", async () => {
    const store = memoryStore();
    const tools = createToolsHandler({ store, toolkits: [] });
    const { key } = await issueApiKey(store, { workspaceId: "ws", agentId: "agent" });
    const request = () => new Request("http://x.test/proxy/tools/connections", { headers: { "x-api-key": key } });

    const answer = await tools.answer(request());
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

  it("are recognised by their wholeParts method, not by class: any other Response has no parts", () => {
    expect(wholeParts(new Response("x"))).toBeNull();
    const parts = { status: 200, headers: { "content-type": "text/plain" }, body: new Uint8Array([120]) };
    const elsewhere = Object.assign(new Response("x"), { wholeParts: () => parts }); // as another copy of the module makes them
    expect(wholeParts(elsewhere)).toBe(parts);
  });
});

describe("which bodies are read whole", () => {
  it("those declaring at most 64 KiB in plain decimal digits, and no other", () => {
    for (const length of ["0", "1", "65536"]) expect(isWholeLength(length), length).toBe(true);
    const others = [undefined, "", "65537", "1234567", "1e3", "0x10", "-1", " 10", "10 ", "x10", "10x", "1.5"];
    for (const length of others) expect(isWholeLength(length), String(length)).toBe(false);
    expect(isWholeLength(["10", "10"]), "a header given twice").toBe(false);
  });
});

describe("a request body the Node bridge read whole", () => {
  it("is the request's wholeBody, which readJson reads, and nothing is known of other requests", () => {
    const request = new Request("http://x.test/", { method: "POST", body: "ignored" });
    expect(wholeBodyOf(request)).toBeUndefined();
    const bytes = new TextEncoder().encode("{}");
    const declared = withWholeBody(request, bytes);
    expect(wholeBodyOf(request)).toBe(bytes);
    expect(declared.wholeBody).toBe(bytes);
    expect(wholeBodyOf(new Request("http://x.test/"))).toBeUndefined();
  });
});
