/**
 * Redaction at the surface a user sees: what a logger receives from `createSafeLogger`, and the
 * data `redactData` hands to an agent. Property tests embed secrets in every spelling the library
 * documents (as is, JSON-escaped, percent-encoded, form-encoded) in arbitrary text.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { createSafeLogger, type Logger } from "../../src/core/logger.js";
import { redact, redactData, redactFields, secretForms } from "../../src/core/redact.js";

/** A logger that records what it was given. */
function recorder() {
  const lines: Array<{ message: string; fields: Record<string, unknown> | undefined }> = [];
  const write = (message: string, fields?: Record<string, unknown>) => void lines.push({ message, fields });
  const logger: Logger = { debug: write, info: write, warn: write, error: write };
  return { lines, safe: createSafeLogger(logger) };
}

const spellings = (secret: string) => [
  secret,
  JSON.stringify(secret).slice(1, -1),
  encodeURIComponent(secret),
  new URLSearchParams([["k", secret]]).toString().slice(2),
];

// Secrets as users paste them: printable, sometimes with line breaks, quotes, escapes and Unicode.
const secretArb = fc.string({
  unit: fc.constantFrom(...'abcXYZ019-_.~+/=:@ "\\\r\n\t\u00e9\u2603'.split("")),
  minLength: 8,
  maxLength: 40,
});
const textArb = fc.string({ maxLength: 40 });

describe("createSafeLogger", () => {
  it("redacts a secret with CR/LF in a nested field and an error message (JSON text would have escaped it)", () => {
    const secret = "a-secret\r\nX-Inj: 1";
    const { lines, safe } = recorder();
    safe.log(
      "warn",
      `failed with ${secret}`,
      { request: { headers: [["x-key", secret]] }, error: new TypeError(`Headers.set: "${secret}" is an invalid header value.`) },
      [secret],
    );
    const [line] = lines;
    expect(line!.message).toBe("failed with [redacted]");
    expect(line!.fields).toEqual({
      request: { headers: [["x-key", "[redacted]"]] },
      error: {
        name: "TypeError",
        message: 'Headers.set: "[redacted]" is an invalid header value.',
        stack: expect.stringContaining("[redacted]"),
      },
    });
    expect(JSON.stringify(line)).not.toContain("a-secret");
  });

  it("keeps fields well-formed where the query-secret pattern meets a quote (it used to corrupt the JSON and throw)", () => {
    const { lines, safe } = recorder();
    safe.log("warn", "tool failed", { body: '{"next":"https://api.test/x?token=abc"}', url: "https://api.test/x?token=abc&page=2" });
    expect(lines[0]!.fields).toEqual({
      body: '{"next":"https://api.test/x?token=[redacted]"}',
      url: "https://api.test/x?token=[redacted]&page=2",
    });
  });

  it("keeps an error's code and cause, and the stack only of errors without a code", () => {
    const { lines, safe } = recorder();
    const cause = Object.assign(new Error("connect ECONNREFUSED 127.0.0.1:9"), { code: "ECONNREFUSED" });
    safe.log("warn", "x", { error: new TypeError("fetch failed", { cause }) });
    const error = lines[0]!.fields!.error as Record<string, unknown>;
    expect(error).toMatchObject({
      name: "TypeError",
      message: "fetch failed",
      cause: { name: "Error", message: "connect ECONNREFUSED 127.0.0.1:9", code: "ECONNREFUSED" },
    });
    expect(error.stack).toEqual(expect.any(String));
    expect(error.cause).not.toHaveProperty("stack");
  });

  it("leaves out an error's other properties and a cause that is data (a provider's response body may quote a token)", () => {
    const { lines, safe } = recorder();
    const error = Object.assign(
      new Error("server responded with an error in the response body", {
        cause: { error: "invalid_request", error_description: "cannot revoke tok-abcdefgh" },
      }),
      {
        code: "OAUTH_RESPONSE_BODY_ERROR",
        response: { body: "tok-abcdefgh" },
        error_description: "cannot revoke tok-abcdefgh",
      },
    );
    safe.log("warn", "revocation failed", { error });
    expect(lines[0]!.fields).toEqual({
      error: { name: "Error", message: "server responded with an error in the response body", code: "OAUTH_RESPONSE_BODY_ERROR" },
    });
  });

  it("never throws and never fails the caller: cycles, getters that throw, BigInt, odd objects, a logger that throws", () => {
    const { lines, safe } = recorder();
    const cyclic: Record<string, unknown> = { name: "loop" };
    cyclic.self = cyclic;
    const hostile = Object.defineProperty({}, "boom", {
      enumerable: true,
      get: () => {
        throw new Error("getter");
      },
    });
    const selfCaused = new Error("own cause");
    selfCaused.cause = selfCaused;
    expect(() =>
      safe.log("info", "a", {
        cyclic,
        n: 10n,
        when: new Date(0),
        bad: new Date(Number.NaN),
        bytes: new Uint8Array(3),
        map: new Map([["k", "v"]]),
        set: new Set([1]),
        fn: () => 1,
        sym: Symbol("s"),
        selfCaused,
      }),
    ).not.toThrow();
    expect(lines[0]!.fields).toMatchObject({
      cyclic: { name: "loop", self: "[circular]" },
      n: "10",
      when: "1970-01-01T00:00:00.000Z",
      bad: "Invalid Date",
      bytes: "[3 bytes]",
      map: { k: "v" },
      set: [1],
      selfCaused: { cause: "[circular]" },
    });
    expect(() => safe.log("info", "b", { hostile })).not.toThrow();
    expect(lines[1]!.fields).toEqual({ fields: "[could not be read]" });
    const throwing = createSafeLogger({
      error: () => {
        throw new Error("down");
      },
    });
    expect(() => throwing.log("error", "c", { x: 1 })).not.toThrow();
  });

  it("cuts nesting deeper than eight levels", () => {
    const { lines, safe } = recorder();
    let deep: Record<string, unknown> = { leaf: "secret-leaf-value" };
    for (let i = 0; i < 12; i++) deep = { deep };
    safe.log("info", "deep", deep, ["secret-leaf-value"]);
    expect(JSON.stringify(lines[0]!.fields)).toContain("[nested too deep]");
    expect(JSON.stringify(lines[0]!.fields)).not.toContain("secret-leaf-value");
  });

  it("property: a secret in any spelling, in any field at any depth, never reaches the logger", () => {
    fc.assert(
      fc.property(secretArb, textArb, textArb, fc.nat(3), fc.nat(3), (secret, before, after, spelling, depth) => {
        const { lines, safe } = recorder();
        const embedded = `${before}${spellings(secret)[spelling]}${after}`;
        let fields: Record<string, unknown> = { value: embedded, error: new Error(embedded) };
        for (let i = 0; i < depth; i++) fields = { nested: fields, list: [fields.value] };
        safe.log("warn", embedded, fields, [secret]);
        const seen = JSON.stringify(lines[0]);
        for (const form of secretForms([secret])) expect(seen.includes(JSON.stringify(form).slice(1, -1))).toBe(false);
      }),
      { numRuns: 300 },
    );
  });
});

describe("redact: shapes of credentials in text the library did not write", () => {
  const cases: Array<[string, string, string]> = [
    ["an agent key", "key pak_abcdefghijKLMNOP0123456789 used", "key [redacted] used"],
    ["a service key", "psk_ABCDEFGH_ijkl-123", "[redacted]"],
    ["a bearer credential", "Authorization: Bearer eyJhbGciOi.payload.sig", "Authorization: Bearer [redacted]"],
    ["a bearer credential after a tab and in lower case", "authorization: bearer\tabcdefgh12345678", "authorization: bearer [redacted]"],
    ["a basic credential", "Basic YWxpY2U6c2VjcmV0LXB3", "Basic [redacted]"],
    [
      "query secrets",
      "GET /x?access_token=a1&refresh_token=b2&id_token=c3&api_key=d4&apikey=e5&key=f6&token=g7&client_secret=h8&code=i9&password=j0&secret=k1&page=2",
      "GET /x?access_token=[redacted]&refresh_token=[redacted]&id_token=[redacted]&api_key=[redacted]&apikey=[redacted]&key=[redacted]&token=[redacted]&client_secret=[redacted]&code=[redacted]&password=[redacted]&secret=[redacted]&page=2",
    ],
    ["a query secret in upper case, ended by a fragment", "https://x.test/?TOKEN=abc#frag", "https://x.test/?TOKEN=[redacted]#frag"],
    [
      "a URL's password",
      "connect postgres://admin:hunter2@db.internal:5432/app failed",
      "connect postgres://admin:[redacted]@db.internal:5432/app failed",
    ],
  ];
  for (const [name, input, output] of cases) it(name, () => expect(redact(input)).toBe(output));

  it("leaves words that merely look similar alone", () => {
    for (const text of [
      "Bearer short",
      "the keyword token= was empty",
      "a Bearer\n",
      "pak_short",
      "https://host/path?page=2&keys=3",
      "mailto:someone@example.com",
    ]) {
      expect(redact(text)).toBe(text);
    }
  });

  it("property: a bearer token, a query secret, a key or a URL password in any surrounding text is gone", () => {
    const tokenChars = fc.string({ unit: fc.constantFrom(..."abcXYZ0189._~+/=-".split("")), minLength: 8, maxLength: 40 });
    const around = fc.string({ unit: fc.constantFrom(..."ab ,;()[]{}\n".split("")), maxLength: 10 });
    fc.assert(
      fc.property(tokenChars, around, around, fc.constantFrom("Bearer ", "bearer\t", "Basic  "), (token, before, after, scheme) => {
        expect(redact(`${before}${scheme}${token}${after}`)).not.toContain(token);
      }),
      { numRuns: 300 },
    );
    const valueChars = fc.string({ unit: fc.constantFrom(..."abcXYZ019%._~+/=-".split("")), minLength: 1, maxLength: 30 });
    fc.assert(
      fc.property(
        valueChars,
        fc.constantFrom("?", "&"),
        fc.constantFrom("token", "access_token", "api_key", "client_secret", "code"),
        (value, sep, name) => {
          const out = redact(`https://api.test/x${sep === "&" ? "?a=1&" : "?"}${name}=${value}`);
          expect(out.endsWith(`${name}=[redacted]`)).toBe(true);
        },
      ),
      { numRuns: 300 },
    );
    const keyBody = fc.string({ unit: fc.constantFrom(..."abcXYZ019_-".split("")), minLength: 43, maxLength: 43 });
    fc.assert(
      fc.property(keyBody, around, around, fc.constantFrom("pak_", "psk_"), (body, before, after, prefix) => {
        expect(redact(`${before}${prefix}${body}${after}`)).not.toContain(body);
      }),
      { numRuns: 300 },
    );
    const password = fc.string({ unit: fc.constantFrom(..."abcXYZ019!$%^*()_+-=.,;".split("")), minLength: 1, maxLength: 20 });
    fc.assert(
      fc.property(password, around, fc.constantFrom("postgres", "mysql", "redis", "https"), (secret, before, scheme) => {
        expect(redact(`${before}${scheme}://user:${secret}@host.internal:1/db`)).toContain(`${scheme}://user:[redacted]@host.internal`);
      }),
      { numRuns: 300 },
    );
  });
});

describe("redactData: the connection's secrets in data answered to an agent", () => {
  it("replaces every spelling, in keys and values at any depth, and shares what holds no secret", () => {
    const secret = 'q-key\r\n"quoted"';
    const clean = { untouched: [1, 2, { a: "b" }] };
    const data = {
      clean,
      text: `url?k=${encodeURIComponent(secret)}`,
      [`k-${secret}`]: true,
      list: [`${JSON.stringify(secret).slice(1, -1)}`, new URLSearchParams([["k", secret]]).toString()],
    };
    const out = redactData(data, secretForms([secret])) as Record<string, unknown>;
    expect(out).toEqual({ clean, text: "url?k=[redacted]", "k-[redacted]": true, list: ["[redacted]", "k=[redacted]"] });
    expect(out.clean).toBe(clean);
    expect(redactData(clean, secretForms([secret]))).toBe(clean);
    expect(data.text).toContain("q-key"); // the input is not modified
  });

  it("does not touch credential-shaped text that is not the connection's own", () => {
    const data = { next: "https://api.test/files/1?token=download-token-123", auth: "Bearer someone-elses-token" };
    expect(redactData(data, secretForms(["mine-0123456789"]))).toBe(data);
  });

  it("ignores secrets shorter than four characters, which would garble ordinary words", () => {
    expect(redact("Invalid API key", ["a"])).toBe("Invalid API key");
    expect(secretForms(["abc", "", "abcd"])).toEqual(["abcd"]);
  });

  it("property: no spelling of the secret survives in any JSON value", () => {
    fc.assert(
      fc.property(secretArb, fc.jsonValue({ maxDepth: 3 }), fc.nat(3), (secret, value, spelling) => {
        const planted = { value, here: `x${spellings(secret)[spelling]}y`, [spellings(secret)[spelling]!]: value };
        const seen = JSON.stringify(redactData(planted, secretForms([secret])));
        for (const form of secretForms([secret])) expect(seen.includes(JSON.stringify(form).slice(1, -1))).toBe(false);
      }),
      { numRuns: 300 },
    );
  });
});

describe("redactFields is what createSafeLogger uses", () => {
  it("is exported for stores and adapters that log on their own", () => {
    expect(redactFields({ e: new Error("x Bearer abcdefgh12345678") }, [])).toEqual({
      e: { name: "Error", message: "x Bearer [redacted]", stack: expect.any(String) },
    });
  });
});
