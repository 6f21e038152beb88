import { fromBase64Url } from "../../util/encoding.js";

/** Reads `key` of a parsed JSON object, or undefined when `value` is not an object. */
export function field(value: unknown, key: string): unknown {
  return value !== null && typeof value === "object" ? (value as Record<string, unknown>)[key] : undefined;
}

/** Base64 or base64url text (with or without padding and line breaks) as bytes. */
export function decodeBase64(text: string): Uint8Array {
  return fromBase64Url(text.replace(/\s+/g, ""));
}

/** The text of bytes that are UTF-8 without NUL characters, or null when they look binary. */
export function utf8Text(bytes: Uint8Array): string | null {
  if (bytes.includes(0)) return null;
  try {
    return new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    return null;
  }
}

/** Cuts long text for a listing, saying that it was cut. */
export function excerpt(text: string | null | undefined, max = 500): string | null {
  if (!text) return null;
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

const CONTENT_TYPES: Record<string, string> = {
  txt: "text/plain",
  md: "text/markdown",
  csv: "text/csv",
  html: "text/html",
  json: "application/json",
  pdf: "application/pdf",
  png: "image/png",
  jpg: "image/jpeg",
  jpeg: "image/jpeg",
  gif: "image/gif",
  svg: "image/svg+xml",
  webp: "image/webp",
  zip: "application/zip",
  docx: "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
  xlsx: "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
  pptx: "application/vnd.openxmlformats-officedocument.presentationml.presentation",
};

/** A content type for a file name, by its extension; `application/octet-stream` when unknown. */
export function contentTypeFor(filename: string): string {
  const extension = /\.([A-Za-z0-9]+)$/.exec(filename)?.[1]?.toLowerCase();
  return (extension && CONTENT_TYPES[extension]) || "application/octet-stream";
}
