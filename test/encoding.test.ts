import { describe, expect, it } from "vitest";
import { sha256Hex, timingSafeEqual } from "../src/util/encoding.js";

async function subtleHex(input: string): Promise<string> {
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(input)));
  return [...digest].map((b) => b.toString(16).padStart(2, "0")).join("");
}

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
    expect(timingSafeEqual("", "")).toBe(true);
  });
});
