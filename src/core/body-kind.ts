/**
 * Whether a body is text, by its media type and, for a type that says nothing, by its first bytes:
 * it decides how a secret found in it is masked (see `redact-bytes.ts`).
 */

/** How a secret found in a body is masked: as text (`[redacted]`) or in place, its length kept. */
export type MaskStyle = "text" | "binary";

/** Bytes looked at to tell text from binary in a body whose type says nothing. */
export const SNIFF_BYTES = 512;

// Tokens of a subtype (split on `+`, `.`, `-`) that make it text: `application/x-ndjson`,
// `application/vnd.api+json`, `application/xml-dtd`, `application/x-www-form-urlencoded`. Whole
// tokens only: `vnd.openxmlformats-officedocument...` is a zip archive, not XML.
const TEXT_TOKENS = new Set([
  "json",
  "ndjson",
  "jsonl",
  "jsonlines",
  "xml",
  "yaml",
  "toml",
  "csv",
  "javascript",
  "ecmascript",
  "urlencoded",
  "graphql",
  "sql",
]);

// Types that name no format: what a server sends when it does not know (or say) what it sends.
const UNTYPED = new Set(["", "application/octet-stream", "binary/octet-stream", "application/binary", "application/unknown"]);

/** The media type of a Content-Type value: lower case, without parameters; "" for none. */
export function mediaType(contentType: string | null | undefined): string {
  return (contentType ?? "").split(";")[0]!.trim().toLowerCase();
}

/**
 * Whether a media type (as `mediaType` gives it) is text: `text/*`, `multipart/*`, `message/*`,
 * and any type whose subtype has a text token (JSON and its line-delimited kinds, XML, YAML, CSV,
 * JavaScript, form-encoded, GraphQL...).
 */
export function isTextType(type: string): boolean {
  const slash = type.indexOf("/");
  if (slash <= 0) return false;
  const top = type.slice(0, slash);
  if (top === "text" || top === "multipart" || top === "message") return true;
  return type
    .slice(slash + 1)
    .split(/[+.-]/)
    .some((token) => TEXT_TOKENS.has(token));
}

/** Whether a media type names no format (`application/octet-stream`, none at all): only the bytes can tell. */
export function isUntyped(type: string): boolean {
  return UNTYPED.has(type);
}

/**
 * Whether the first bytes of a body look like text: UTF-8 (a sequence cut at the end allowed),
 * with no control character but tab, line breaks, form feed and escape. Empty is text.
 */
export function looksLikeText(head: Uint8Array): boolean {
  for (const byte of head) {
    if (byte === 0x7f || (byte < 0x20 && byte !== 0x09 && byte !== 0x0a && byte !== 0x0c && byte !== 0x0d && byte !== 0x1b)) return false;
  }
  try {
    // `stream`: a multi-byte character cut by the end of the head is not an error.
    new TextDecoder("utf-8", { fatal: true }).decode(head, { stream: true });
    return true;
  } catch {
    return false;
  }
}

/**
 * The mask style for a body of media type `type`: `text` for a text type, `binary` for a type that
 * names a binary format, and for an untyped body `sniff` (decided by `looksLikeText` on its first
 * bytes) or, when the caller cannot wait for them, `binary`.
 */
export function maskStyleFor(type: string, canSniff: boolean): MaskStyle | "sniff" {
  if (isTextType(type)) return "text";
  return canSniff && isUntyped(type) ? "sniff" : "binary";
}
