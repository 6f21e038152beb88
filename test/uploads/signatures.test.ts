/**
 * The signature check of uploads: the first bytes real files of each type start with pass, the
 * first bytes of other formats are a 415, whatever the chunking, and types without a signature
 * pass untouched.
 */
import { describe, expect, it } from "vitest";
import { SIGNATURE_WINDOW, signatureGate } from "../../src/uploads/signatures.js";

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
  "application/vnd.ms-excel": bytes([0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1, 0, 0]),
  "application/vnd.ms-powerpoint": bytes([0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1, 0, 0, 0]),
  "image/x-icon": bytes([0, 0, 1, 0, 1, 0, 16, 16]),
  "image/heif": bytes([0, 0, 0, 0x18], "ftypmif1"),
  "video/3gpp": bytes([0, 0, 0, 0x14], "ftyp3gp5"),
  "video/x-matroska": bytes([0x1a, 0x45, 0xdf, 0xa3, 0xa3, 0x42, 0x86, 0x81]),
  "audio/webm": bytes([0x1a, 0x45, 0xdf, 0xa3, 0x9f, 0x42, 0x86, 0x81, 1]),
  "video/x-msvideo": bytes("RIFF", [0x10, 0x20, 0, 0], "AVI LIST"),
  "video/ogg": bytes("OggS", [0, 2, 0, 0]),
  "application/epub+zip": bytes("PK", [3, 4, 10, 0], [0, 0], "mimetypeapplication/epub+zip"),
  "application/vnd.oasis.opendocument.text": bytes("PK", [3, 4, 20, 0, 0, 8]),
  "application/x-bzip2": bytes("BZh91AY&SY"),
  "application/x-7z-compressed": bytes([0x37, 0x7a, 0xbc, 0xaf, 0x27, 0x1c, 0, 4]),
  "application/vnd.rar": bytes("Rar!\x1a\x07\x01\x00"),
  "application/x-tar": bytes("notes.txt", new Array(100 - 9).fill(0), "0000644\0", new Array(257 - 108).fill(0), "ustar\x0000"),
  "application/wasm": bytes("\0asm", [1, 0, 0, 0]),
};

/** Other first bytes real files of a type start with, beyond the one in STARTS. */
const OTHER_STARTS: Array<[string, Uint8Array]> = [
  ["image/gif", bytes("GIF87a", [1, 0, 1, 0])],
  ["image/tiff", bytes("MM\0*", [0, 0, 0, 8])],
  ["application/zip", bytes("PK", [5, 6], new Array(18).fill(0))], // an empty archive
  ["application/zip", bytes("PK", [7, 8], "PK", [3, 4])], // a spanned archive
  ...["moov", "mdat", "free", "skip", "wide", "pnot"].map((box): [string, Uint8Array] => ["video/quicktime", bytes([0, 0, 0, 8], box)]),
  ["audio/mpeg", bytes([0xff, 0xfb, 0x90, 0x64])], // an MPEG frame without an ID3 tag
  ["audio/mpeg", bytes([0xff, 0xe3])],
];

/** The other names of types, with the type whose signature they take. */
const ALIASES: Array<[string, string]> = [
  ["image/jpg", "image/jpeg"],
  ["image/pjpeg", "image/jpeg"],
  ["image/vnd.microsoft.icon", "image/x-icon"],
  ["image/x-png", "image/png"],
  ["image/x-ms-bmp", "image/bmp"],
  ["audio/x-wav", "audio/wav"],
  ["audio/wave", "audio/wav"],
  ["audio/vnd.wave", "audio/wav"],
  ["audio/x-flac", "audio/flac"],
  ["audio/mp3", "audio/mpeg"],
  ["audio/x-m4a", "audio/mp4"],
  ["audio/m4a", "audio/mp4"],
  ["video/avi", "video/x-msvideo"],
  ["application/x-zip-compressed", "application/zip"],
  ["application/x-gzip", "application/gzip"],
  ["application/x-rar-compressed", "application/vnd.rar"],
  ["application/ogg", "audio/ogg"],
  ["application/vnd.openxmlformats-officedocument.spreadsheetml.sheet", "application/zip"],
  ["application/vnd.oasis.opendocument.spreadsheet", "application/zip"],
];

/** A file of `type` whose first byte is right and the rest is not: a signature is all of its bytes. */
function nearMiss(start: Uint8Array): Uint8Array {
  const file = withBody(start);
  for (let i = 1; i < start.length; i++) file[i] = start[i]! ^ 0x5a;
  return file;
}

const refusedAs = (type: string) =>
  expect.objectContaining({
    code: "unsupported_media_type",
    message: expect.stringContaining(`not those of ${type.split(";")[0]!.trim().toLowerCase()};`),
  });

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

  it("says in its refusal how to send the file instead", () => {
    expect(() => pass("image/png", withBody(bytes("MZ\x90\0\x03\0\0\0")))).toThrow(
      "The file's first bytes are not those of image/png; " +
        'send it with its real type (e.g. curl -F "file=@name;type=<type>"), or as application/octet-stream.',
    );
  });

  it.each(Object.keys(STARTS))("refuses %s when the bytes are another format's", (type) => {
    const impostors = [bytes("MZ\x90\0\x03\0\0\0"), bytes("<!DOCTYPE html><script>"), bytes("#!/bin/sh\nrm -rf /\n")];
    for (const impostor of impostors) {
      expect(() => pass(type, withBody(impostor))).toThrow(
        expect.objectContaining({ code: "unsupported_media_type", message: expect.stringContaining(type.split(";")[0]!) }),
      );
    }
  });

  it.each(OTHER_STARTS)("passes %s starting with its other signatures too", (type, start) => {
    expect(pass(type, withBody(start))).toEqual(withBody(start));
    expect(pass(type, start, 1)).toEqual(start);
  });

  it.each(Object.entries(STARTS))(
    "refuses %s when only the first bytes of its signature are right, or another format's are",
    (type, start) => {
      expect(() => pass(type, nearMiss(start))).toThrow(refusedAs(type));
      for (const [other, otherStart] of Object.entries(STARTS)) {
        if (sameFamily(type, other)) continue;
        expect(() => pass(type, withBody(otherStart)), `${other} sent as ${type}`).toThrow(refusedAs(type));
      }
    },
  );

  it("refuses a tar file whose ustar magic is missing or misplaced", () => {
    const tar = STARTS["application/x-tar"]!;
    const shifted = new Uint8Array(tar.length + 1);
    shifted.set(tar, 1);
    expect(() => pass("application/x-tar", withBody(shifted))).toThrow(refusedAs("application/x-tar"));
    const broken = withBody(tar);
    broken[260] = 0x41;
    expect(() => pass("application/x-tar", broken)).toThrow(refusedAs("application/x-tar"));
  });

  it("tells RIFF files apart by their form, and needs the RIFF header as well as the form", () => {
    const forms: Array<[string, string]> = [
      ["image/webp", "WEBP"],
      ["audio/wav", "WAVE"],
      ["video/x-msvideo", "AVI "],
    ];
    for (const [type, form] of forms) {
      expect(pass(type, withBody(bytes("RIFF", [0, 1, 0, 0], form)))).toHaveLength(3000);
      expect(() => pass(type, withBody(bytes("RIFX", [0, 1, 0, 0], form))), type).toThrow(refusedAs(type));
      expect(() => pass(type, withBody(bytes("FORM", [0, 1, 0, 0], form))), type).toThrow(refusedAs(type));
      for (const [other, otherForm] of forms) {
        if (other !== type) expect(() => pass(type, withBody(bytes("RIFF", [0, 1, 0, 0], otherForm)))).toThrow(refusedAs(type));
      }
    }
  });

  it("refuses an MPEG frame without its sync bits, and a lone 0xff", () => {
    for (const start of [bytes([0xff, 0x1b, 0x90, 0x64]), bytes([0xfe, 0xfb, 0x90, 0x64]), bytes([0x7f, 0xff])]) {
      expect(() => pass("audio/mpeg", withBody(start))).toThrow(refusedAs("audio/mpeg"));
    }
    expect(() => pass("audio/mpeg", bytes([0xff]))).toThrow(refusedAs("audio/mpeg"));
    expect(pass("audio/mpeg", bytes([0xff, 0xfb]))).toEqual(bytes([0xff, 0xfb]));
  });

  it.each(ALIASES)("checks %s as %s: its files pass and impostors are refused", (alias, type) => {
    const start = STARTS[type]!;
    expect(pass(alias, withBody(start))).toEqual(withBody(start));
    expect(() => pass(alias, withBody(bytes("MZ\x90\0\x03\0\0\0")))).toThrow(refusedAs(alias));
    expect(() => pass(alias, nearMiss(start))).toThrow(refusedAs(alias));
  });

  it("reads the declared type whatever its case and the spaces around it", () => {
    const impostor = withBody(bytes("<!DOCTYPE html>"));
    for (const type of [
      "IMAGE/PNG",
      "Image/Png; charset=binary",
      " image/png",
      "image/png ;x=1",
      "image/png\t; q=1",
      "Application/Vnd.Oasis.Opendocument.Text",
    ]) {
      expect(() => pass(type, impostor), type).toThrow(refusedAs(type));
    }
    expect(pass(" IMAGE/PNG ; x=1", withBody(STARTS["image/png"]!))).toHaveLength(3000);
  });

  it("refuses an empty file of a type that has a signature, and one cut inside it", () => {
    expect(() => pass("image/png", new Uint8Array(0))).toThrow(/first bytes/);
    expect(() => pass("image/png", STARTS["image/png"]!.subarray(0, 5))).toThrow(/first bytes/);
  });

  it("finds %PDF- after leading junk within the first 1024 bytes, not later", () => {
    const junk = (n: number) => withBody(bytes(" ".repeat(n), "%PDF-1.4\n"), 4000);
    expect(pass("application/pdf", junk(500))).toEqual(junk(500));
    expect(() => pass("application/pdf", junk(1100))).toThrow(/application\/pdf/);
    // The last place it may start: its last byte is the 1024th.
    expect(pass("application/pdf", junk(1019))).toEqual(junk(1019));
    expect(() => pass("application/pdf", junk(1020))).toThrow(/application\/pdf/);
    // A file that is nothing but junk and the marker.
    const short = bytes(" ".repeat(30), "%PDF-");
    expect(pass("application/pdf", short, 7)).toEqual(short);
    expect(() => pass("application/pdf", short.subarray(0, short.length - 1))).toThrow(/application\/pdf/);
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

  it("passes the first window on as soon as it is complete, without waiting for more", () => {
    const gate = signatureGate("image/png")!;
    const file = withBody(STARTS["image/png"]!, SIGNATURE_WINDOW);
    expect(gate.push(file)).toEqual(file);
    const split = signatureGate("image/png")!;
    expect(split.push(file.subarray(0, 100))).toBeNull();
    expect(split.push(file.subarray(100))).toEqual(file);
  });
});

/** Types whose files may legitimately start alike (ISO boxes, EBML, OLE2, zip, RIFF forms are told apart by form). */
function sameFamily(a: string, b: string): boolean {
  const families = [
    ["image/avif", "image/heic", "image/heif", "video/mp4", "video/quicktime", "video/3gpp", "audio/mp4"],
    ["video/webm", "audio/webm", "video/x-matroska"],
    ["application/msword", "application/vnd.ms-excel", "application/vnd.ms-powerpoint"],
    [
      "application/zip",
      "application/epub+zip",
      "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
      "application/vnd.oasis.opendocument.text",
    ],
    ["video/ogg", "audio/ogg"],
  ];
  return a === b || families.some((family) => family.includes(a) && family.includes(b));
}
