/**
 * Edges of the byte scanner (`src/core/redact-bytes.ts`) and of the text/binary decision
 * (`src/core/body-kind.ts`) that the property tests in test/core/redact-bytes.test.ts do not reach:
 * forms that contain each other, a short form left in the kept tail, the sniff threshold, the
 * mask chosen by each path, and when a stream passes bytes on before it ends.
 */
import { describe, expect, it } from "vitest";
import { isTextType, isUntyped, looksLikeText, mediaType, SNIFF_BYTES } from "../../src/core/body-kind.js";
import { redactBytes, redactStream, type ScanReport } from "../../src/core/redact-bytes.js";

const utf8 = new TextEncoder();
const text = new TextDecoder();

/** A stream fed by hand: the test decides when each chunk arrives and when the body ends. */
function manual(): { body: ReadableStream<Uint8Array>; send: (s: Uint8Array | string) => void; close: () => void } {
  let ctl!: ReadableStreamDefaultController<Uint8Array>;
  const body = new ReadableStream<Uint8Array>({ start: (c) => void (ctl = c) });
  return { body, send: (s) => ctl.enqueue(typeof s === "string" ? utf8.encode(s) : s), close: () => ctl.close() };
}

/** The chunks of a stream fed these chunks, and the report at its end. */
async function run(chunks: (Uint8Array | string)[], forms: string[], style: "text" | "binary" | "sniff") {
  let report: ScanReport | undefined;
  const out = redactStream(
    new ReadableStream<Uint8Array>({
      start(c) {
        for (const chunk of chunks) c.enqueue(typeof chunk === "string" ? utf8.encode(chunk) : chunk);
        c.close();
      },
    }),
    forms,
    style,
    (r) => void (report = r),
  );
  const parts: Uint8Array[] = [];
  for await (const part of out) parts.push(part);
  const all = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let o = 0;
  for (const p of parts) {
    all.set(p, o);
    o += p.length;
  }
  return { parts, bytes: all, text: text.decode(all), report };
}

/** `n` bytes that are not text (NUL among letters). */
function binary(n: number): Uint8Array {
  return new Uint8Array(n).map((_, i) => (i % 7 === 0 ? 0 : 0x61));
}

function join(...parts: (Uint8Array | string)[]): Uint8Array {
  const bytes = parts.map((p) => (typeof p === "string" ? utf8.encode(p) : p));
  const out = new Uint8Array(bytes.reduce((n, b) => n + b.length, 0));
  let o = 0;
  for (const b of bytes) {
    out.set(b, o);
    o += b.length;
  }
  return out;
}

describe("forms of one secret", () => {
  it("masks the longer of two forms that start at the same byte, whatever order they are given in", async () => {
    const forms = ["abc", "abcdefgh", "abcde"];
    const body = "xxabcdefghyy abcdeZ abcQ";
    expect(text.decode(redactBytes(utf8.encode(body), forms, "text").bytes)).toBe("xx[redacted]yy [redacted]Z [redacted]Q");
    expect((await run(["xxabcd", "efghyy abcdeZ abcQ"], forms, "text")).text).toBe("xx[redacted]yy [redacted]Z [redacted]Q");
  });

  it("holds back as many bytes as the longest form needs, even when the shorter is given first", async () => {
    // Kept tail = longest − 1 = 7 bytes: the long secret cut after its third byte is still found whole.
    const r = await run(["0123456789abc", "defghyy"], ["abc", "abcdefgh"], "text");
    expect(r.text).toBe("0123456789[redacted]yy");
    expect(r.report).toEqual({ style: "text", masked: 1 });
  });

  it("does not mask a short form that starts in the kept tail before the longer one can be seen", async () => {
    // "abc" begins exactly where the kept tail begins: it may be the head of "abcdefgh".
    const r = await run(["0123456789abcdefg", "hyy"], ["abc", "abcdefgh"], "binary");
    expect(r.text).toBe("0123456789********yy");
    expect(r.report?.masked).toBe(1);
  });

  it("tells a form with an unpaired surrogate from the form without it", () => {
    // "tok\uD800" is spelled "tok" + U+FFFD in UTF-8: a form of its own, longer than "tok".
    const body = utf8.encode("a tok\uFFFD b tok c");
    expect(text.decode(redactBytes(body, ["tok\uD800", "tok"], "text").bytes)).toBe("a [redacted] b [redacted] c");
    expect(text.decode(redactBytes(body, ["tok", "tok\uD800"], "text").bytes)).toBe("a [redacted] b [redacted] c");
  });

  it("masks adjacent and repeated secrets one by one", () => {
    const r = redactBytes(utf8.encode("s3cr3ts3cr3t|s3cr3t"), ["s3cr3t"], "binary");
    expect(text.decode(r.bytes)).toBe("************|******");
    expect(r.masked).toBe(3);
  });

  it("ignores empty forms: a stream with nothing to look for is passed on as it is", async () => {
    const body = new ReadableStream<Uint8Array>();
    expect(redactStream(body, [""], "text")).toBe(body);
    const bytes = utf8.encode("xx secret yy");
    const r = redactBytes(bytes, ["", "secret"], "text");
    expect(text.decode(r.bytes)).toBe("xx [redacted] yy");
    expect((await run(["xx sec", "", "ret yy"], ["", "secret"], "text")).text).toBe("xx [redacted] yy");
  });
});

describe("masks", () => {
  it("gives a fresh mask each time: changing one answer does not change the next", () => {
    const first = redactBytes(utf8.encode("secret"), ["secret"], "text");
    expect(text.decode(first.bytes)).toBe("[redacted]");
    first.bytes.fill(0x21);
    expect(text.decode(redactBytes(utf8.encode("secret"), ["secret"], "text").bytes)).toBe("[redacted]");
  });

  it("reports the style it was given when the body holds no secret, whatever its bytes", () => {
    const bytes = binary(40);
    const r = redactBytes(bytes, ["secret"], "text");
    expect(r).toEqual({ bytes, style: "text", masked: 0 });
    expect(redactBytes(utf8.encode("plain"), ["secret"], "binary").style).toBe("binary");
  });

  it("sniffs a clean body by its first bytes", () => {
    expect(redactBytes(binary(40), ["secret"], "sniff").style).toBe("binary");
    expect(redactBytes(utf8.encode("plain words"), ["secret"], "sniff").style).toBe("text");
  });
});

describe("sniffing", () => {
  it("decides text on a long text body and masks every secret as text, whole or streamed", async () => {
    const body = `${"word ".repeat(200)}secret ${"more ".repeat(200)}secret end`;
    const expected = body.replaceAll("secret", "[redacted]");
    const whole = redactBytes(utf8.encode(body), ["secret"], "sniff");
    expect({ text: text.decode(whole.bytes), style: whole.style, masked: whole.masked }).toEqual({
      text: expected,
      style: "text",
      masked: 2,
    });
    const streamed = await run([body.slice(0, 300), body.slice(300, 1200), body.slice(1200)], ["secret"], "sniff");
    expect(streamed.text).toBe(expected);
    expect(streamed.report).toEqual({ style: "text", masked: 2 });
  });

  it("decides on the first SNIFF_BYTES bytes, not on the first chunk", async () => {
    // The first chunk is text; the NUL at byte 200 is still inside the sniffed head.
    const body = join("a".repeat(100), "b".repeat(100), new Uint8Array([0]), "secret", "c".repeat(400));
    const r = await run([body.subarray(0, 100), body.subarray(100)], ["secret"], "sniff");
    expect(r.report).toEqual({ style: "binary", masked: 1 });
    expect(text.decode(r.bytes.subarray(201, 207))).toBe("******");
  });

  it("keeps the style chosen at the head for the rest of the body", async () => {
    const body = join(binary(SNIFF_BYTES), "x".repeat(200), "short1");
    const forms = ["short1", "a-much-longer-secret-value"];
    const whole = redactBytes(body, forms, "sniff");
    expect(whole.style).toBe("binary");
    expect(text.decode(whole.bytes.subarray(-6))).toBe("******");
    const r = await run([body.subarray(0, 600), "y".repeat(600), "secret short1"], [...forms], "sniff");
    expect(r.report).toEqual({ style: "binary", masked: 1 });
    expect(r.text.endsWith("secret ******")).toBe(true);
  });

  it("passes bytes on as soon as SNIFF_BYTES have come, and every chunk after, before the body ends", async () => {
    const { body, send, close } = manual();
    const reader = redactStream(body, ["secret-value"], "sniff").getReader();
    send("a".repeat(SNIFF_BYTES - 1));
    send("b"); // exactly SNIFF_BYTES held now
    const first = await reader.read();
    expect(first.value?.length).toBe(SNIFF_BYTES - ("secret-value".length - 1));
    send("c".repeat(20));
    const second = await reader.read();
    expect(text.decode(second.value)).toBe(`${"a".repeat(0)}${"b".padStart(11, "a")}${"c".repeat(9)}`.slice(-20));
    close();
    const rest = await reader.read();
    expect(text.decode(rest.value)).toBe("c".repeat(11));
    expect((await reader.read()).done).toBe(true);
  });

  it("passes on empty chunks without harm", async () => {
    const r = await run(["", "ab secret", "", "", " cd", ""], ["secret"], "sniff");
    expect(r.text).toBe("ab [redacted] cd");
    expect(r.parts.every((p) => p.length > 0)).toBe(true);
  });

  it("holds nothing for an empty chunk when the style is known", async () => {
    const r = await run(["", "ab secret", "", " cd"], ["secret"], "text");
    expect(r.text).toBe("ab [redacted] cd");
  });
});

describe("body kinds", () => {
  it("reads the media type of a Content-Type without case, space or parameters", () => {
    expect(mediaType("  Application/JSON ; charset=utf-8")).toBe("application/json");
    expect(mediaType(null)).toBe("");
  });

  it("needs a top-level type before the slash", () => {
    expect(isTextType("/json")).toBe(false);
    expect(isTextType("json")).toBe(false);
  });

  it.each([
    "application/jsonlines",
    "application/toml",
    "application/csv",
    "application/ecmascript",
    "application/sql",
    "application/x-ndjson",
  ])("counts %s as text", (type) => expect(isTextType(type)).toBe(true));

  it.each(["", "application/octet-stream", "binary/octet-stream", "application/binary", "application/unknown"])(
    "counts %j as untyped",
    (type) => expect(isUntyped(type)).toBe(true),
  );

  it("takes space, tab, line breaks, form feed and escape for text, and other controls for binary", () => {
    for (const c of [" ", "\t", "\n", "\f", "\r", "\x1b"]) expect(looksLikeText(utf8.encode(`a${c}b`)), JSON.stringify(c)).toBe(true);
    for (const c of [0x00, 0x08, 0x0b, 0x0e, 0x1f, 0x7f]) expect(looksLikeText(new Uint8Array([0x61, c, 0x62])), String(c)).toBe(false);
  });
});
