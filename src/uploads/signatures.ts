import { ToolsError } from "../core/errors.js";

/** One way a format's first bytes can look, as a test of those bytes. */
type Signature = (head: Uint8Array) => boolean;

const codes = (bytes: number[] | string) => (typeof bytes === "string" ? Array.from(bytes, (c) => c.charCodeAt(0)) : bytes);

/** `bytes` at `offset`. (Past the end of `head` every byte reads as undefined, which matches nothing.) */
function at(offset: number, bytes: number[] | string): Signature {
  const expected = codes(bytes);
  return (head) => expected.every((b, i) => head[offset + i] === b);
}

/** `bytes` anywhere in the first `window` bytes (a PDF may start with junk before `%PDF-`). */
function within(window: number, bytes: string): Signature {
  const expected = codes(bytes);
  return (head) => {
    for (let offset = 0; offset + expected.length <= Math.min(head.byteLength, window); offset++)
      if (at(offset, expected)(head)) return true;
    return false;
  };
}

/** ISO base media files (MP4, MOV, M4A, HEIC, AVIF, 3GP) start with a box; these are the usual first ones. */
const ISO_BOXES = ["ftyp", "moov", "mdat", "free", "skip", "wide", "pnot"].map((box) => at(4, box));
const ZIP = [at(0, "PK\x03\x04"), at(0, "PK\x05\x06"), at(0, "PK\x07\x08")];
const OLE2 = [at(0, [0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1])];
const EBML = [at(0, [0x1a, 0x45, 0xdf, 0xa3])];
/** A RIFF container of the given form (WEBP, WAVE, AVI). */
const riff =
  (form: string): Signature =>
  (head) =>
    at(0, "RIFF")(head) && at(8, form)(head);
/** An ID3 tag, or an MPEG audio frame: 11 set sync bits. */
const MPEG_AUDIO = [at(0, "ID3"), (head: Uint8Array) => head[0] === 0xff && (head[1]! & 0xe0) === 0xe0];

/**
 * Media types whose files begin with a known signature, by essence (lower case, no parameters).
 * Types not listed here (text, JSON, SVG, octet-stream, ...) have no signature and are not checked.
 * The table errs towards accepting: every spelling a real file of the type may start with is listed.
 */
const SIGNATURES: Record<string, Signature[]> = {
  "image/png": [at(0, [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])],
  "image/jpeg": [at(0, [0xff, 0xd8, 0xff])],
  "image/gif": [at(0, "GIF87a"), at(0, "GIF89a")],
  "image/webp": [riff("WEBP")],
  "image/bmp": [at(0, "BM")],
  "image/tiff": [at(0, "II*\0"), at(0, "MM\0*")],
  "image/x-icon": [at(0, [0, 0, 1, 0])],
  "image/avif": ISO_BOXES,
  "image/heic": ISO_BOXES,
  "image/heif": ISO_BOXES,
  "video/mp4": ISO_BOXES,
  "video/quicktime": ISO_BOXES,
  "video/3gpp": ISO_BOXES,
  "audio/mp4": ISO_BOXES,
  "video/webm": EBML,
  "audio/webm": EBML,
  "video/x-matroska": EBML,
  "video/x-msvideo": [riff("AVI ")],
  "video/ogg": [at(0, "OggS")],
  "audio/ogg": [at(0, "OggS")],
  "audio/wav": [riff("WAVE")],
  "audio/flac": [at(0, "fLaC")],
  "audio/mpeg": MPEG_AUDIO,
  "application/pdf": [within(1024, "%PDF-")],
  "application/zip": ZIP,
  "application/epub+zip": ZIP,
  "application/gzip": [at(0, [0x1f, 0x8b])],
  "application/x-bzip2": [at(0, "BZh")],
  "application/x-7z-compressed": [at(0, [0x37, 0x7a, 0xbc, 0xaf, 0x27, 0x1c])],
  "application/vnd.rar": [at(0, "Rar!\x1a\x07")],
  "application/x-tar": [at(257, "ustar")],
  "application/wasm": [at(0, "\0asm")],
  "application/msword": OLE2,
  "application/vnd.ms-excel": OLE2,
  "application/vnd.ms-powerpoint": OLE2,
};

/** Other names in use for the same formats. */
const ALIASES: Record<string, string> = {
  "image/jpg": "image/jpeg",
  "image/pjpeg": "image/jpeg",
  "image/vnd.microsoft.icon": "image/x-icon",
  "image/x-png": "image/png",
  "image/x-ms-bmp": "image/bmp",
  "audio/x-wav": "audio/wav",
  "audio/wave": "audio/wav",
  "audio/vnd.wave": "audio/wav",
  "audio/x-flac": "audio/flac",
  "audio/mp3": "audio/mpeg",
  "audio/x-m4a": "audio/mp4",
  "audio/m4a": "audio/mp4",
  "video/avi": "video/x-msvideo",
  "application/x-zip-compressed": "application/zip",
  "application/x-gzip": "application/gzip",
  "application/x-rar-compressed": "application/vnd.rar",
  "application/ogg": "audio/ogg",
};

/** The signatures of a media type's essence, or null when the type has none. OOXML and OpenDocument files are zip archives. */
function signaturesOf(essence: string): Signature[] | null {
  if (essence.startsWith("application/vnd.openxmlformats-officedocument.") || essence.startsWith("application/vnd.oasis.opendocument."))
    return ZIP;
  return SIGNATURES[ALIASES[essence] ?? essence] ?? null;
}

/** How many leading bytes decide every signature (the PDF search window is the widest). */
export const SIGNATURE_WINDOW = 1024;

/**
 * Holds back the first `SIGNATURE_WINDOW` bytes of a file declared as `contentType` until they
 * can be checked against the type's signature. Null when the type has no signature.
 *
 * `push(chunk)` takes the next chunk of the file (`null` at its end) and returns the bytes that
 * may be passed on, or null to pass on nothing yet; it throws `unsupported_media_type` (415) when
 * the first bytes are not those of the declared type. An empty file has no signature either.
 */
export function signatureGate(contentType: string): { push(chunk: Uint8Array | null): Uint8Array | null } | null {
  const essence = contentType.split(";")[0]!.trim().toLowerCase();
  const signatures = signaturesOf(essence);
  if (!signatures) return null;
  let held: Uint8Array | null = new Uint8Array(0);
  return {
    push(chunk) {
      if (!held) return chunk; // checked already: everything passes
      if (chunk) {
        if (held.byteLength === 0) held = chunk;
        else {
          const joined = new Uint8Array(held.byteLength + chunk.byteLength);
          joined.set(held);
          joined.set(chunk, held.byteLength);
          held = joined;
        }
        if (held.byteLength < SIGNATURE_WINDOW) return null;
      }
      const head = held;
      held = null;
      if (!signatures.some((signature) => signature(head))) {
        throw new ToolsError(
          "unsupported_media_type",
          `The file's first bytes are not those of ${essence}; ` +
            'send it with its real type (e.g. curl -F "file=@name;type=<type>"), or as application/octet-stream.',
        );
      }
      // Not empty: no signature matches an empty file.
      return head;
    },
  };
}
