/**
 * The byte scanner of staged answers and the passthrough (`src/core/redact-bytes.ts`) and the way
 * a body is told text from binary (`src/core/body-kind.ts`): every spelling of a secret is masked
 * wherever the chunk boundaries fall, text with `[redacted]`, binary in place with its length
 * kept, and nothing more than a tail is held while it streams.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { isTextType, looksLikeText, maskStyleFor, mediaType } from "../../src/core/body-kind.js";
import { secretForms } from "../../src/core/redact.js";
import { type MaskChoice, redactBytes, redactStream, type ScanReport, searchBytes } from "../../src/core/redact-bytes.js";

const utf8 = new TextEncoder();
const text = new TextDecoder();

/** A stream of `bytes` cut at the given offsets. */
function chunked(bytes: Uint8Array, cuts: number[]): ReadableStream<Uint8Array> {
  const edges = [...new Set([0, ...cuts.map((c) => c % (bytes.length + 1)), bytes.length])].sort((a, b) => a - b);
  const chunks = edges.slice(1).map((end, i) => bytes.slice(edges[i], end));
  return new ReadableStream({
    start(controller) {
      for (const chunk of chunks) controller.enqueue(chunk);
      controller.close();
    },
  });
}

async function read(body: ReadableStream<Uint8Array>): Promise<Uint8Array> {
  return new Uint8Array(await new Response(body).arrayBuffer());
}

/** What the scanner makes of `input` cut at `cuts`, and its report. */
async function streamed(input: string | Uint8Array, forms: string[], style: MaskChoice, cuts: number[] = []) {
  let report: ScanReport | undefined;
  const bytes = typeof input === "string" ? utf8.encode(input) : input;
  const out = await read(
    redactStream(chunked(bytes, cuts), forms, style, (r) => {
      report = r;
    }),
  );
  return { out, text: text.decode(out), report };
}

const SECRET = "tok-0123456789abcdef";

describe("text: every spelling of a secret becomes [redacted]", () => {
  it("raw, JSON-escaped, percent-encoded and form-encoded, and a Basic pair's base64 as the connection lists it", async () => {
    const secret = 'pa ss"word/1';
    const basic = btoa('user:pa ss"word/1');
    const body = `raw ${secret} json ${JSON.stringify(secret)} uri ${encodeURIComponent(secret)} form ${new URLSearchParams([["", secret]]).toString().slice(1)} basic Basic ${basic}`;
    const { text: out, report } = await streamed(body, secretForms([secret, basic]), "text");
    expect(out).toBe('raw [redacted] json "[redacted]" uri [redacted] form [redacted] basic Basic [redacted]');
    expect(report).toEqual({ style: "text", masked: 5 });
  });

  it("a secret cut by a chunk boundary at every possible place is found", async () => {
    const body = `{"echo":"Bearer ${SECRET}","n":1}`;
    const start = body.indexOf(SECRET);
    for (let cut = start; cut <= start + SECRET.length; cut++) {
      const { text: out } = await streamed(body, secretForms([SECRET]), "text", [cut]);
      expect(out, `cut at ${cut}`).toBe('{"echo":"Bearer [redacted]","n":1}');
    }
  });

  it("one byte per chunk, secrets back to back and a secret containing another", async () => {
    const short = "abcd1234";
    const long = `${short}-and-more`;
    const body = `${SECRET}${SECRET} <${long}> <${short}>`;
    const cuts = Array.from({ length: utf8.encode(body).length }, (_, i) => i);
    const { text: out, report } = await streamed(body, secretForms([short, long, SECRET]), "text", cuts);
    expect(out).toBe("[redacted][redacted] <[redacted]> <[redacted]>");
    expect(report?.masked).toBe(4);
  });

  it("a secret with multi-byte characters is found as its UTF-8 bytes, across a boundary inside a character", async () => {
    const secret = "clé-☃-0123";
    const body = `x ${secret} y`;
    const inside = utf8.encode(`x cl`).length + 1; // between the two bytes of é
    expect((await streamed(body, secretForms([secret]), "text", [inside])).text).toBe("x [redacted] y");
  });

  it("property: however the body is cut, the stream gives what the whole body gives, with no spelling left", async () => {
    const secretArb = fc.string({ unit: fc.constantFrom(..."abcXYZ019-_.~+/=:@ !'()\"\\é".split("")), minLength: 4, maxLength: 30 });
    const fillerArb = fc.string({ unit: fc.constantFrom(...'ab c0{}:,"\n'.split("")), maxLength: 60 });
    await fc.assert(
      fc.asyncProperty(
        secretArb,
        fc.array(fc.tuple(fillerArb, fc.constantFrom(0, 1, 2, 3)), { minLength: 1, maxLength: 6 }),
        fc.array(fc.nat(), { maxLength: 8 }),
        fc.constantFrom<MaskChoice>("text", "binary", "sniff"),
        async (secret, parts, cuts, style) => {
          const forms = secretForms([secret]);
          const body = parts.map(([filler, i]) => `${filler}${forms[i % forms.length]}`).join("");
          const whole = redactBytes(utf8.encode(body), forms, style);
          const { out, report } = await streamed(body, forms, style, cuts);
          expect(out).toEqual(whole.bytes);
          expect(report).toEqual({ style: whole.style, masked: whole.masked });
          const decoded = text.decode(out);
          for (const form of forms) expect(decoded).not.toContain(form);
          if (whole.style === "binary") expect(out.length).toBe(utf8.encode(body).length);
        },
      ),
      { numRuns: 300 },
    );
  });
});

describe("binary: masked in place, the length kept", () => {
  it("overwrites the secret's bytes with * and leaves every other byte where it was", async () => {
    const head = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 1, 2]);
    const body = new Uint8Array([...head, ...utf8.encode(`Authorization: Bearer ${SECRET}`), 0xff, 0]);
    const { out, report } = await streamed(body, secretForms([SECRET]), "binary", [head.length + 30]);
    expect(out.length).toBe(body.length);
    expect(out.subarray(0, head.length)).toEqual(head);
    expect(text.decode(out.subarray(head.length, -2))).toBe(`Authorization: Bearer ${"*".repeat(SECRET.length)}`);
    expect([...out.subarray(-2)]).toEqual([0xff, 0]);
    expect(report).toEqual({ style: "binary", masked: 1 });
  });

  it("sniff: a body that looks like text is masked as text, one with control bytes as binary", async () => {
    const asText = await streamed(`{"echo":"${SECRET}"}`, secretForms([SECRET]), "sniff", [3]);
    expect(asText.text).toBe('{"echo":"[redacted]"}');
    expect(asText.report?.style).toBe("text");
    const asBinary = await streamed(new Uint8Array([0, 1, ...utf8.encode(SECRET)]), secretForms([SECRET]), "sniff", [1]);
    expect(asBinary.report?.style).toBe("binary");
    expect(text.decode(asBinary.out.subarray(2))).toBe("*".repeat(SECRET.length));
  });
});

describe("streaming", () => {
  it("holds no more than the longest spelling less one byte: each chunk's bytes before that tail come out at once", async () => {
    const forms = secretForms([SECRET]);
    const longest = Math.max(...forms.map((f) => utf8.encode(f).length));
    const { readable, writable } = new TransformStream<Uint8Array, Uint8Array>();
    const reader = redactStream(readable, forms, "binary").getReader();
    const writer = writable.getWriter();
    const chunk = new Uint8Array(64 * 1024).fill(0x61);
    let total = 0;
    for (let i = 0; i < 4; i++) {
      void writer.write(chunk);
      const { value } = await reader.read();
      total += value!.length;
      expect(total).toBe((i + 1) * chunk.length - (longest - 1));
    }
    void writer.close();
    const rest = await reader.read();
    expect(total + rest.value!.length).toBe(4 * chunk.length);
  });

  it("with no secret to look for, the body is passed on as it is", () => {
    const body = chunked(utf8.encode("x"), []);
    expect(redactStream(body, secretForms([]), "text")).toBe(body);
    const bytes = utf8.encode("abc");
    expect(redactBytes(bytes, [], "sniff")).toEqual({ bytes, style: "text", masked: 0 });
  });

  it("a whole body without a secret comes back as the same array", () => {
    const bytes = utf8.encode(`nothing here ${"x".repeat(1000)}`);
    expect(redactBytes(bytes, secretForms([SECRET]), "text").bytes).toBe(bytes);
  });

  it("a body that breaks off errors the stream, and no report is made", async () => {
    let reported = false;
    const failing = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(utf8.encode("partial"));
        controller.error(new Error("cut"));
      },
    });
    await expect(read(redactStream(failing, secretForms([SECRET]), "text", () => (reported = true)))).rejects.toThrow("cut");
    expect(reported).toBe(false);
  });
});

describe("the search of runtimes without Buffer", () => {
  it("property: finds what Buffer.indexOf finds, from any offset", () => {
    const bytes = fc.uint8Array({ minLength: 0, maxLength: 64 }).map((a) => a.map((b) => b % 4));
    fc.assert(
      fc.property(
        bytes,
        fc.uint8Array({ minLength: 1, maxLength: 4 }).map((a) => a.map((b) => b % 4)),
        fc.nat(70),
        (hay, needle, from) => {
          expect(searchBytes(hay, needle, from)).toBe(Buffer.from(hay).indexOf(Buffer.from(needle), from));
        },
      ),
      { numRuns: 1000 },
    );
  });
});

describe("which bodies are text", () => {
  it.each([
    "text/plain",
    "text/html",
    "application/json",
    "application/problem+json",
    "application/x-ndjson",
    "application/ndjson",
    "application/jsonl",
    "application/json-seq",
    "application/xml",
    "image/svg+xml",
    "application/xml-dtd",
    "application/x-yaml",
    "application/javascript",
    "application/x-www-form-urlencoded",
    "application/graphql",
    "multipart/mixed",
    "multipart/form-data",
    "message/http",
    "message/rfc822",
  ])("%s is text", (type) => {
    expect(isTextType(type)).toBe(true);
    expect(maskStyleFor(type, true)).toBe("text");
  });

  it.each([
    "image/png",
    "application/pdf",
    "application/zip",
    "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
    "audio/mpeg",
    "application/octet-stream",
    "",
    "nonsense",
  ])("%j is not text", (type) => {
    expect(isTextType(type)).toBe(false);
  });

  it("an untyped body is sniffed when the caller can wait for its first bytes, else binary; a typed binary never", () => {
    expect(maskStyleFor("application/octet-stream", true)).toBe("sniff");
    expect(maskStyleFor("", true)).toBe("sniff");
    expect(maskStyleFor("application/octet-stream", false)).toBe("binary");
    expect(maskStyleFor("image/png", true)).toBe("binary");
  });

  it("mediaType drops parameters and case", () => {
    expect(mediaType("Application/X-NDJSON; charset=utf-8")).toBe("application/x-ndjson");
    expect(mediaType(null)).toBe("");
  });

  it("looksLikeText: UTF-8 with line breaks and tabs is text, even cut inside a character; NUL, controls and bad UTF-8 are not", () => {
    expect(looksLikeText(utf8.encode('{"a":\t"b"}\r\n'))).toBe(true);
    expect(looksLikeText(utf8.encode("clé").subarray(0, 3))).toBe(true);
    expect(looksLikeText(new Uint8Array())).toBe(true);
    expect(looksLikeText(new Uint8Array([0x61, 0]))).toBe(false);
    expect(looksLikeText(new Uint8Array([0x61, 0x1a]))).toBe(false);
    expect(looksLikeText(new Uint8Array([0x61, 0x7f]))).toBe(false);
    expect(looksLikeText(new Uint8Array([0x61, 0xff, 0x61]))).toBe(false);
    expect(looksLikeText(utf8.encode("%PDF-1.7\n%\u00e2\u00e3"))).toBe(true);
  });
});
