import { fromBase64Url, randomBytes, toBase64Url } from "../util/encoding.js";
import { type NodeKeyObject, nodeCrypto } from "../util/node-crypto.js";
import { createTtlCache } from "../util/ttl-cache.js";

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/**
 * Encrypts credentials at rest with AES-256-GCM. Each value gets a fresh 96-bit IV, and the
 * caller's `associatedData` (the connection id) is authenticated with it, so a ciphertext moved to
 * another row fails to decrypt. The output names the key that wrote it, so secrets can rotate.
 */
export interface CredentialCipher {
  encrypt(plaintext: string, associatedData: string): Promise<string>;
  /** Throws when the value was tampered with, moved to another row, or written by an unknown key. */
  decrypt(ciphertext: string, associatedData: string): Promise<string>;
}

interface KeyEntry {
  id: string;
  /** The AES-256 key: a node:crypto KeyObject where node:crypto exists, else a non-extractable CryptoKey. */
  key: AesKey;
}

type AesKey = { kind: "node"; key: NodeKeyObject } | { kind: "web"; key: CryptoKey };

const TAG_BYTES = 16;

/**
 * Values decrypted recently, by associated data and ciphertext. Decryption is a function of those
 * two (and the secrets, fixed for the cipher), so an entry can never answer for another value: a
 * refreshed or re-encrypted credential is a new ciphertext, and a deleted connection is no longer
 * read. It saves the work of every call on a busy connection; entries live 30 s at most (a
 * replaced token's plaintext stays in memory no longer than that), 1000 of them at most, and are
 * never logged.
 */
const OPENED = { ttlMs: 30_000, maxEntries: 1000 };

/**
 * Creates the cipher from one secret or a list of them: the first encrypts, all of them decrypt.
 * To rotate, put the new secret first and keep the old ones until every row has been rewritten.
 * Format: `v1.<keyId>.<iv>.<ciphertext>` in base64url.
 */
export function createCredentialCipher(secrets: string | string[]): CredentialCipher {
  const list = [secrets].flat();
  if (list.length === 0) throw new TypeError("createCredentialCipher needs at least one secret.");
  const keys = Promise.all(list.map(deriveKey));
  const opened = createTtlCache<string, string>(OPENED);

  return {
    async encrypt(plaintext, associatedData) {
      const [current] = await keys;
      const iv = randomBytes(12);
      const sealed = await seal(current!.key, iv, encoder.encode(associatedData), encoder.encode(plaintext));
      return `v1.${current!.id}.${toBase64Url(iv)}.${toBase64Url(sealed)}`;
    },
    async decrypt(ciphertext, associatedData) {
      const memo = `${associatedData}\n${ciphertext}`;
      const known = opened.get(memo);
      if (known !== undefined) return known;
      const fields = ciphertext.split(".");
      const [version, keyId, iv, body] = fields;
      if (fields.length !== 4 || version !== "v1" || !keyId || !iv || !body) throw new Error("Unrecognised credential ciphertext.");
      const ivBytes = decodeCanonical(iv);
      const bodyBytes = decodeCanonical(body);
      if (ivBytes.length !== 12 || bodyBytes.length < 16) throw new Error("Unrecognised credential ciphertext.");
      const entry = (await keys).find((k) => k.id === keyId);
      if (!entry) throw new Error(`No secret with key id ${keyId} is configured; add the old secret to decrypt it.`);
      const plaintext = decoder.decode(await open(entry.key, ivBytes, encoder.encode(associatedData), bodyBytes));
      opened.set(memo, plaintext);
      return plaintext;
    },
  };
}

async function deriveKey(secret: string): Promise<KeyEntry> {
  const material = await crypto.subtle.importKey("raw", encoder.encode(secret), "HKDF", false, ["deriveKey", "deriveBits"]);
  const hkdf = (info: string) => ({ name: "HKDF", hash: "SHA-256", salt: new Uint8Array(0), info: encoder.encode(info) });
  // deriveKey and deriveBits of the same length give the same key, so both paths read each other's ciphertexts.
  const key: AesKey = nodeCrypto
    ? {
        kind: "node",
        key: nodeCrypto.createSecretKey(new Uint8Array(await crypto.subtle.deriveBits(hkdf("tools-proxy credentials v1"), material, 256))),
      }
    : {
        kind: "web",
        key: await crypto.subtle.deriveKey(hkdf("tools-proxy credentials v1"), material, { name: "AES-GCM", length: 256 }, false, [
          "encrypt",
          "decrypt",
        ]),
      };
  // The key id is derived separately so that it reveals nothing about the encryption key.
  const idBits = await crypto.subtle.deriveBits(hkdf("tools-proxy key id v1"), material, 48);
  return { id: toBase64Url(new Uint8Array(idBits)), key };
}

/** AES-256-GCM: the ciphertext followed by the 16-byte tag, as WebCrypto writes it. */
async function seal(
  key: AesKey,
  iv: Uint8Array<ArrayBuffer>,
  aad: Uint8Array<ArrayBuffer>,
  plaintext: Uint8Array<ArrayBuffer>,
): Promise<Uint8Array> {
  if (key.kind === "node") {
    const cipher = nodeCrypto!.createCipheriv("aes-256-gcm", key.key, iv).setAAD(aad);
    const body = [cipher.update(plaintext), cipher.final(), cipher.getAuthTag()];
    const out = new Uint8Array(body.reduce((n, part) => n + part.length, 0));
    let offset = 0;
    for (const part of body) {
      out.set(part, offset);
      offset += part.length;
    }
    return out;
  }
  return new Uint8Array(await crypto.subtle.encrypt({ name: "AES-GCM", iv, additionalData: aad }, key.key, plaintext));
}

/** Opens what `seal` wrote; throws when the tag does not verify. */
async function open(
  key: AesKey,
  iv: Uint8Array<ArrayBuffer>,
  aad: Uint8Array<ArrayBuffer>,
  sealed: Uint8Array<ArrayBuffer>,
): Promise<Uint8Array> {
  if (key.kind === "node") {
    const decipher = nodeCrypto!.createDecipheriv("aes-256-gcm", key.key, iv).setAAD(aad);
    decipher.setAuthTag(sealed.subarray(sealed.length - TAG_BYTES));
    const plaintext = decipher.update(sealed.subarray(0, sealed.length - TAG_BYTES));
    // GCM is a stream mode: update() gave every byte, and final() only checks the tag (it throws when the tag does not verify).
    decipher.final();
    return plaintext;
  }
  return new Uint8Array(await crypto.subtle.decrypt({ name: "AES-GCM", iv, additionalData: aad }, key.key, sealed));
}

const BASE64URL = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

/**
 * Strict base64url (URL-safe alphabet, no padding, unused bits zero), so one ciphertext has one
 * spelling. The unused low bits of the last character are checked directly rather than by
 * encoding the bytes again: this runs on every credential read.
 */
function decodeCanonical(part: string): Uint8Array<ArrayBuffer> {
  const rest = part.length % 4;
  const unusedBits = rest === 2 ? 0b1111 : rest === 3 ? 0b11 : 0;
  const canonical = /^[A-Za-z0-9_-]+$/.test(part) && rest !== 1 && (BASE64URL.indexOf(part[part.length - 1]!) & unusedBits) === 0;
  if (!canonical) throw new Error("Unrecognised credential ciphertext.");
  return fromBase64Url(part);
}
