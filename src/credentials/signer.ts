import { timingSafeEqual, toBase64Url } from "../util/encoding.js";

const encoder = new TextEncoder();

/** Signs short values the API hands out and takes back (cursors), so that a forged one is refused. */
export interface Signer {
  /** A base64url HMAC-SHA-256 tag of `value` (128 bits), made with the first secret. */
  sign(value: string): Promise<string>;
  /** Whether `tag` was made for `value` by any of the secrets (so tags survive a rotation). */
  verify(value: string, tag: string): Promise<boolean>;
}

/**
 * A signer whose HMAC keys are derived (HKDF-SHA-256) from the handler's secrets for one
 * `purpose`, so they are independent of the credential encryption key and of each other.
 */
export function createSigner(secrets: string | string[], purpose: string): Signer {
  const keys = Promise.all([secrets].flat().map((secret) => deriveHmacKey(secret, purpose)));
  const tag = async (key: CryptoKey, value: string) =>
    toBase64Url(new Uint8Array(await crypto.subtle.sign("HMAC", key, encoder.encode(value))).subarray(0, 16));
  return {
    async sign(value) {
      return tag((await keys)[0]!, value);
    },
    async verify(value, given) {
      // The tags are compared as strings, so another spelling of the same 16 bytes is not a match.
      for (const key of await keys) if (timingSafeEqual(await tag(key, value), given)) return true;
      return false;
    },
  };
}

async function deriveHmacKey(secret: string, purpose: string): Promise<CryptoKey> {
  const material = await crypto.subtle.importKey("raw", encoder.encode(secret), "HKDF", false, ["deriveKey"]);
  return crypto.subtle.deriveKey(
    { name: "HKDF", hash: "SHA-256", salt: new Uint8Array(0), info: encoder.encode(`tools-proxy ${purpose} v1`) },
    material,
    { name: "HMAC", hash: "SHA-256", length: 256 },
    false,
    ["sign"],
  );
}
