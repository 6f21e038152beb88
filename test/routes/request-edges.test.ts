/**
 * Requests at the edges of what the API accepts, each answered with a clear 4xx that loses
 * nothing: URLs with surrounding whitespace, forged cursors, overlong path parameters,
 * non-canonical and repeated query parameters, two keys at once, two files in one upload,
 * charsets and encodings, bidirectional controls in labels.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CREDENTIALS, createHarness, expectError, type Harness, multipart } from "../support/harness.js";

let h: Harness;
let key: string;

beforeAll(async () => {
  h = await createHarness();
  key = (await h.issueAgentKey("agent-edge")).key;
});
afterAll(async () => {
  h.assertNoLeaks();
  await h.close();
});

describe("proxy URLs", () => {
  it("a URL with whitespace or a control character at either end is a 400, and nothing is sent", async () => {
    await h.connect(key, "notes", { token: CREDENTIALS.bearerToken });
    const before = h.upstream.requests.length;
    for (const url of [
      `  ${h.upstream.origin}/v1/echo`,
      `${h.upstream.origin}/v1/echo `,
      `\t${h.upstream.origin}/v1/echo`,
      `${h.upstream.origin}/v1/echo\n`,
    ]) {
      expectError(
        await h.call("POST", "/proxy", { key, body: { toolkit: "notes", method: "GET", url } }),
        400,
        "invalid_request",
        /body\.url: must not contain whitespace at either end/,
      );
    }
    expect(h.upstream.requests.length).toBe(before);
  });
});

describe("cursors", () => {
  it("a hand-made cursor with a far offset is a 400, not an empty page", async () => {
    const first = await h.call("GET", "/search?limit=2", { key });
    // The real cursor's own payload, with only the offset changed.
    const [payload, tag] = (first.json.nextCursor as string).split(".");
    const forged = Buffer.from(JSON.stringify({ ...JSON.parse(Buffer.from(payload!, "base64url").toString()), o: 1e9 })).toString(
      "base64url",
    );
    for (const cursor of [forged, `${forged}.${tag}`]) {
      expectError(await h.call("GET", `/search?limit=2&cursor=${cursor}`, { key }), 400, "invalid_request", /cursor/);
    }
    expect((await h.call("GET", `/search?limit=2&cursor=${first.json.nextCursor}`, { key })).status).toBe(200);
  });
});

describe("path parameters", () => {
  it("a 15,000-character slug gives a short 404, not a 15 KB error", async () => {
    const slug = "a".repeat(15_000);
    for (const path of [`/toolkit/${slug}`, `/toolkit/${slug}/search`, `/auth/${slug}`, `/files/${slug}`]) {
      const res = await h.call("GET", path, { key });
      expectError(res, 404, "not_found");
      expect(res.text.length, path).toBeLessThan(400);
    }
    const unknownRoute = await h.call("GET", `/${slug}`, { key });
    expectError(unknownRoute, 404, "not_found", /No route GET \/proxy\/tools\/a+…/);
    expect(unknownRoute.text.length).toBeLessThan(400);
    expect((await h.call("DELETE", `/connections/${slug}`, { key })).text.length).toBeLessThan(400);
  });

  it("a slug of ordinary length is still echoed whole", async () => {
    expectError(await h.call("GET", "/toolkit/nosuchkit", { key }), 404, "not_found", /No toolkit "nosuchkit"/);
  });
});

describe("query parameters", () => {
  it("limit must be a plain decimal integer", async () => {
    for (const limit of ["0x10", "%201", "01", "1e0", "1.0", "+1", "0", "201", "-1", ""]) {
      expectError(await h.call("GET", `/search?limit=${limit}`, { key }), 400, "invalid_request", /query\.limit/);
    }
    for (const limit of ["1", "9", "200"]) {
      const res = await h.call("GET", `/search?limit=${limit}`, { key });
      expect(res.status, limit).toBe(200);
      expect(res.json.toolkits.length).toBe(Math.min(Number(limit), 9));
    }
  });

  it("a parameter given twice is a 400 naming it, not a silent choice", async () => {
    expectError(await h.call("GET", "/search?limit=1&limit=2", { key }), 400, "invalid_request", /"limit" is given more than once/);
    expectError(await h.call("GET", "/connections?toolkit=a&toolkit=b", { key }), 400, "invalid_request", /"toolkit"/);
  });
});

describe("API keys in two headers", () => {
  it("the same key in x-api-key and Authorization is fine", async () => {
    expect((await h.call("GET", "/connections", { key, headers: { authorization: `Bearer ${key}` } })).status).toBe(200);
  });

  it("two different keys are a 400, whichever is valid", async () => {
    const other = (await h.issueAgentKey("agent-other")).key;
    expectError(
      await h.call("GET", "/connections", { key, headers: { authorization: `Bearer ${other}` } }),
      400,
      "invalid_request",
      /Two different API keys/,
    );
    expectError(
      await h.call("GET", "/connections", { key, headers: { authorization: `Bearer pak_${"B".repeat(43)}` } }),
      400,
      "invalid_request",
      /Two different API keys/,
    );
  });

  it("an Authorization that is the app's own (not one of our keys) is left alone when x-api-key is there", async () => {
    expect((await h.call("GET", "/connections", { key, headers: { authorization: "Bearer app-session-jwt.abc.def" } })).status).toBe(200);
    expect((await h.call("GET", "/connections", { key, headers: { authorization: "Basic dXNlcjpwdw==" } })).status).toBe(200);
  });

  it("x-api-key sent twice is a 400", async () => {
    const headers = new Headers({ "x-api-key": key });
    headers.append("x-api-key", key);
    expectError(
      await h.send(new Request(`${"http://tools.test"}${h.basePath}/connections`, { headers })),
      400,
      "invalid_request",
      /more than once/,
    );
  });

  it("`Bearer <key> extra` says what is wrong instead of 'missing'", async () => {
    expectError(
      await h.call("GET", "/connections", { headers: { authorization: `Bearer ${key} extra` } }),
      401,
      "unauthorized",
      /nothing after the key/,
    );
  });
});

describe("uploads", () => {
  it("two parts named file are a 400, and nothing is staged", async () => {
    const form = multipart("first", "text/plain", "a.txt");
    form.append("file", new Blob(["second"], { type: "text/plain" }), "b.txt");
    expectError(await h.call("POST", "/upload", { key, rawBody: form }), 400, "invalid_request", /more than one part named `file`/);
  });

  it("a compressed upload is a 415", async () => {
    expectError(
      await h.call("POST", "/upload", { key, rawBody: multipart("x", "text/plain"), headers: { "content-encoding": "gzip" } }),
      415,
      "unsupported_media_type",
      /Content-Encoding "gzip"/,
    );
  });
});

describe("charsets and encodings of JSON bodies", () => {
  const label = (agentKey: string, bytes: Uint8Array<ArrayBuffer>, contentType: string, headers: Record<string, string> = {}) =>
    h.call("POST", "/auth", { key: agentKey, rawBody: bytes, headers: { "content-type": contentType, ...headers } });

  it("ISO-8859-1 is decoded as ISO-8859-1, so the label is stored as sent (it was mojibake)", async () => {
    const latin1 = Uint8Array.from(
      Buffer.from(JSON.stringify({ toolkit: "notes", credentials: { token: CREDENTIALS.bearerToken2 }, label: "Café" }), "latin1"),
    );
    const res = await label(key, latin1, "application/json; charset=iso-8859-1");
    expect(res.status, res.text).toBe(201);
    expect(res.json.connection.label).toBe("Café");
  });

  it("bytes that are not valid in the charset are a 400 (UTF-8 by default), never replaced and stored", async () => {
    const invalid = Uint8Array.from([
      ...Buffer.from('{"toolkit":"notes","credentials":{"token":"abcdefgh"},"label":"Caf'),
      0xe9,
      ...Buffer.from('"}'),
    ]);
    for (const type of ["application/json", "application/json; charset=utf-8"]) {
      expectError(await label(key, invalid, type), 400, "invalid_request", /not valid utf-8 text/);
    }
  });

  it("an unknown charset and a compressed body are 415s", async () => {
    const body = new TextEncoder().encode(JSON.stringify({ toolkit: "notes" }));
    expectError(await label(key, body, "application/json; charset=klingon"), 415, "unsupported_media_type", /charset "klingon"/);
    expectError(
      await label(key, body, "application/json", { "content-encoding": "gzip" }),
      415,
      "unsupported_media_type",
      /Content-Encoding "gzip".*uncompressed/,
    );
    expect((await label(key, new TextEncoder().encode("{}"), "application/json", { "content-encoding": "identity" })).status).toBe(400);
  });
});

describe("labels", () => {
  it("bidirectional controls and Unicode line separators are refused like other control characters", async () => {
    for (const text of ["evil\u202Egnp.exe", "a\u2066b\u2069", "x\u200Fy", "line\u2028break", "a\u061Cb"]) {
      expectError(
        await h.call("POST", "/auth", { key, body: { toolkit: "notes", credentials: { token: "abcdefgh" }, label: text } }),
        400,
        "invalid_request",
        /body\.label: .*bidirectional/,
      );
    }
  });
});

describe("what a caller needs to know", () => {
  it("a toolkit's details say where /proxy may go and how it authenticates, and nothing secret", async () => {
    const notes = (await h.call("GET", "/toolkit/notes", { key })).json;
    expect(notes).toMatchObject({ authScheme: "bearer", auth: { type: "bearer" }, baseUrls: [`${h.upstream.origin}/v1`] });
    expect((await h.call("GET", "/toolkit/acmeq", { key })).json.auth).toEqual({
      mode: "apiKey",
      type: "apiKey",
      label: "API key",
      in: "query",
      name: "api_key",
      fields: [{ name: "apiKey", label: "API key", secret: true, optional: false }],
    });
    const mail = (await h.call("GET", "/toolkit/mail", { key })).json;
    expect(mail.auth).toEqual({ mode: "oauth2", type: "oauth2", label: "OAuth 2", scopes: ["mail.read"], configured: true, fields: [] });
    expect(JSON.stringify(mail)).not.toContain("mail-client");
    expect((await h.call("GET", "/toolkit/tenant", { key })).json.baseUrls).toEqual([`${h.upstream.origin}/t/{tenant}`]);
  });

  it("a service key's workspace listing says which agent owns each connection", async () => {
    const service = await h.issueServiceKey();
    const other = (await h.issueAgentKey("agent-owner-b")).key;
    await h.connect(other, "acme", { apiKey: CREDENTIALS.headerKey });
    const listed = (await h.call("GET", "/connections", { key: service.key })).json.connections as Array<{
      agentId: string;
      toolkit: string;
    }>;
    expect(listed.find((c) => c.toolkit === "acme")?.agentId).toBe("agent-owner-b");
    expect(new Set(listed.map((c) => c.agentId))).toEqual(new Set(["agent-edge", "agent-owner-b"]));
  });
});
