/**
 * The redaction contract at what a logger receives and what an agent is answered, case by case:
 * every spelling of a secret, as the test (not the library) spells it; a secret that contains
 * another; secrets too short to search for; secrets that are not well-formed UTF-16; and the shape
 * of what comes out (the input untouched, keys in order, nesting cut at every kind of container).
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { createSafeLogger, type Logger } from "../../src/core/logger.js";
import { redact, redactData, secretForms } from "../../src/core/redact.js";

function recorder() {
  const lines: Array<{ message: string; fields: Record<string, unknown> | undefined }> = [];
  const write = (message: string, fields?: Record<string, unknown>) => void lines.push({ message, fields });
  const logger: Logger = { debug: write, info: write, warn: write, error: write };
  return { lines, safe: createSafeLogger(logger) };
}

/** Every string in a value, keys included. */
function strings(value: unknown): string[] {
  if (typeof value === "string") return [value];
  if (Array.isArray(value)) return value.flatMap(strings);
  if (value && typeof value === "object") return Object.entries(value).flatMap(([k, v]) => [k, ...strings(v)]);
  return [];
}

/** How text can carry a secret, written out here rather than asked of the library. */
const spellings = (secret: string) => ({
  raw: secret,
  json: JSON.stringify(secret).slice(1, -1),
  uri: encodeURIComponent(secret),
  form: new URLSearchParams([["k", secret]]).toString().slice(2),
});

const secretArb = fc.string({
  unit: fc.constantFrom(..."abcXYZ019-_.~+/=:@ !'()*\"\\\r\n\t\u00e9\u2603".split("")),
  minLength: 8,
  maxLength: 40,
});

describe("every spelling of a secret is redacted, as the test spells it", () => {
  it("percent-encoded as encodeURIComponent writes it (%20 for a space, unlike a form's +), e.g. in a URL path", () => {
    const secret = "pass word!(1)";
    const { lines, safe } = recorder();
    const url = `https://api.test/users/${encodeURIComponent(secret)}/x`;
    safe.log("warn", `GET ${url} failed`, { url }, [secret]);
    expect(lines[0]).toEqual({
      message: "GET https://api.test/users/[redacted]/x failed",
      fields: { url: "https://api.test/users/[redacted]/x" },
    });
    expect(redactData({ next: url }, secretForms([secret]))).toEqual({ next: "https://api.test/users/[redacted]/x" });
  });

  it("property: no spelling of the secret reaches the logger or the agent's data", () => {
    fc.assert(
      fc.property(
        secretArb,
        fc.constantFrom("raw", "json", "uri", "form") as fc.Arbitrary<keyof ReturnType<typeof spellings>>,
        (secret, how) => {
          const planted = `before ${spellings(secret)[how]} after`;
          const { lines, safe } = recorder();
          safe.log("warn", planted, { value: planted, error: new Error(planted) }, [secret]);
          const data = redactData({ value: planted, list: [planted], [planted]: 1 }, secretForms([secret]));
          const seen = [...strings(lines[0]), ...strings(data)];
          for (const spelling of Object.values(spellings(secret))) for (const text of seen) expect(text).not.toContain(spelling);
          expect(seen.filter((text) => text.includes("before [redacted] after")).length).toBeGreaterThanOrEqual(5);
        },
      ),
      { numRuns: 300 },
    );
  });
});

describe("a secret that contains another is replaced whole, whatever order the secrets come in", () => {
  it("property: nothing of the longer secret is left beside the marker", () => {
    const part = fc.string({ unit: fc.constantFrom(..."abcXYZ019-_".split("")), minLength: 4, maxLength: 16 });
    fc.assert(
      fc.property(part, part, fc.boolean(), (short, rest, shortFirst) => {
        const long = `${short}${rest}`;
        const secrets = shortFirst ? [short, long] : [long, short];
        const { lines, safe } = recorder();
        safe.log("warn", `<${long}>`, { value: `<${long}>` }, secrets);
        expect(lines[0]).toEqual({ message: "<[redacted]>", fields: { value: "<[redacted]>" } });
        expect(redactData({ value: `<${long}>` }, secretForms(secrets))).toEqual({ value: "<[redacted]>" });
      }),
      { numRuns: 200 },
    );
  });
});

describe("secrets shorter than four characters are not searched for, in any spelling", () => {
  it("a three-character secret leaves the text alone, even where one of its spellings is four or more characters", () => {
    const { lines, safe } = recorder();
    const text = "a b, a%20b, a+b and ab/ ab%2F";
    safe.log("warn", text, { text }, ["a b", "ab/"]);
    expect(lines[0]).toEqual({ message: text, fields: { text } });
    expect(redactData({ text }, secretForms(["a b", "ab/"]))).toEqual({ text });
    expect(redact(text, ["a b", "ab/"])).toBe(text);
  });

  it("a list of secrets with a hole in it (an optional field a JavaScript caller did not check) still redacts the others", () => {
    const { lines, safe } = recorder();
    safe.log("warn", "token tok-0123456789 refused", { error: new Error("tok-0123456789") }, [
      undefined as unknown as string,
      "tok-0123456789",
    ]);
    expect(lines).toEqual([{ message: "token [redacted] refused", fields: { error: expect.objectContaining({ message: "[redacted]" }) } }]);
  });

  it("a four-character secret is searched for in every spelling", () => {
    expect(redact("a  b, a%20%20b, a++b", ["a  b"])).toBe("[redacted], [redacted], [redacted]");
  });
});

describe("a secret that is not well-formed UTF-16 (an unpaired surrogate, which JSON can carry)", () => {
  const secret = "key-\ud800-abcdef";

  it("is redacted in each spelling, as URL encoders and text decoders write it, and redaction does not throw", () => {
    const texts = [
      `raw ${secret}`,
      `json ${JSON.stringify(secret)}`,
      `url https://api.test/x?q=${new URLSearchParams([["", secret]]).toString().slice(1)}&page=2`,
      `decoded key-\ufffd-abcdef`,
    ];
    const { lines, safe } = recorder();
    for (const text of texts) safe.log("warn", text, { text }, [secret]);
    expect(lines.map((line) => line.message)).toEqual([
      "raw [redacted]",
      'json "[redacted]"',
      "url https://api.test/x?q=[redacted]&page=2",
      "decoded [redacted]",
    ]);
    expect(redactData(texts, secretForms([secret]))).toEqual(lines.map((line) => line.message));
  });
});

describe("what comes out has the shape of what went in", () => {
  const secret = "tok-0123456789";

  it("the agent's data keeps its keys in order, and the input (arrays included) is not modified", () => {
    const data = { first: `a ${secret}`, second: 2, list: ["plain", `b ${secret}`, 3], third: { deep: [secret] } };
    const copy = structuredClone(data);
    const out = redactData(data, secretForms([secret]));
    expect(JSON.stringify(out)).toBe(
      '{"first":"a [redacted]","second":2,"list":["plain","b [redacted]",3],"third":{"deep":["[redacted]"]}}',
    );
    expect(data).toEqual(copy);
  });

  it.each([
    ["arrays", (inner: unknown) => [inner]],
    ["sets", (inner: unknown) => new Set([inner])],
    ["maps", (inner: unknown) => new Map([["k", inner]])],
  ])("log fields nested in %s deeper than eight levels are cut", (_kind, wrap) => {
    let deep: unknown = "leaf";
    for (let i = 0; i < 12; i++) deep = wrap(deep);
    const { lines, safe } = recorder();
    safe.log("info", "deep", { deep });
    const text = JSON.stringify(lines[0]!.fields);
    expect(text).toContain("[nested too deep]");
    expect(text).not.toContain("leaf");
  });
});
