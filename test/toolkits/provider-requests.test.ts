/**
 * The one module curated tools send their requests with (`src/toolkits/provider-requests.ts`),
 * against a real node:http server: the query as it arrives on the request line, the bodies and
 * headers, and the failure each answer outside 2xx becomes (its code, status, sentence and advice).
 */
import type { ServerResponse } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ToolRunError } from "../../src/core/tool-error.js";
import type { ToolContext } from "../../src/toolkits/define.js";
import { type ProviderErrors, request, requestJson, segment, upstreamError, withQuery } from "../../src/toolkits/provider-requests.js";
import { type RecordedRequest, startServer, type TestServer } from "../support/upstream.js";

let server: TestServer;
let answer: (request: RecordedRequest, response: ServerResponse) => void = (_, res) => res.end();

beforeAll(async () => {
  server = await startServer((recorded, res) => answer(recorded, res));
});
afterAll(() => server.close());

/** A tool context whose fetch resolves paths against the test server, as `ctx.fetch` does against a base URL. */
function context(): ToolContext {
  return {
    fetch: (input, init) => fetch(new URL(String(input), server.origin), init),
    files: { get: () => Promise.reject(new Error("no files")), stage: () => Promise.reject(new Error("no files")) },
    connection: null,
    principal: { workspaceId: "w", agentId: "a", keyId: "k", kind: "agent" },
    signal: new AbortController().signal,
  };
}

const JIRA: ProviderErrors = {
  name: "Jira",
  reason: (body) => ((body as { errorMessages?: string[] })?.errorMessages ?? []).join("; ") || undefined,
};

async function failure(status: number, body: string, provider?: ProviderErrors, headers: Record<string, string> = {}) {
  return upstreamError(new Response(body, { status, headers }), provider);
}

describe("withQuery", () => {
  it("writes the query as the OpenAPI runner writes a form parameter: %20 for a space, arrays repeated, absent values left out", () => {
    expect(
      withQuery("/search", {
        q: "is:pr author:alice",
        $top: 2,
        labels: ["bug", "good first issue"],
        draft: false,
        none: undefined,
        nothing: null,
        empty: [],
        odd: "a+b&c=d/é~*",
      }),
    ).toBe("/search?q=is%3Apr%20author%3Aalice&%24top=2&labels=bug&labels=good%20first%20issue&draft=false&odd=a%2Bb%26c%3Dd%2F%C3%A9~%2A");
    expect(withQuery("/items", { none: undefined })).toBe("/items");
    expect(withQuery("/items")).toBe("/items");
  });
});

describe("request and requestJson", () => {
  it("send the query, a JSON body with its type, and ask for JSON; the answer is parsed", async () => {
    answer = (_, res) => res.writeHead(201, { "content-type": "application/json" }).end('{"id":7}');
    const created = await requestJson(context(), JIRA, "/rest/issue", {
      method: "POST",
      query: { notify: true, q: "a b" },
      json: { fields: { summary: "Ça marche" } },
      headers: { "x-trace": "1" },
    });
    expect(created).toEqual({ id: 7 });
    const sent = server.requests.at(-1)!;
    expect(sent).toMatchObject({ method: "POST", url: "/rest/issue?notify=true&q=a%20b", body: '{"fields":{"summary":"Ça marche"}}' });
    expect(sent.headers).toMatchObject({ accept: "application/json", "content-type": "application/json", "x-trace": "1" });
  });

  it("requestJson gives null for an empty answer and the text of one that is not JSON", async () => {
    answer = (_, res) => res.writeHead(204).end();
    expect(await requestJson(context(), JIRA, "/empty")).toBeNull();
    answer = (_, res) => res.writeHead(200, { "content-type": "text/plain" }).end("plain words");
    expect(await requestJson(context(), JIRA, "/text", { headers: { accept: "text/plain" } })).toBe("plain words");
    expect(server.requests.at(-1)!.headers.accept).toBe("text/plain");
  });

  it("request sends a body as it is and returns the response, headers and all", async () => {
    answer = (_, res) => res.writeHead(200, { location: "https://upload.example/session/1" }).end();
    const form = new URLSearchParams({ channel: "C1", text: "hi there" });
    const response = await request(context(), JIRA, "/api/chat.postMessage", { method: "POST", body: form });
    expect(response.headers.get("location")).toBe("https://upload.example/session/1");
    const sent = server.requests.at(-1)!;
    expect(sent.body).toBe("channel=C1&text=hi+there");
    expect(sent.headers["content-type"]).toBe("application/x-www-form-urlencoded;charset=UTF-8");
    expect(sent.headers.accept).toBe("*/*");
  });

  it("throw the provider's failure for any answer outside 2xx, a 304 included", async () => {
    answer = (_, res) => res.writeHead(400, { "content-type": "application/json" }).end('{"errorMessages":["Field \'x\' is wrong."]}');
    const error = await requestJson(context(), JIRA, "/rest/issue").catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ToolRunError);
    expect(error).toMatchObject({
      code: "upstream_error",
      upstreamStatus: 400,
      retryable: false,
      message: "Jira answered 400 Bad Request: Field 'x' is wrong. Correct the arguments as the message says and call again.",
    });
    answer = (_, res) => res.writeHead(304).end();
    await expect(request(context(), JIRA, "/cached")).rejects.toMatchObject({
      upstreamStatus: 304,
      message: "Jira answered 304 Not Modified.",
    });
  });

  it("segment encodes one path segment and refuses one that climbs", () => {
    expect(segment("a/b c")).toBe("a%2Fb%20c");
    expect(segment(42)).toBe("42");
    for (const climbing of [".", ".."]) {
      expect(() => segment(climbing)).toThrow(expect.objectContaining({ code: "invalid_arguments" }));
    }
  });
});

describe("upstreamError with a provider", () => {
  it("gives each status of the table its advice, and names the provider where the advice does", async () => {
    const advice = async (status: number) => (await failure(status, "", { name: "Acme" })).message;
    expect(await advice(400)).toBe("Acme answered 400. Correct the arguments as the message says and call again.");
    expect(await advice(401)).toBe(
      "Acme answered 401. The Acme connection's credential was refused: reconnect it with POST /auth and call again.",
    );
    expect(await advice(403)).toMatch(/^Acme answered 403\. The Acme connection lacks a permission or scope/);
    expect(await advice(404)).toBe(
      "Acme answered 404. Check the id (list or search to find it), and that the connected account can see the object.",
    );
    expect(await advice(409)).toMatch(/^Acme answered 409\. It conflicts with an existing object/);
    expect(await advice(412)).toBe("Acme answered 412. The resource changed or conflicts; fetch it again and retry.");
    expect(await advice(422)).toBe("Acme answered 422. Fix the arguments named in the message and call again.");
    expect(await advice(429)).toBe(
      "Acme answered 429. Acme is rate limiting: wait (retryAfterMs says how long, when known) and call again.",
    );
    expect(await advice(503)).toBe("Acme answered 503. Acme had a server error; try again later.");
    expect(await advice(418)).toBe("Acme answered 418.");
  });

  it("takes a provider's own advice for a status over the table's", async () => {
    const own: ProviderErrors = { name: "Acme", hints: { 404: "Share the page with the integration." } };
    expect((await failure(404, "", own)).message).toBe("Acme answered 404. Share the page with the integration.");
    expect((await failure(400, "", own)).message).toMatch(/Correct the arguments/);
  });

  it("quotes the provider's reason, else the common JSON shapes, else the body's text with its spaces folded", async () => {
    expect((await failure(400, '{"errorMessages":["No such  project."]}', JIRA)).message).toMatch(
      /^Jira answered 400: No such {2}project\. /,
    );
    const acme = { name: "Acme" };
    expect((await failure(400, '{"error":{"message":"Bad field."}}', acme)).message).toMatch(/^Acme answered 400: Bad field\. /);
    expect((await failure(400, '{"error":"invalid_request","error_description":"no"}', acme)).message).toMatch(
      /^Acme answered 400: invalid_request: no\. /,
    );
    expect(
      (await failure(422, '{"message":"Validation Failed","errors":[{"field":"title","code":"missing"},"too long"]}', acme)).message,
    ).toMatch(/^Acme answered 422: Validation Failed \(title missing; too long\)\. /);
    expect((await failure(502, "<html>\n  <b>Bad gateway</b>\n</html>", acme)).message).toBe(
      "Acme answered 502: <html> <b>Bad gateway</b> </html>. Acme had a server error; try again later.",
    );
    expect((await failure(400, '{"unexpected":true}', JIRA)).message).toMatch(/^Jira answered 400: \{"unexpected":true\}\. /);
  });

  it("cuts a long reason to 300 characters, so the advice still fits in the 500 a result keeps", async () => {
    const { message } = await failure(404, JSON.stringify({ errorMessages: ["x".repeat(5000)] }), JIRA);
    expect(message).toBe(
      `Jira answered 404: ${"x".repeat(299)}…. Check the id (list or search to find it), and that the connected account can see the object.`,
    );
    expect(message.length).toBeLessThanOrEqual(500);
  });

  it("carries the status, whether a retry may help and the Retry-After delay", async () => {
    const error = await failure(429, "", { name: "Acme" }, { "retry-after": "30" });
    expect(error).toMatchObject({ code: "upstream_error", upstreamStatus: 429, retryable: true, retryAfterMs: 30_000 });
  });

  it("reads at most 8 KiB of the body, and cancels the rest", async () => {
    let pulled = 0;
    let cancelled = false;
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        pulled += 1024;
        controller.enqueue(new TextEncoder().encode("y".repeat(1024)));
      },
      cancel() {
        cancelled = true;
      },
    });
    const error = await upstreamError(new Response(body, { status: 500 }), { name: "Acme" });
    expect(error.message).toMatch(/^Acme answered 500: y{299}…\. /);
    expect(pulled).toBeLessThanOrEqual(9 * 1024);
    expect(cancelled).toBe(true);
  });
});

describe("upstreamError without a provider (a JSON toolkit's tool)", () => {
  it("quotes the body as it is, up to 500 characters, with no advice", async () => {
    expect((await failure(404, '{"message":"No such item"}')).message).toBe('Upstream answered 404: {"message":"No such item"}');
    expect((await failure(401, "")).message).toBe("Upstream answered 401.");
  });
});
