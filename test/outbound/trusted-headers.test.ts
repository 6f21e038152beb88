/**
 * What the outbound fetch takes from trusted code beside the header policy: a `cookie` (a tool's
 * declared cookie parameters) and a stream body's `contentLength`. A `Cookie` among the headers is
 * still dropped, and the trusted one survives a refresh after a 401.
 */
import { describe, expect, it } from "vitest";
import { ToolsError } from "../../src/core/errors.js";
import type { Credential } from "../../src/credentials/auth-schemes.js";
import { createOutboundFetch } from "../../src/outbound/fetch.js";

function outbound(answers: Response[] = []) {
  const sent: Headers[] = [];
  const fetch = (async (_input: string | URL | Request, init?: RequestInit) => {
    sent.push(new Headers(init?.headers));
    return answers.shift() ?? new Response("{}");
  }) as typeof globalThis.fetch;
  const credential: Credential = { type: "oauth2", accessToken: "stale-token" };
  const send = createOutboundFetch({
    fetch,
    toolkit: { baseUrls: ["https://api.example.com"], auth: { type: "oauth2" } as never },
    credential,
    params: {},
    signal: new AbortController().signal,
    refreshAfterUnauthorized: async () => ({ type: "oauth2", accessToken: "fresh-token" }),
  });
  return { send, sent };
}

describe("a trusted Cookie", () => {
  it("is sent, while a Cookie among the headers is dropped", async () => {
    const { send, sent } = outbound();
    await send("https://api.example.com/a", { headers: { cookie: "caller=1" }, cookie: "a=1; b=2" });
    await send("https://api.example.com/a", { headers: { cookie: "caller=1" } });
    expect(sent.map((headers) => headers.get("cookie"))).toEqual(["a=1; b=2", null]);
  });

  it("is left out when empty", async () => {
    const { send, sent } = outbound();
    await send("https://api.example.com/a", { cookie: "" });
    expect(sent[0]!.has("cookie")).toBe(false);
  });

  it("with a line break is refused before anything is sent", async () => {
    const { send, sent } = outbound();
    const refused = send("https://api.example.com/a", { cookie: "a=1\r\nX-Evil: 1" });
    await expect(refused).rejects.toBeInstanceOf(ToolsError);
    await expect(refused).rejects.toMatchObject({
      code: "invalid_request",
      message: expect.stringContaining("The Cookie value has a line break"),
    });
    expect(sent).toHaveLength(0);
  });

  it("is sent again with the refreshed token after a 401", async () => {
    const { send, sent } = outbound([new Response("", { status: 401 }), new Response("{}")]);
    const response = await send("https://api.example.com/a", { method: "POST", body: "{}", cookie: "a=1" });
    expect(response.status).toBe(200);
    expect(sent.map((headers) => [headers.get("authorization"), headers.get("cookie")])).toEqual([
      ["Bearer stale-token", "a=1"],
      ["Bearer fresh-token", "a=1"],
    ]);
  });
});

describe("a stream body's contentLength", () => {
  it("is sent as Content-Length for a stream, and a caller's own is dropped", async () => {
    const { send, sent } = outbound();
    await send("https://api.example.com/a", {
      method: "PUT",
      body: new Blob(["abc"]).stream(),
      contentLength: 3,
      headers: { "content-length": "99" },
    });
    expect(sent[0]!.get("content-length")).toBe("3");
  });
});
