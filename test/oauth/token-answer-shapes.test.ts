/**
 * What normalizeTokenAnswer makes of each shape a token endpoint can answer with: the body types
 * it reads, the errors sent with 200, refusals with their headers, nested tokens, the fields it
 * rewrites and those it keeps, and the 1 MiB bound.
 */
import { describe, expect, it } from "vitest";
import type { OAuth2Scheme } from "../../src/credentials/auth-schemes.js";
import { normalizeTokenAnswer, type TokenAnswer } from "../../src/oauth/token-answer.js";

const scheme = { type: "oauth2" } as OAuth2Scheme;

async function run(response: Response, tokensAt?: string) {
  const answer: TokenAnswer = { raw: null };
  const out = await normalizeTokenAnswer(response, tokensAt ? { ...scheme, tokensAt } : scheme, answer);
  const text = await out.text();
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { out, text, json, raw: answer.raw };
}

const json = (body: unknown, init: ResponseInit = {}) =>
  new Response(JSON.stringify(body), { ...init, headers: { "content-type": "application/json", ...(init.headers as object) } });

describe("the body types a token answer is read from", () => {
  it("a form-encoded body, whatever the case of its type and with parameters, is read as fields", async () => {
    const {
      json: fields,
      raw,
      out,
    } = await run(
      new Response("access_token=tok&expires_in=60", { headers: { "content-type": " Application/X-WWW-Form-Urlencoded ; charset=utf-8" } }),
    );
    expect(fields).toEqual({ access_token: "tok", expires_in: 60, token_type: "bearer" });
    expect(raw).toEqual({ access_token: "tok", expires_in: "60" });
    expect(out.headers.get("content-type")).toBe("application/json");
  });

  it("text/plain is read as a form when it starts with a field name and =, dots and dashes included", async () => {
    const { json: fields } = await run(new Response("access_token=tok&x.y-z=1", { headers: { "content-type": "text/plain" } }));
    expect(fields).toEqual({ access_token: "tok", "x.y-z": "1", token_type: "bearer" });
    const dotted = await run(new Response("a.b=1&access_token=t", { headers: { "content-type": "text/plain" } }));
    expect(dotted.json).toEqual({ "a.b": "1", access_token: "t", token_type: "bearer" });
    const dashed = await run(new Response("a-b=1&access_token=t", { headers: { "content-type": "text/plain" } }));
    expect(dashed.json).toEqual({ "a-b": "1", access_token: "t", token_type: "bearer" });
  });

  it("text/plain that is JSON (even JSON holding an =) is read as JSON", async () => {
    const { json: fields } = await run(new Response('{"access_token":"a=b"}', { headers: { "content-type": "text/plain" } }));
    expect(fields).toEqual({ access_token: "a=b", token_type: "bearer" });
    const spaced = await run(new Response(" access_token=tok", { headers: { "content-type": "text/plain" } }));
    expect(spaced.json).toBeUndefined();
    expect(spaced.text).toBe(" access_token=tok");
  });

  it("a form-looking body of another type is not read as a form", async () => {
    const { out, text, raw } = await run(new Response("access_token=tok", { headers: { "content-type": "text/html" } }));
    expect(text).toBe("access_token=tok");
    expect(raw).toBeNull();
    expect(out.headers.get("content-type")).toBe("text/html");
  });

  it("JSON without a content type is read", async () => {
    const { json: fields } = await run(new Response('{"access_token":"tok"}', { headers: { "content-type": "" } }));
    expect(fields).toEqual({ access_token: "tok", token_type: "bearer" });
  });

  it("an answer that is no JSON object (HTML, null, a list, a string, a number) is left as it was, status and headers", async () => {
    for (const body of ["<html>down</html>", "null", "[1]", '"tok"', "42"]) {
      const { out, text, raw } = await run(new Response(body, { status: 503, headers: { "content-type": "text/html", "x-from": "p" } }));
      expect(out.status).toBe(503);
      expect(text).toBe(body);
      expect(out.headers.get("x-from")).toBe("p");
      expect(raw).toBeNull();
    }
  });

  it("an answer over 1 MiB is a 502 with no body; one just under is read", async () => {
    const big = await run(json({ access_token: "tok", pad: "x".repeat(1024 * 1024) }));
    expect(big.out.status).toBe(502);
    expect(big.text).toBe("");
    expect(big.raw).toBeNull();
    const pad = "x".repeat(1024 * 1024 - 64);
    const near = await run(json({ access_token: "tok", pad }));
    expect(near.out.status).toBe(200);
    expect((near.json as { pad: string }).pad).toBe(pad);
  });

  it("a body that fails while read is that failure, not a 502", async () => {
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        controller.error(new TypeError("socket closed"));
      },
    });
    await expect(normalizeTokenAnswer(new Response(body), scheme, { raw: null })).rejects.toThrow("socket closed");
  });
});

describe("errors and refusals", () => {
  it("ok: false without an error code, or an empty code, is invalid_request; a description is kept only when it is text", async () => {
    const a = await run(json({ ok: false }));
    expect(a.out.status).toBe(400);
    expect(a.json).toEqual({ error: "invalid_request" });
    const b = await run(json({ error: "", error_description: 7 }));
    expect(b.out.status).toBe(400);
    expect(b.json).toEqual({ error: "invalid_request" });
    const d = await run(json({ ok: false, error: 5 }));
    expect(d.json).toEqual({ error: "invalid_request" });
    const c = await run(json({ error: "bad_code", error_description: "Try again." }));
    expect(c.json).toEqual({ error: "bad_code", error_description: "Try again." });
    expect(c.out.headers.get("content-type")).toBe("application/json");
    expect(c.raw).toEqual({ error: "bad_code", error_description: "Try again." });
  });

  it("ok: true, or an error field that is not text, is no failure", async () => {
    expect((await run(json({ ok: true, access_token: "tok" }))).out.status).toBe(200);
    const numeric = await run(json({ access_token: "tok", error: 0 }));
    expect(numeric.out.status).toBe(200);
    expect(numeric.json).toEqual({ access_token: "tok", error: 0, token_type: "bearer" });
  });

  it("a refusal keeps its status and headers (a 401's challenge) but not its length or encoding, and is not rewritten", async () => {
    const { out, json: fields } = await run(
      new Response(JSON.stringify({ error: "invalid_client", expires_in: "60", token_type: "mac" }), {
        status: 401,
        headers: {
          "content-type": "application/json; charset=utf-8",
          "www-authenticate": 'Basic realm="token"',
          "content-length": "999",
          "x-request-id": "r1",
        },
      }),
    );
    expect(out.status).toBe(401);
    expect(out.headers.get("www-authenticate")).toBe('Basic realm="token"');
    expect(out.headers.get("x-request-id")).toBe("r1");
    expect(out.headers.get("content-length")).not.toBe("999");
    expect(out.headers.get("content-type")).toBe("application/json");
    expect(fields).toEqual({ error: "invalid_client", expires_in: "60", token_type: "mac" });
  });

  it("a refusal's content-encoding is dropped, since the body is written anew", async () => {
    const response = new Response(JSON.stringify({ error: "invalid_grant" }), {
      status: 400,
      headers: { "content-type": "application/json", "content-encoding": "identity" },
    });
    const { out } = await run(response);
    expect(out.headers.get("content-encoding")).toBeNull();
  });

  it("a success answer takes none of the provider's headers", async () => {
    const { out } = await run(json({ access_token: "tok" }, { headers: { "x-request-id": "r1", "set-cookie": "a=b" } }));
    expect(out.headers.get("x-request-id")).toBeNull();
    expect(out.headers.get("set-cookie")).toBeNull();
  });
});

describe("the tokens and their fields", () => {
  it("tokensAt that leads to no object (absent, a string, a list, null) leaves the top-level tokens", async () => {
    for (const nested of [undefined, "text", ["a"], null]) {
      const { json: fields } = await run(json({ access_token: "top", user: nested }), "user");
      expect(fields).toEqual({ access_token: "top", user: nested, token_type: "bearer" });
    }
  });

  it("tokensAt reads a dotted path, and the top-level answer stays in raw", async () => {
    const { json: fields, raw } = await run(json({ access_token: "top", a: { b: { access_token: "deep" } } }), "a.b");
    expect(fields).toEqual({ access_token: "deep", token_type: "bearer" });
    expect(raw).toEqual({ access_token: "top", a: { b: { access_token: "deep" } } });
  });

  it("lifting copies: raw keeps the nested object as the provider sent it", async () => {
    const { raw } = await run(json({ user: { access_token: "deep", expires_in: "60", scope: ["a"] } }), "user");
    expect(raw).toEqual({ user: { access_token: "deep", expires_in: "60", scope: ["a"] } });
  });

  it("a list of scopes with anything but text in it is left as it is", async () => {
    const { json: fields } = await run(json({ access_token: "tok", scope: ["read", 1] }));
    expect(fields).toEqual({ access_token: "tok", scope: ["read", 1], token_type: "bearer" });
  });

  it("expires_in is made a number only when it is all digits", async () => {
    for (const lifetime of ["12a", "a12", "1.5", " 60", ["60"], [60]]) {
      const { json: fields } = await run(json({ access_token: "tok", expires_in: lifetime }));
      expect(fields).toEqual({ access_token: "tok", expires_in: lifetime, token_type: "bearer" });
    }
    expect((await run(json({ access_token: "tok", expires_in: "3600" }))).json).toEqual({
      access_token: "tok",
      expires_in: 3600,
      token_type: "bearer",
    });
  });

  it("expires_in null or empty is left out; a scope that is text, even empty, is kept", async () => {
    expect((await run(json({ access_token: "tok", expires_in: null }))).json).toEqual({ access_token: "tok", token_type: "bearer" });
    expect((await run(json({ access_token: "tok", expires_in: "" }))).json).toEqual({ access_token: "tok", token_type: "bearer" });
    expect((await run(json({ access_token: "tok", expires_in: false, scope: "" }))).json).toEqual({
      access_token: "tok",
      expires_in: false,
      scope: "",
      token_type: "bearer",
    });
  });

  it("bearer and DPoP keep their spelling; any other type, or none, or a number, becomes bearer", async () => {
    for (const type of ["Bearer", "DPoP", "bearer"]) {
      expect(((await run(json({ access_token: "tok", token_type: type }))).json as { token_type: string }).token_type).toBe(type);
    }
    for (const type of ["mac", "", 5, undefined]) {
      expect(((await run(json({ access_token: "tok", token_type: type }))).json as { token_type: string }).token_type).toBe("bearer");
    }
  });
});
