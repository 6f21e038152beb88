import { nodeCrypto } from "./node-crypto.js";

const encoder = new TextEncoder();

/** Standard base64 of bytes (or of a string's UTF-8 bytes). */
export function toBase64(input: Uint8Array | string): string {
  const bytes = typeof input === "string" ? encoder.encode(input) : input;
  let binary = "";
  for (let i = 0; i < bytes.length; i += 0x8000) binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(binary);
}

/** URL-safe base64 without padding. */
export function toBase64Url(input: Uint8Array | string): string {
  return toBase64(input).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

/**
 * Decodes URL-safe or standard base64, padded or not; throws on malformed input. (atob takes
 * unpadded input on every runtime: it is the forgiving-base64 decode of the HTML standard.)
 */
export function fromBase64Url(input: string): Uint8Array<ArrayBuffer> {
  return Uint8Array.from(atob(input.replace(/-/g, "+").replace(/_/g, "/")), (char) => char.charCodeAt(0));
}

/** `length` cryptographically random bytes. */
export function randomBytes(length: number): Uint8Array<ArrayBuffer> {
  return crypto.getRandomValues(new Uint8Array(length));
}

/** A random URL-safe identifier with `prefix`, carrying `bytes` bytes of randomness. */
export function randomId(prefix: string, bytes = 16): string {
  return `${prefix}${toBase64Url(randomBytes(bytes))}`;
}

/** Hex SHA-256 of a string's UTF-8 bytes. */
export async function sha256Hex(input: string): Promise<string> {
  if (nodeCrypto) return nodeCrypto.createHash("sha256").update(input).digest("hex");
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", encoder.encode(input)));
  let hex = "";
  for (const byte of digest) hex += byte.toString(16).padStart(2, "0");
  return hex;
}

/**
 * Compares two strings in time that depends only on their lengths: every UTF-16 code unit is
 * compared, without encoding either string first (that copy was most of its cost, on every request).
 */
export function timingSafeEqual(a: string, b: string): boolean {
  if (a.length !== b.length) return false;
  let diff = 0;
  for (let i = 0; i < a.length; i++) diff |= a.charCodeAt(i) ^ b.charCodeAt(i);
  return diff === 0;
}
