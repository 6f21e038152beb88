/**
 * The signature check of uploads: the first bytes real files of each type start with pass, the
 * first bytes of other formats are a 415, whatever the chunking, and types without a signature
 * pass untouched.
 */
import { describe, expect, it } from "vitest";
import { SIGNATURE_WINDOW, signatureGate } from "../src/uploads/signatures.js";

const ascii = (s: string) => Uint8Array.from(s, (c) => c.charCodeAt(0));
const bytes = (...parts: Array<number[] | string>) => {
  const all = parts.flatMap((p) => (typeof p === "string" ? [...ascii(p)] : p));
  return Uint8Array.from(all);
};

/** The first bytes of real files, by the type they are sent as. */
const STARTS: Record<string, Uint8Array> = {
  "image/png": bytes([0x89], "PNG\r\n\x1a\n", [0, 0, 0, 13], "IHDR"),
  "image/jpeg": bytes([0xff, 0xd8, 0xff, 0xe0, 0, 16], "JFIF\0"),
  "image/gif": bytes("GIF89a", [1, 0, 1, 0]),
  "image/webp": bytes("RIFF", [0x24, 0, 0, 0], "WEBPVP8 "),
  "image/tiff": bytes("II*\0", [8, 0, 0, 0]),
  "image/bmp": bytes("BM", [0x36, 0, 0, 0]),
  "image/avif": bytes([0, 0, 0, 0x1c], "ftypavif"),
  "image/heic": bytes([0, 0, 0, 0x18], "ftypheic"),
  "video/mp4": bytes([0, 0, 0, 0x20], "ftypisom", [0, 0, 2, 0]),
  "video/quicktime": bytes([0, 0, 0, 0x14], "ftypqt  "),
  "audio/mp4": bytes([0, 0, 0, 0x20], "ftypM4A "),
  "video/webm": bytes([0x1a, 0x45, 0xdf, 0xa3, 0x9f, 0x42, 0x86, 0x81]),
  "audio/mpeg": bytes("ID3", [4, 0, 0]),
  "audio/ogg": bytes("OggS", [0, 2]),
  "audio/wav": bytes("RIFF", [0x24, 0x08, 0, 0], "WAVEfmt "),
  "audio/flac": bytes("fLaC", [0, 0, 0, 0x22]),
  "application/pdf": bytes("%PDF-1.7\n%\xe2\xe3\xcf\xd3\n"),
  "application/zip": bytes("PK", [3, 4, 20, 0]),
  "application/vnd.openxmlformats-officedocument.wordprocessingml.document": bytes("PK", [3, 4, 20, 0, 6, 0]),
  "application/gzip": bytes([0x1f, 0x8b, 8, 0]),
  "application/msword": bytes([0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1]),
};

/** Runs a whole file through a gate in chunks of `chunkSize`; returns what passed, or throws. */
function pass(type: string, file: Uint8Array, chunkSize = 1 << 20): Uint8Array {
  const gate = signatureGate(type);
  if (!gate) return file;
  const out: number[] = [];
  for (let i = 0; i < file.length; i += chunkSize) {
    const passed = gate.push(file.subarray(i, i + chunkSize));
    if (passed) out.push(...passed);
  }
  const rest = gate.push(null);
  if (rest) out.push(...rest);
  return Uint8Array.from(out);
}

const withBody = (start: Uint8Array, size = 3000) => {
  const file = new Uint8Array(size);
  file.set(start);
  for (let i = start.length; i < size; i++) file[i] = (i * 7) & 255;
  return file;
};

describe("signatureGate", () => {
  it.each(Object.entries(STARTS))("passes a real %s file whole, in any chunking", (type, start) => {
    for (const size of [start.length, 500, SIGNATURE_WINDOW, 5000]) {
      const file = withBody(start, Math.max(size, start.length));
      for (const chunkSize of [1, 3, 1000, 1 << 20]) expect(pass(type, file, chunkSize)).toEqual(file);
    }
  });

  it.each(Object.keys(STARTS))("refuses %s when the bytes are another format's", (type) => {
    const impostors = [bytes("MZ\x90\0\x03\0\0\0"), bytes("<!DOCTYPE html><script>"), bytes("#!/bin/sh\nrm -rf /\n")];
    for (const impostor of impostors) {
      expect(() => pass(type, withBody(impostor))).toThrow(
        expect.objectContaining({ code: "unsupported_media_type", message: expect.stringContaining(type.split(";")[0]!) }),
      );
    }
  });

  it("refuses an empty file of a type that has a signature, and one cut inside it", () => {
    expect(() => pass("image/png", new Uint8Array(0))).toThrow(/first bytes/);
    expect(() => pass("image/png", STARTS["image/png"]!.subarray(0, 5))).toThrow(/first bytes/);
  });

  it("finds %PDF- after leading junk within the first 1024 bytes, not later", () => {
    const junk = (n: number) => withBody(bytes(" ".repeat(n), "%PDF-1.4\n"), 4000);
    expect(pass("application/pdf", junk(500))).toEqual(junk(500));
    expect(() => pass("application/pdf", junk(1100))).toThrow(/application\/pdf/);
  });

  it("knows other names of the same types, and ignores case and parameters", () => {
    for (const type of ["image/jpg", "IMAGE/JPEG", "image/jpeg; q=1", "image/pjpeg"])
      expect(pass(type, withBody(STARTS["image/jpeg"]!))).toHaveLength(3000);
    expect(pass("audio/x-wav", withBody(STARTS["audio/wav"]!))).toHaveLength(3000);
    expect(() => pass("application/x-zip-compressed", withBody(STARTS["image/png"]!))).toThrow(/application\/x-zip-compressed/);
    // An MPEG audio frame without an ID3 tag: 11 sync bits.
    expect(pass("audio/mpeg", withBody(bytes([0xff, 0xfb, 0x90, 0x64])))).toHaveLength(3000);
  });

  it("has no gate for types without a signature: text, JSON, SVG, octet-stream", () => {
    for (const type of ["text/plain", "text/csv; charset=utf-8", "application/json", "image/svg+xml", "application/octet-stream"]) {
      expect(signatureGate(type)).toBeNull();
    }
  });

  it("holds back at most the first window, then passes chunks as they come", () => {
    const gate = signatureGate("image/png")!;
    expect(gate.push(STARTS["image/png"]!)).toBeNull();
    const held = gate.push(new Uint8Array(SIGNATURE_WINDOW));
    expect(held!.byteLength).toBe(STARTS["image/png"]!.byteLength + SIGNATURE_WINDOW);
    const later = new Uint8Array(10);
    expect(gate.push(later)).toBe(later); // no copy once checked
    expect(gate.push(null)).toBeNull();
  });
});
