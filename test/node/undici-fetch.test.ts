/**
 * createUndiciFetch (tools-proxy/node): a standard Response from undici's pooled dispatcher,
 * checked directly against a local server and through the handler's proxy flow.
 */

import { Agent } from "undici";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createUndiciFetch } from "../../adapters/node.js";
import { takeWholeBody } from "../../src/core/whole-bodies.js";
import { bearer, defineToolkit } from "../../src/index.js";
import { type RawServer, startRawServer, waitFor } from "../outbound/servers.js";
import { CREDENTIALS, createHarness, expectError, type Harness } from "../support/harness.js";
import { BINARY_BYTES } from "../support/upstream.js";

let server: RawServer;
const fetch = createUndiciFetch({ keepAliveTimeoutMs: 10_000 });

beforeAll(async () => {
  server = await startRawServer((request, res) => {
    const url = new URL(request.url, "http://u.invalid");
    switch (url.pathname) {
      case "/echo":
        res.writeHead(200, { "content-type": "application/json", "set-cookie": ["a=1", "b=2"], "x-multi": "one" });
        return void res.end(JSON.stringify({ method: request.method, headers: request.headers, body: request.body.toString("latin1") }));
      case "/empty":
        return void res.writeHead(204, { "x-empty": "yes" }).end();
      case "/redirect":
        return void res.writeHead(302, { location: "/echo" }).end("moved");
      case "/chunks": {
        // First chunk now, the second only once the client has seen the first (it asks /release).
        res.writeHead(200, { "content-type": "text/plain" });
        res.write("first;");
        release = () => res.end("second");
        return;
      }
      case "/release":
        release?.();
        return void res.writeHead(200).end("ok");
      case "/stall":
        res.writeHead(200, { "content-type": "text/plain" });
        return void res.write("partial");
      case "/small": {
        const small = JSON.stringify({ small: "é" });
        res.writeHead(200, { "content-type": "application/json", "content-length": String(Buffer.byteLength(small)) });
        return void res.end(small);
      }
      case "/short": // a declared length the body never reaches: the connection breaks off
        res.writeHead(200, { "content-type": "text/plain", "content-length": "100" });
        return void res.write("0123456789", () => res.socket?.destroy());
      case "/short-stall": // a declared length, half the body, then nothing
        res.writeHead(200, { "content-type": "text/plain", "content-length": "20" });
        return void res.write("0123456789");
    }
    res.writeHead(404).end();
  });
});
let release: (() => void) | undefined;
afterAll(async () => {
  await fetch.close();
  await server.close();
});

describe("createUndiciFetch as a fetch", () => {
  it("answers a standard Response with status, headers (several set-cookie), url and a JSON body", async () => {
    const response = await fetch(`${server.origin}/echo?x=1`, { headers: { "x-test": "yes" } });
    expect(response).toBeInstanceOf(Response);
    expect(response.status).toBe(200);
    expect(response.statusText).toBe("OK");
    expect(response.url).toBe(`${server.origin}/echo?x=1`);
    expect(response.headers.getSetCookie()).toEqual(["a=1", "b=2"]);
    expect(response.headers.get("x-multi")).toBe("one");
    const body = await response.json();
    expect(body).toMatchObject({ method: "GET", headers: { "x-test": "yes", host: server.origin.slice("http://".length) } });
  });

  it.each([
    ["a string", () => "héllo", "héllo", "text/plain;charset=UTF-8"],
    ["bytes", () => Uint8Array.from([1, 2, 255]), "\x01\x02\xff", undefined],
    ["an ArrayBuffer", () => Uint8Array.from([9, 8]).buffer, "\x09\x08", undefined],
    ["URLSearchParams", () => new URLSearchParams({ a: "1", b: "x y" }), "a=1&b=x+y", "application/x-www-form-urlencoded;charset=UTF-8"],
    ["a Blob", () => new Blob(["blob!"], { type: "text/x-blob" }), "blob!", "text/x-blob"],
    [
      "a ReadableStream",
      () =>
        new ReadableStream<Uint8Array>({
          start(controller) {
            controller.enqueue(new TextEncoder().encode("stre"));
            controller.enqueue(new TextEncoder().encode("amed"));
            controller.close();
          },
        }),
      "streamed",
      undefined,
    ],
  ])("sends %s as the body", async (_what, body, expected, type) => {
    const response = await fetch(`${server.origin}/echo`, { method: "POST", body: body() as BodyInit });
    const echoed = (await response.json()) as { body: string; headers: Record<string, string> };
    expect(Buffer.from(echoed.body, "latin1").toString(typeof expected === "string" && /é/.test(expected) ? "utf8" : "latin1")).toBe(
      expected,
    );
    expect(echoed.headers["content-type"]).toBe(type);
  });

  it("reads a small answer whole: its body reads come from the bytes, once, as a Response's do", async () => {
    const small = () => fetch(`${server.origin}/small`);
    expect(takeWholeBody(await small()), "read whole before fetch resolved").toEqual(new TextEncoder().encode('{"small":"é"}'));
    expect(takeWholeBody(await fetch(`${server.origin}/echo`)), "no declared length: streamed").toBeUndefined();

    const response = await small();
    expect([response.status, response.statusText, response.url]).toEqual([200, "OK", `${server.origin}/small`]);
    const copy = response.clone();
    expect(response.bodyUsed).toBe(false);
    expect(await response.json()).toEqual({ small: "é" });
    expect(response.bodyUsed).toBe(true);
    await expect(response.text()).rejects.toThrow(TypeError);
    await expect(response.arrayBuffer()).rejects.toThrow(TypeError);
    expect(response.body?.locked, "a read body is no stream to read again").toBe(true);
    const blob = await copy.blob();
    expect([blob.type, await blob.text()]).toEqual(["application/json", '{"small":"é"}']);

    expect(await new Response((await small()).body).text(), "as a stream").toBe('{"small":"é"}');
    expect(await (await small()).bytes()).toEqual(new TextEncoder().encode('{"small":"é"}'));
  });

  it("a small answer that breaks off resolves, and its body fails on the first read", async () => {
    const response = await fetch(`${server.origin}/short`);
    expect([response.status, response.url]).toEqual([200, `${server.origin}/short`]);
    await expect(response.text()).rejects.toThrow();
  });

  it("an abort while a small answer is read rejects fetch with the signal's reason", async () => {
    const during = new AbortController();
    const pending = fetch(`${server.origin}/short-stall`, { signal: during.signal });
    setTimeout(() => during.abort(new Error("gave up mid-body")), 20);
    await expect(pending).rejects.toThrow("gave up mid-body");
  });

  it("takes a Request as input", async () => {
    const response = await fetch(
      new Request(`${server.origin}/echo`, { method: "PUT", body: "from a request", headers: { "x-from": "request" } }),
    );
    expect(await response.json()).toMatchObject({ method: "PUT", body: "from a request", headers: { "x-from": "request" } });
  });

  it("gives a null body for 204 and HEAD", async () => {
    const empty = await fetch(`${server.origin}/empty`);
    expect(empty.status).toBe(204);
    expect(empty.body).toBeNull();
    expect(empty.headers.get("x-empty")).toBe("yes");
    const head = await fetch(`${server.origin}/echo`, { method: "HEAD" });
    expect(head.status).toBe(200);
    expect(head.body).toBeNull();
  });

  it("never follows a redirect; redirect: error throws", async () => {
    const before = server.requests.length;
    const response = await fetch(`${server.origin}/redirect`, { redirect: "follow" });
    expect(response.status).toBe(302);
    expect(response.headers.get("location")).toBe("/echo");
    expect(await response.text()).toBe("moved");
    expect(server.requests.length).toBe(before + 1);
    await expect(fetch(`${server.origin}/redirect`, { redirect: "error" })).rejects.toThrow(TypeError);
  });

  it("streams the body: the first chunk is readable before the upstream finishes", async () => {
    const response = await fetch(`${server.origin}/chunks`);
    const reader = response.body!.getReader();
    expect(new TextDecoder().decode((await reader.read()).value)).toBe("first;");
    await (await fetch(`${server.origin}/release`)).text();
    let rest = "";
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      rest += new TextDecoder().decode(value);
    }
    expect(rest).toBe("second");
  });

  it("aborts before the answer with the signal's reason, and during the body", async () => {
    const before = new AbortController();
    before.abort(new Error("caller gave up"));
    await expect(fetch(`${server.origin}/echo`, { signal: before.signal })).rejects.toThrow("caller gave up");
    const during = new AbortController();
    const closed = server.closedSockets();
    const response = await fetch(`${server.origin}/stall`, { signal: during.signal });
    const reader = response.body!.getReader();
    expect(new TextDecoder().decode((await reader.read()).value)).toBe("partial");
    setTimeout(() => during.abort(new Error("timed out")), 20);
    await expect(reader.read()).rejects.toThrow("timed out");
    await waitFor(() => server.closedSockets() > closed);
  });

  it("cancelling the body closes that connection", async () => {
    const closed = server.closedSockets();
    const response = await fetch(`${server.origin}/stall`);
    await response.body!.cancel();
    await waitFor(() => server.closedSockets() > closed);
  });

  it("refuses other schemes and URLs with credentials", async () => {
    await expect(fetch("file:///etc/passwd")).rejects.toThrow(/http and https/);
    await expect(fetch(`http://user:pw@${server.origin.slice(7)}/echo`)).rejects.toThrow(/credentials/);
  });

  it("reuses one keep-alive connection for sequential requests", async () => {
    const own = createUndiciFetch();
    const counting = await startRawServer((_request, res) => res.writeHead(200, { "content-type": "text/plain" }).end("ok"));
    for (let i = 0; i < 20; i++) {
      expect(await (await own(`${counting.origin}/n${i}`)).text()).toBe("ok");
      // undici marks a connection free one event-loop turn after its answer ends; a request sent in
      // the very same turn opens a second one. Requests through a server always have that turn.
      await new Promise((resolve) => setImmediate(resolve));
    }
    expect(counting.requests.length).toBe(20);
    expect(counting.connections()).toBe(1);
    await own.close();
    await counting.close();
  });

  it("caps concurrent connections per origin at `connections`", async () => {
    const own = createUndiciFetch({ connections: 2 });
    const slow = await startRawServer((_request, res) => void setTimeout(() => res.writeHead(200).end("ok"), 30));
    await Promise.all(Array.from({ length: 10 }, async (_, i) => (await own(`${slow.origin}/c${i}`)).text()));
    expect(slow.requests.length).toBe(10);
    expect(slow.connections()).toBe(2);
    await own.close();
    await slow.close();
  });

  it("sends through a dispatcher passed in, and close() leaves it open", async () => {
    const agent = new Agent();
    const own = createUndiciFetch({ dispatcher: agent });
    expect(own.dispatcher).toBe(agent);
    await (await own(`${server.origin}/echo`)).text();
    await own.close();
    expect(agent.closed).toBe(false);
    await (await own(`${server.origin}/echo`)).text();
    await agent.close();
  });
});

describe("the proxy flow on createUndiciFetch", () => {
  let h: Harness;
  let key: string;
  let counting: RawServer;
  const proxyFetch = createUndiciFetch();

  beforeAll(async () => {
    counting = await startRawServer((request, res) => {
      res.writeHead(200, { "content-type": "application/json" });
      res.end(JSON.stringify({ authorization: request.headers.authorization === `Bearer ${CREDENTIALS.bearerToken}` }));
    });
    h = await createHarness({
      fetch: proxyFetch,
      timeouts: { proxyMs: 200 },
      extraToolkits: () => [
        defineToolkit({
          slug: "counted",
          name: "Counted",
          description: "Counts connections.",
          baseUrl: `${counting.origin}/c`,
          auth: bearer(),
          tools: [],
        }),
      ],
    });
    key = (await h.issueAgentKey("agent-a")).key;
    await h.connect(key, "notes", { token: CREDENTIALS.bearerToken });
    await h.connect(key, "acmeq", { apiKey: CREDENTIALS.queryKey });
    await h.connect(key, "counted", { token: CREDENTIALS.bearerToken });
  });
  afterAll(async () => {
    h.assertNoLeaks();
    expect(h.foreign.requests).toEqual([]);
    await proxyFetch.close();
    await Promise.all([h.close(), counting.close()]);
  });

  const proxy = (body: Record<string, unknown>) => h.call("POST", "/proxy", { key, body: { toolkit: "notes", method: "GET", ...body } });
  const up = () => `${h.upstream.origin}/v1`;

  it("injects the credential (header and query) and returns JSON", async () => {
    expect((await proxy({ url: `${up()}/echo` })).json).toMatchObject({
      successful: true,
      status: 200,
      data: { ok: true, path: "/v1/echo" },
    });
    expect(h.upstream.requests.at(-1)!.headers.authorization).toBe(`Bearer ${CREDENTIALS.bearerToken}`);
    await proxy({ toolkit: "acmeq", url: `${up()}/echo?api_key=attacker` });
    expect(h.upstream.requests.at(-1)!.url).toBe(`/v1/echo?api_key=${CREDENTIALS.queryKey}`);
  });

  it("returns a redirect to another origin unfollowed, and follows one under the base URL", async () => {
    const to = `${h.foreign.origin}/steal`;
    expect((await proxy({ url: `${up()}/redirect?to=${encodeURIComponent(to)}` })).json).toMatchObject({
      status: 302,
      headers: { location: to },
    });
    expect((await proxy({ url: `${up()}/redirect?to=/v1/echo` })).json).toMatchObject({ status: 200, data: { path: "/v1/echo" } });
  });

  it("sends JSON bodies, stages binary answers, reports upstream errors with Retry-After", async () => {
    await proxy({ method: "POST", url: `${up()}/echo`, body: { hello: "world" } });
    expect(h.upstream.requests.at(-1)).toMatchObject({ method: "POST", body: '{"hello":"world"}' });
    const binary = await proxy({ url: `${up()}/binary` });
    expect(binary.json).toMatchObject({ successful: true, data: { contentType: "image/png", size: BINARY_BYTES.byteLength } });
    const limited = await proxy({ url: `${up()}/status/429?retry=7` });
    expect(limited.json).toMatchObject({ successful: false, upstreamStatus: 429, retryable: true, retryAfterMs: 7000 });
  });

  it("times out a slow upstream with code timeout", async () => {
    const started = performance.now();
    const res = await proxy({ url: `${up()}/slow?ms=3000` });
    expect(res.json).toMatchObject({ successful: false, code: "timeout", status: null });
    expect(performance.now() - started).toBeLessThan(1_500);
  });

  it("a refused URL is still a 400 and sends nothing", async () => {
    expectError(await proxy({ url: `${h.foreign.origin}/v1/echo` }), 400, "invalid_request", /not allowed/);
  });

  it("reuses one connection across proxied calls", async () => {
    for (let i = 0; i < 10; i++) {
      const res = await h.call("POST", "/proxy", { key, body: { toolkit: "counted", method: "GET", url: `${counting.origin}/c/${i}` } });
      expect(res.json).toMatchObject({ successful: true, data: { authorization: true } });
      await new Promise((resolve) => setImmediate(resolve)); // the turn between requests, as above
    }
    expect(counting.requests.length).toBe(10);
    expect(counting.connections()).toBe(1);
  });
});
