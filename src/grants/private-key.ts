import { importPKCS8 } from "jose";
import { fromBase64Url, toBase64 } from "../util/encoding.js";

/**
 * Why a private key cannot sign, in words that never quote it: its message is safe to answer,
 * log or show on a page, whatever the key held.
 */
export class PrivateKeyProblem extends Error {}

const PKCS8 = /^-----BEGIN PRIVATE KEY-----\r?\n([A-Za-z0-9+/=\r\n]+)\r?\n-----END PRIVATE KEY-----\s*$/;
const PKCS1 = /^-----BEGIN RSA PRIVATE KEY-----\r?\n([A-Za-z0-9+/=\r\n]+)\r?\n-----END RSA PRIVATE KEY-----\s*$/;
/** Larger than any RSA key of 8192 bits in PEM; a longer value is refused before it is parsed. */
const MAX_PEM_LENGTH = 16 * 1024;

/**
 * Imports an RSA private key for RS256 from PEM: PKCS#8 (`BEGIN PRIVATE KEY`, Google's key files,
 * Salesforce's `openssl` keys) or PKCS#1 (`BEGIN RSA PRIVATE KEY`, what GitHub gives an app),
 * with jose's `importPKCS8` and WebCrypto. `what` names the key in the message of a
 * `PrivateKeyProblem` ("the key file's private_key"); the message never holds the key.
 */
export async function importRsaPrivateKey(pem: string, what: string): Promise<CryptoKey> {
  // A key kept in an environment variable or a .env file often has its line breaks written `\n`.
  const text = pem.trim().replace(/\\n/g, "\n");
  if (text.length > MAX_PEM_LENGTH)
    throw new PrivateKeyProblem(`${what} is longer than any RSA private key; check that it is the key alone.`);
  if (/-----BEGIN ENCRYPTED PRIVATE KEY-----|Proc-Type:\s*4,ENCRYPTED/.test(text)) {
    throw new PrivateKeyProblem(`${what} is encrypted with a passphrase; export it without one (PKCS#8, BEGIN PRIVATE KEY).`);
  }
  const pkcs1 = PKCS1.exec(text);
  const pkcs8 = pkcs1 ? pkcs8Pem(pkcs1[1]!) : PKCS8.test(text) ? text : undefined;
  if (!pkcs8) {
    throw new PrivateKeyProblem(
      `${what} is not an RSA private key in PEM: it must run from -----BEGIN PRIVATE KEY----- to -----END PRIVATE KEY----- (or BEGIN RSA PRIVATE KEY).`,
    );
  }
  try {
    return await importPKCS8(pkcs8, "RS256");
  } catch {
    throw new PrivateKeyProblem(`${what} could not be read as an RSA private key (is it whole, and RSA rather than EC?).`);
  }
}

/** The DER of PKCS#8's AlgorithmIdentifier for rsaEncryption (OID 1.2.840.113549.1.1.1, NULL parameters). */
const RSA_ALGORITHM = [0x30, 0x0d, 0x06, 0x09, 0x2a, 0x86, 0x48, 0x86, 0xf7, 0x0d, 0x01, 0x01, 0x01, 0x05, 0x00];

/**
 * Wraps a PKCS#1 RSAPrivateKey (base64 DER) as a PKCS#8 PrivateKeyInfo PEM (RFC 5208 section 5):
 * SEQUENCE { INTEGER 0, rsaEncryption, OCTET STRING pkcs1 }. Only the DER framing is written here;
 * the key itself is parsed and checked by WebCrypto when jose imports it.
 */
export function pkcs8Pem(pkcs1Base64: string): string | undefined {
  let pkcs1: Uint8Array;
  try {
    pkcs1 = fromBase64Url(pkcs1Base64.replace(/\s/g, ""));
  } catch {
    return undefined;
  }
  if (pkcs1.length === 0) return undefined;
  const octets = [0x04, ...derLength(pkcs1.length), ...pkcs1];
  const body = [0x02, 0x01, 0x00, ...RSA_ALGORITHM, ...octets];
  const der = Uint8Array.from([0x30, ...derLength(body.length), ...body]);
  const lines = toBase64(der).match(/.{1,64}/g)!;
  return `-----BEGIN PRIVATE KEY-----\n${lines.join("\n")}\n-----END PRIVATE KEY-----`;
}

/** A DER length: one byte below 128, else 0x80 + the count of big-endian length bytes, then them. */
export function derLength(length: number): number[] {
  if (length < 0x80) return [length];
  const bytes: number[] = [];
  for (let rest = length; rest > 0; rest = Math.floor(rest / 256)) bytes.unshift(rest % 256);
  return [0x80 + bytes.length, ...bytes];
}
