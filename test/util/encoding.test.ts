import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { fromBase64Url, randomBytes, randomId, sha256Hex, timingSafeEqual, toBase64, toBase64Url } from "../../src/util/encoding.js";

async function subtleHex(input: string): Promise<string> {
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(input)));
  return [...digest].map((b) => b.toString(16).padStart(2, "0")).join("");
}

/** Random bytes of `length`, and lengths around toBase64's 32 KiB chunks. */
const randomOf = (length: number) => Uint8Array.from({ length }, () => Math.floor(Math.random() * 256));
const LONG = [0x8000 - 1, 0x8000, 0x8000 + 1, 0x8000 * 2 + 2, 0x8000 * 3];

describe("base64", () => {
  it("encodes bytes as Node's Buffer does, standard and URL-safe without padding", () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 70 }), (bytes) => {
        expect(toBase64(bytes)).toBe(Buffer.from(bytes).toString("base64"));
        expect(toBase64Url(bytes)).toBe(Buffer.from(bytes).toString("base64url"));
      }),
    );
  });

  it("encodes and decodes inputs longer than one 32 KiB chunk", () => {
    for (const length of LONG) {
      const bytes = randomOf(length);
      expect(toBase64(bytes)).toBe(Buffer.from(bytes).toString("base64"));
      expect(toBase64Url(bytes)).toBe(Buffer.from(bytes).toString("base64url"));
      expect(fromBase64Url(toBase64Url(bytes))).toEqual(bytes);
    }
  });

  it("encodes a string as its UTF-8 bytes (the Basic credentials and cursor payloads)", () => {
    fc.assert(
      fc.property(fc.string({ unit: "grapheme", maxLength: 80 }), (text) => {
        expect(toBase64(text)).toBe(Buffer.from(text, "utf8").toString("base64"));
        expect(toBase64Url(text)).toBe(Buffer.from(text, "utf8").toString("base64url"));
      }),
    );
    expect(toBase64("alice:pässword")).toBe("YWxpY2U6cMOkc3N3b3Jk");
  });

  it("decodes what it encodes, and standard padded base64 too", () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 70 }), (bytes) => {
        expect(fromBase64Url(toBase64Url(bytes))).toEqual(new Uint8Array(bytes));
        expect(fromBase64Url(Buffer.from(bytes).toString("base64"))).toEqual(new Uint8Array(bytes));
      }),
    );
  });

  it("throws on input that is not base64", () => {
    for (const input of ["A", "AAAAA", "AA!A", "AA=A", "AAA=="]) expect(() => fromBase64Url(input), input).toThrow();
  });
});

describe("random values", () => {
  it("randomBytes gives the length asked for, and differs each time", () => {
    expect(randomBytes(0)).toHaveLength(0);
    expect(randomBytes(32)).toHaveLength(32);
    expect(toBase64(randomBytes(16))).not.toBe(toBase64(randomBytes(16)));
  });

  it("randomId is the prefix then the random bytes in base64url", () => {
    const id = randomId("key_");
    expect(id).toMatch(/^key_[A-Za-z0-9_-]{22}$/);
    expect(fromBase64Url(id.slice(4))).toHaveLength(16);
    expect(randomId("stg_", 32)).toMatch(/^stg_[A-Za-z0-9_-]{43}$/);
    expect(randomId("key_")).not.toBe(id);
  });
});

describe("sha256Hex", () => {
  it.each(["", "abc", `pak_${"x".repeat(43)}`, "üñï©ødé ✓ 𝄞", "a\u0000b"])("matches Web Crypto's digest for %j", async (input) => {
    expect(await sha256Hex(input)).toBe(await subtleHex(input));
  });

  it("gives the known digest of 'abc'", async () => {
    expect(await sha256Hex("abc")).toBe("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  });
});

describe("timingSafeEqual", () => {
  it("compares by value, including lengths", () => {
    expect(timingSafeEqual("abc", "abc")).toBe(true);
    expect(timingSafeEqual("abc", "abd")).toBe(false);
    expect(timingSafeEqual("abc", "abcd")).toBe(false);
    expect(timingSafeEqual("abcd", "abc")).toBe(false);
    expect(timingSafeEqual("", "")).toBe(true);
    expect(timingSafeEqual("", "a")).toBe(false);
    expect(timingSafeEqual("é", "e\u0301")).toBe(false);
    // Two different lone surrogates: both would encode to U+FFFD, so comparing encoded bytes would call them equal.
    expect(timingSafeEqual("\ud800", "\udc00")).toBe(false);
  });

  it("agrees with === on any two strings, a prefix of the other among them", () => {
    fc.assert(
      fc.property(fc.string({ unit: "grapheme" }), fc.string({ unit: "grapheme" }), (a, b) => {
        expect(timingSafeEqual(a, b)).toBe(a === b);
        expect(timingSafeEqual(a, a + b)).toBe(b === "");
        expect(timingSafeEqual(a + b, a)).toBe(b === "");
      }),
    );
  });
});
