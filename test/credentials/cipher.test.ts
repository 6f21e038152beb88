import { describe, expect, it } from "vitest";
import type { HandlerContext } from "../../src/context/context.js";
import { ToolsError } from "../../src/core/errors.js";
import { type CredentialCipher, createCredentialCipher } from "../../src/credentials/cipher.js";
import { openCredential, sealCredential } from "../../src/credentials/sealing.js";
import type { ConnectionRecord } from "../../src/store/types.js";
import { fromBase64Url, sha256Hex, toBase64, toBase64Url } from "../../src/util/encoding.js";

const SECRET_A = "secret-A-0123456789abcdefghijklmnopqrstuvwxyz";
const SECRET_B = "secret-B-ZYXWVUTSRQPONMLKJIHGFEDCBA9876543210";
const CONN = "conn_1234567890";
const OTHER_CONN = "conn_0987654321";
const TOKEN = "ghp_S3cr3tT0kenValue_abcdefghijklmnopqrstuvwxyz0123456789";

const B64URL = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
const FORMAT = /^v1\.([A-Za-z0-9_-]+)\.([A-Za-z0-9_-]+)\.([A-Za-z0-9_-]+)$/;

interface Parts {
  version: string;
  keyId: string;
  iv: string;
  body: string;
}

function parts(ciphertext: string): Parts {
  const match = FORMAT.exec(ciphertext);
  if (!match) throw new Error(`not in v1.<keyId>.<iv>.<ct> format: ${ciphertext}`);
  return { version: "v1", keyId: match[1]!, iv: match[2]!, body: match[3]! };
}

function join(p: Parts): string {
  return `${p.version}.${p.keyId}.${p.iv}.${p.body}`;
}

/** Replaces the character at `index` with `replacement`. */
function replaceAt(s: string, index: number, replacement: string): string {
  return s.slice(0, index) + replacement + s.slice(index + 1);
}

/** A different base64url character obtained by flipping bit `bit` of the character's 6-bit value. */
function flip(char: string, bit: number): string {
  const index = B64URL.indexOf(char);
  if (index < 0) throw new Error(`not a base64url character: ${char}`);
  return B64URL[index ^ (1 << bit)]!;
}

/** Rejects if `promise` neither settles within `ms` (guards against hangs). */
function withinTime<T>(promise: Promise<T>, ms = 2_000): Promise<T> {
  return Promise.race([promise, new Promise<T>((_, reject) => setTimeout(() => reject(new Error("timed out (hang)")), ms))]);
}

async function expectDecryptFails(cipher: CredentialCipher, ciphertext: string, associatedData = CONN): Promise<unknown> {
  let result: { ok: true; value: string } | { ok: false; error: unknown };
  try {
    result = { ok: true, value: await withinTime(cipher.decrypt(ciphertext, associatedData)) };
  } catch (error) {
    result = { ok: false, error };
  }
  if (result.ok)
    throw new Error(
      `expected decrypt(${JSON.stringify(ciphertext.slice(0, 80))}) to fail, it returned ${JSON.stringify(result.value.slice(0, 40))}`,
    );
  expect(result.error).toBeInstanceOf(Error);
  expect((result.error as Error).message).not.toBe("timed out (hang)");
  return result.error;
}

/** All the ways the bytes of `text` can appear base64-encoded inside a longer encoded message. */
function encodedForms(text: string): string[] {
  const bytes = new TextEncoder().encode(text);
  const forms = new Set<string>([text, toBase64(bytes), toBase64Url(bytes), toBase64(bytes).replace(/=+$/, "")]);
  // At each of the three byte alignments, the middle of the encoding is fixed whatever surrounds it.
  for (let shift = 0; shift < 3; shift++) {
    const padded = new Uint8Array(shift + bytes.length);
    padded.set(bytes, shift);
    const std = toBase64(padded).replace(/=+$/, "");
    const inner = std.slice(Math.ceil(shift / 3) * 4, std.length - 4);
    if (inner.length >= 8) {
      forms.add(inner);
      forms.add(inner.replace(/\+/g, "-").replace(/\//g, "_"));
    }
  }
  let hex = "";
  for (const byte of bytes) hex += byte.toString(16).padStart(2, "0");
  forms.add(hex);
  return [...forms];
}

describe("createCredentialCipher: basics", () => {
  it("round-trips a value", async () => {
    const cipher = createCredentialCipher(SECRET_A);
    const sealed = await cipher.encrypt(TOKEN, CONN);
    expect(await cipher.decrypt(sealed, CONN)).toBe(TOKEN);
  });

  it("round-trips with a fresh cipher built from the same secret (keys are derived, not random)", async () => {
    const sealed = await createCredentialCipher(SECRET_A).encrypt(TOKEN, CONN);
    expect(await createCredentialCipher(SECRET_A).decrypt(sealed, CONN)).toBe(TOKEN);
    expect(await createCredentialCipher([SECRET_A]).decrypt(sealed, CONN)).toBe(TOKEN);
  });

  it("round-trips the empty string and empty associated data", async () => {
    const cipher = createCredentialCipher(SECRET_A);
    expect(await cipher.decrypt(await cipher.encrypt("", CONN), CONN)).toBe("");
    expect(await cipher.decrypt(await cipher.encrypt(TOKEN, ""), "")).toBe(TOKEN);
  });

  it("round-trips unicode plaintext", async () => {
    const cipher = createCredentialCipher(SECRET_A);
    const values = [
      "héllo wörld",
      "日本語のトークン",
      "emoji 🔑🗝️👩‍👩‍👧‍👦",
      "e\u0301 combining, \u200d zero-width, \u0000 NUL, \uffff",
      "𝕋𝕠𝕜𝕖𝕟 (astral)",
      JSON.stringify({ type: "basic", username: "ユーザー", password: "пароль🔒" }),
    ];
    for (const value of values) {
      const sealed = await cipher.encrypt(value, CONN);
      expect(await cipher.decrypt(sealed, CONN)).toBe(value);
    }
  });

  it("round-trips a large (100 KB) plaintext", async () => {
    const cipher = createCredentialCipher(SECRET_A);
    let large = "";
    for (let i = 0; large.length < 100 * 1024; i++) large += `${i.toString(36)}-é😀-`;
    large = large.slice(0, 100 * 1024);
    const sealed = await cipher.encrypt(large, CONN);
    expect(await cipher.decrypt(sealed, CONN)).toBe(large);
    // 16-byte GCM tag on top of the UTF-8 bytes.
    expect(fromBase64Url(parts(sealed).body).length).toBe(new TextEncoder().encode(large).length + 16);
  });

  it("uses the format v1.<keyId>.<iv>.<ct> with a 12-byte IV and a 16-byte tag", async () => {
    const cipher = createCredentialCipher(SECRET_A);
    for (const plaintext of ["", "a", "ab", "abc", TOKEN]) {
      const sealed = await cipher.encrypt(plaintext, CONN);
      expect(sealed).toMatch(FORMAT);
      expect(sealed.split(".")).toHaveLength(4);
      const p = parts(sealed);
      expect(fromBase64Url(p.iv).length).toBe(12);
      // Canonical unpadded base64url.
      expect(toBase64Url(fromBase64Url(p.iv))).toBe(p.iv);
      expect(toBase64Url(fromBase64Url(p.body))).toBe(p.body);
      expect(fromBase64Url(p.body).length).toBe(new TextEncoder().encode(plaintext).length + 16);
    }
  });

  it("reads and writes the same values as plain WebCrypto (Deno and browsers take that path)", async () => {
    // An independent AES-256-GCM with the documented derivation: HKDF-SHA-256, empty salt.
    const material = await crypto.subtle.importKey("raw", new TextEncoder().encode(SECRET_A), "HKDF", false, ["deriveKey"]);
    const hkdf = { name: "HKDF", hash: "SHA-256", salt: new Uint8Array(0), info: new TextEncoder().encode("tools-proxy credentials v1") };
    const key = await crypto.subtle.deriveKey(hkdf, material, { name: "AES-GCM", length: 256 }, false, ["encrypt", "decrypt"]);
    const gcm = (iv: Uint8Array<ArrayBuffer>) => ({ name: "AES-GCM", iv, additionalData: new TextEncoder().encode(CONN) });
    const cipher = createCredentialCipher(SECRET_A);

    const p = parts(await cipher.encrypt(TOKEN, CONN));
    const opened = await crypto.subtle.decrypt(gcm(fromBase64Url(p.iv)), key, fromBase64Url(p.body));
    expect(new TextDecoder().decode(opened)).toBe(TOKEN);

    const iv = crypto.getRandomValues(new Uint8Array(12));
    const sealed = new Uint8Array(await crypto.subtle.encrypt(gcm(iv), key, new TextEncoder().encode(TOKEN)));
    expect(await cipher.decrypt(join({ ...p, iv: toBase64Url(iv), body: toBase64Url(sealed) }), CONN)).toBe(TOKEN);
  });

  it("rejects an empty list of secrets", () => {
    expect(() => createCredentialCipher([])).toThrow(TypeError);
  });
});

describe("createCredentialCipher: fresh IVs and no plaintext in the output", () => {
  it("two encryptions of the same plaintext differ", async () => {
    const cipher = createCredentialCipher(SECRET_A);
    const first = await cipher.encrypt(TOKEN, CONN);
    const second = await cipher.encrypt(TOKEN, CONN);
    expect(first).not.toBe(second);
    expect(parts(first).iv).not.toBe(parts(second).iv);
    expect(parts(first).body).not.toBe(parts(second).body);
    expect(await cipher.decrypt(first, CONN)).toBe(TOKEN);
    expect(await cipher.decrypt(second, CONN)).toBe(TOKEN);
  });

  it("never repeats an IV across 1000 encryptions of the same value", async () => {
    const cipher = createCredentialCipher(SECRET_A);
    const ivs = new Set<string>();
    const bodies = new Set<string>();
    for (let i = 0; i < 1000; i++) {
      const p = parts(await cipher.encrypt(TOKEN, CONN));
      expect(fromBase64Url(p.iv).length).toBe(12);
      ivs.add(p.iv);
      bodies.add(p.body);
    }
    expect(ivs.size).toBe(1000);
    expect(bodies.size).toBe(1000);
  });

  it("the IV is not constant per byte position (not a counter or fixed prefix)", async () => {
    const cipher = createCredentialCipher(SECRET_A);
    const columns = Array.from({ length: 12 }, () => new Set<number>());
    for (let i = 0; i < 200; i++) {
      const iv = fromBase64Url(parts(await cipher.encrypt(TOKEN, CONN)).iv);
      iv.forEach((byte, j) => {
        columns[j]!.add(byte);
      });
    }
    for (const column of columns) expect(column.size).toBeGreaterThan(50);
  });

  it("the output contains neither the plaintext nor any base64/base64url/hex encoding of it", async () => {
    const cipher = createCredentialCipher(SECRET_A);
    const forms = encodedForms(TOKEN);
    for (let i = 0; i < 50; i++) {
      const sealed = await cipher.encrypt(TOKEN, CONN);
      for (const form of forms) expect(sealed).not.toContain(form);
      // Nor a recognisable chunk of the token.
      expect(sealed).not.toContain(TOKEN.slice(0, 12));
      expect(sealed).not.toContain(TOKEN.slice(-12));
    }
  });

  it("the output does not contain the secret or its encodings", async () => {
    const cipher = createCredentialCipher(SECRET_A);
    const sealed = await cipher.encrypt(TOKEN, CONN);
    for (const form of encodedForms(SECRET_A)) expect(sealed).not.toContain(form);
  });
});

describe("createCredentialCipher: associated data (the connection id)", () => {
  it("fails to decrypt with another connection id", async () => {
    const cipher = createCredentialCipher(SECRET_A);
    const sealed = await cipher.encrypt(TOKEN, CONN);
    await expectDecryptFails(cipher, sealed, OTHER_CONN);
    await expectDecryptFails(cipher, sealed, "");
    await expectDecryptFails(cipher, sealed, `${CONN} `);
    await expectDecryptFails(cipher, sealed, CONN.toUpperCase());
    await expectDecryptFails(cipher, sealed, CONN.slice(0, -1));
    // Still fine with the right one.
    expect(await cipher.decrypt(sealed, CONN)).toBe(TOKEN);
  });

  it("ciphertexts swapped between two rows fail on both", async () => {
    const cipher = createCredentialCipher(SECRET_A);
    const rowA = await cipher.encrypt("token-for-A", CONN);
    const rowB = await cipher.encrypt("token-for-B", OTHER_CONN);
    await expectDecryptFails(cipher, rowA, OTHER_CONN);
    await expectDecryptFails(cipher, rowB, CONN);
  });

  it("values encrypted with empty associated data do not decrypt under a connection id", async () => {
    const cipher = createCredentialCipher(SECRET_A);
    await expectDecryptFails(cipher, await cipher.encrypt(TOKEN, ""), CONN);
  });
});

describe("createCredentialCipher: tampering", () => {
  // Plaintext lengths chosen so that body = len + 16 bytes covers all three lengths mod 3
  // (0, 1 and 2 leftover bytes: the last base64url character then carries 6, 2 or 4 bits).
  const lengths = [2, 3, 4, TOKEN.length];

  for (const length of lengths) {
    it(`every single-character change (lowest bit flipped) in the IV or ciphertext+tag fails (plaintext ${length} bytes)`, async () => {
      const cipher = createCredentialCipher(SECRET_A);
      const plaintext = TOKEN.repeat(2).slice(0, length);
      const sealed = await cipher.encrypt(plaintext, CONN);
      const p = parts(sealed);
      const accepted: string[] = [];
      for (const field of ["iv", "body"] as const) {
        for (let i = 0; i < p[field].length; i++) {
          const tampered = join({ ...p, [field]: replaceAt(p[field], i, flip(p[field][i]!, 0)) });
          expect(tampered).not.toBe(sealed);
          try {
            const value = await withinTime(cipher.decrypt(tampered, CONN));
            accepted.push(`${field}[${i}] ${p[field][i]}->${flip(p[field][i]!, 0)} decrypted to ${JSON.stringify(value)}`);
          } catch (error) {
            expect(error).toBeInstanceOf(Error);
          }
        }
      }
      expect(accepted).toEqual([]);
    });
  }

  it("every single-character change (high bit flipped) in the IV, ciphertext or tag fails", async () => {
    const cipher = createCredentialCipher(SECRET_A);
    const sealed = await cipher.encrypt(TOKEN, CONN);
    const p = parts(sealed);
    const tagStart = p.body.length - Math.ceil((16 * 4) / 3) + 1;
    let tagPositions = 0;
    for (const field of ["iv", "body"] as const) {
      for (let i = 0; i < p[field].length; i++) {
        if (field === "body" && i >= tagStart) tagPositions++;
        await expectDecryptFails(cipher, join({ ...p, [field]: replaceAt(p[field], i, flip(p[field][i]!, 5)) }));
      }
    }
    expect(tagPositions).toBeGreaterThanOrEqual(20);
  });

  it("replacing a character of the key id or version fails", async () => {
    const cipher = createCredentialCipher(SECRET_A);
    const sealed = await cipher.encrypt(TOKEN, CONN);
    const p = parts(sealed);
    for (let i = 0; i < p.keyId.length; i++) {
      await expectDecryptFails(cipher, join({ ...p, keyId: replaceAt(p.keyId, i, flip(p.keyId[i]!, 0)) }));
    }
    await expectDecryptFails(cipher, join({ ...p, version: "v2" }));
    await expectDecryptFails(cipher, join({ ...p, version: "V1" }));
  });

  it("swapping the IV or body between two ciphertexts fails", async () => {
    const cipher = createCredentialCipher(SECRET_A);
    const one = parts(await cipher.encrypt(TOKEN, CONN));
    const two = parts(await cipher.encrypt(TOKEN, CONN));
    await expectDecryptFails(cipher, join({ ...one, iv: two.iv }));
    await expectDecryptFails(cipher, join({ ...one, body: two.body }));
  });

  it("truncating or extending the ciphertext/tag fails", async () => {
    const cipher = createCredentialCipher(SECRET_A);
    const p = parts(await cipher.encrypt(TOKEN, CONN));
    const raw = fromBase64Url(p.body);
    await expectDecryptFails(cipher, join({ ...p, body: toBase64Url(raw.subarray(0, raw.length - 1)) }));
    await expectDecryptFails(cipher, join({ ...p, body: toBase64Url(raw.subarray(0, raw.length - 16)) }));
    await expectDecryptFails(cipher, join({ ...p, body: toBase64Url(raw.subarray(0, 15)) }));
    await expectDecryptFails(cipher, join({ ...p, body: toBase64Url(new Uint8Array([...raw, 0])) }));
    const iv = fromBase64Url(p.iv);
    await expectDecryptFails(cipher, join({ ...p, iv: toBase64Url(iv.subarray(0, 11)) }));
    await expectDecryptFails(cipher, join({ ...p, iv: toBase64Url(new Uint8Array([...iv, 0])) }));
  });

  it("rejects non-canonical re-encodings of a valid value (standard-base64 characters, padding, extra parts)", async () => {
    const cipher = createCredentialCipher(SECRET_A);
    // Find a value whose IV or body contains '-' or '_'.
    let sealed = "";
    for (let i = 0; i < 200 && !/[-_]/.test(sealed.split(".").slice(2).join(".")); i++) sealed = await cipher.encrypt(TOKEN, CONN);
    const p = parts(sealed);
    const field = /[-_]/.test(p.iv) ? "iv" : "body";
    const index = p[field].search(/[-_]/);
    const twin = p[field][index] === "-" ? "+" : "/";
    const accepted: string[] = [];
    const variants = {
      "standard-base64 twin character": join({ ...p, [field]: replaceAt(p[field], index, twin) }),
      "trailing padding on the body": `${sealed}==`,
      "a fifth part": `${sealed}.extra`,
    };
    for (const [name, variant] of Object.entries(variants)) {
      try {
        await withinTime(cipher.decrypt(variant, CONN));
        accepted.push(name);
      } catch (error) {
        expect(error).toBeInstanceOf(Error);
      }
    }
    expect(accepted).toEqual([]);
  });
});

describe("createCredentialCipher: key ids", () => {
  it("puts the key id in the output, stable for the same secret", async () => {
    const a1 = parts(await createCredentialCipher(SECRET_A).encrypt(TOKEN, CONN)).keyId;
    const a2 = parts(await createCredentialCipher(SECRET_A).encrypt("other", OTHER_CONN)).keyId;
    const a3 = parts(await createCredentialCipher([SECRET_A, SECRET_B]).encrypt(TOKEN, CONN)).keyId;
    expect(a1).toBe(a2);
    expect(a1).toBe(a3);
    expect(a1.length).toBeGreaterThanOrEqual(6);
    expect(a1).toMatch(/^[A-Za-z0-9_-]+$/);
  });

  it("differs between secrets (including near-identical ones)", async () => {
    const a = parts(await createCredentialCipher(SECRET_A).encrypt(TOKEN, CONN)).keyId;
    const b = parts(await createCredentialCipher(SECRET_B).encrypt(TOKEN, CONN)).keyId;
    expect(a).not.toBe(b);
    const ids = new Set<string>();
    const secrets = Array.from({ length: 50 }, (_, i) => `${SECRET_A}${i}`);
    secrets.push(SECRET_A.slice(0, -1), `${SECRET_A} `, SECRET_A.toUpperCase());
    for (const secret of secrets) ids.add(parts(await createCredentialCipher(secret).encrypt(TOKEN, CONN)).keyId);
    ids.add(a);
    expect(ids.size).toBe(secrets.length + 1);
  });

  it("reveals nothing about the secret (not a substring/prefix of it, its encodings or its plain hash)", async () => {
    const secrets = [SECRET_A, SECRET_B, "short", "x".repeat(64), toBase64Url(crypto.getRandomValues(new Uint8Array(32)))];
    for (const secret of secrets) {
      const keyId = parts(await createCredentialCipher(secret).encrypt(TOKEN, CONN)).keyId;
      const bytes = new TextEncoder().encode(secret);
      const hex = await sha256Hex(secret);
      const hashBytes = new Uint8Array(hex.match(/../g)!.map((h) => parseInt(h, 16)));
      const haystacks = [secret, toBase64(bytes), toBase64Url(bytes), hex, toBase64(hashBytes), toBase64Url(hashBytes)];
      for (const haystack of haystacks) {
        expect(haystack).not.toContain(keyId);
        expect(haystack.startsWith(keyId.slice(0, 4))).toBe(false);
      }
      expect(keyId).not.toContain(secret.slice(0, 4));
    }
  });
});

describe("createCredentialCipher: rotation", () => {
  it("a value written with secret A decrypts with [B, A]", async () => {
    const sealedA = await createCredentialCipher(SECRET_A).encrypt(TOKEN, CONN);
    const rotated = createCredentialCipher([SECRET_B, SECRET_A]);
    expect(await rotated.decrypt(sealedA, CONN)).toBe(TOKEN);
    // And still bound to the connection id.
    await expectDecryptFails(rotated, sealedA, OTHER_CONN);
  });

  it("new writes with [B, A] use B's key id and decrypt with B alone", async () => {
    const keyIdA = parts(await createCredentialCipher(SECRET_A).encrypt(TOKEN, CONN)).keyId;
    const keyIdB = parts(await createCredentialCipher(SECRET_B).encrypt(TOKEN, CONN)).keyId;
    const sealed = await createCredentialCipher([SECRET_B, SECRET_A]).encrypt(TOKEN, CONN);
    expect(parts(sealed).keyId).toBe(keyIdB);
    expect(parts(sealed).keyId).not.toBe(keyIdA);
    expect(await createCredentialCipher([SECRET_B]).decrypt(sealed, CONN)).toBe(TOKEN);
    // A alone cannot read it.
    await expectDecryptFails(createCredentialCipher(SECRET_A), sealed);
  });

  it("[B] alone cannot decrypt A's value; the error asks for the old secret and leaks no secret", async () => {
    const sealedA = await createCredentialCipher(SECRET_A).encrypt(TOKEN, CONN);
    const error = (await expectDecryptFails(createCredentialCipher([SECRET_B]), sealedA)) as Error;
    expect(error.message).toMatch(/old secret/i);
    expect(error.message).toMatch(/key id/i);
    for (const leaked of [SECRET_A, SECRET_B, TOKEN, ...encodedForms(SECRET_A), ...encodedForms(SECRET_B), ...encodedForms(TOKEN)]) {
      expect(error.message).not.toContain(leaked);
      expect(String(error.stack)).not.toContain(leaked);
    }
  });

  it("a value sealed with A but relabelled with B's key id fails under [B, A]", async () => {
    const keyIdB = parts(await createCredentialCipher(SECRET_B).encrypt(TOKEN, CONN)).keyId;
    const p = parts(await createCredentialCipher(SECRET_A).encrypt(TOKEN, CONN));
    await expectDecryptFails(createCredentialCipher([SECRET_B, SECRET_A]), join({ ...p, keyId: keyIdB }));
  });

  it("supports more than two secrets, in any position", async () => {
    const secretC = "secret-C-third-one-for-rotation-tests-0000";
    const sealedA = await createCredentialCipher(SECRET_A).encrypt("a", CONN);
    const sealedB = await createCredentialCipher(SECRET_B).encrypt("b", CONN);
    const all = createCredentialCipher([secretC, SECRET_B, SECRET_A]);
    expect(await all.decrypt(sealedA, CONN)).toBe("a");
    expect(await all.decrypt(sealedB, CONN)).toBe("b");
    const sealedC = await all.encrypt("c", CONN);
    expect(parts(sealedC).keyId).toBe(parts(await createCredentialCipher(secretC).encrypt("x", CONN)).keyId);
  });
});

describe("createCredentialCipher: malformed input", () => {
  it("rejects malformed ciphertexts with an Error, without hanging", async () => {
    const cipher = createCredentialCipher(SECRET_A);
    const p = parts(await cipher.encrypt(TOKEN, CONN));
    const inputs = [
      "",
      " ",
      ".",
      "...",
      "v1",
      "v1.",
      "v1..",
      "v1...",
      "v2...",
      `v2.${p.keyId}.${p.iv}.${p.body}`,
      `v1.${p.keyId}`,
      `v1.${p.keyId}.${p.iv}`,
      `v1.${p.keyId}.${p.iv}.`,
      `v1.${p.keyId}..${p.body}`,
      `v1..${p.iv}.${p.body}`,
      `.${p.keyId}.${p.iv}.${p.body}`,
      `v1.${p.keyId}.!!!!!!!!.${p.body}`,
      `v1.${p.keyId}.${p.iv}.%%%%%%%%`,
      `v1.${p.keyId}.${p.iv}.${p.body.slice(0, 5)}@${p.body.slice(6)}`,
      `v1.${p.keyId}.${p.iv}.A`, // impossible base64 length
      `v1.${p.keyId}.A.${p.body}`,
      `v1.${p.keyId}.${p.iv}.AAAA`, // shorter than a tag
      `v1.${p.keyId}.${p.iv}.${"ü".repeat(20)}`,
      "not a ciphertext at all",
      TOKEN,
      "v1.unknownkey.AAAAAAAAAAAAAAAA.AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA",
    ];
    for (const input of inputs) await expectDecryptFails(cipher, input);
  });
});

describe("sealCredential / openCredential", () => {
  function fakeContext(cipher: CredentialCipher) {
    const logs: { level: string; message: string; fields?: Record<string, unknown> }[] = [];
    const ctx = {
      cipher,
      logger: { log: (level: string, message: string, fields?: Record<string, unknown>) => logs.push({ level, message, fields }) },
    } as unknown as HandlerContext;
    return { ctx, logs };
  }
  const row = (id: string, credentials: string) => ({ id, credentials }) as ConnectionRecord;

  it("seals a credential bound to the connection id, with no token in the stored value", async () => {
    const { ctx } = fakeContext(createCredentialCipher(SECRET_A));
    const credential = { type: "oauth2" as const, accessToken: TOKEN, refreshToken: `refresh_${TOKEN.slice(4)}` };
    const stored = await sealCredential(ctx, CONN, credential);
    expect(stored).toMatch(FORMAT);
    for (const form of [...encodedForms(TOKEN), ...encodedForms(credential.refreshToken), ...encodedForms(JSON.stringify(credential))]) {
      expect(stored).not.toContain(form);
    }
    expect(await openCredential(ctx, row(CONN, stored))).toEqual(credential);
  });

  it("a credential moved to another row cannot be opened; the error leaks no token", async () => {
    const { ctx, logs } = fakeContext(createCredentialCipher(SECRET_A));
    const stored = await sealCredential(ctx, CONN, { type: "bearer", token: TOKEN });
    const error = await openCredential(ctx, row(OTHER_CONN, stored)).then(
      () => null,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(ToolsError);
    expect((error as ToolsError).code).toBe("internal");
    expect((error as ToolsError).message).toContain(OTHER_CONN);
    expect((error as ToolsError).message).not.toContain(TOKEN);
    expect(logs.some((l) => l.level === "error")).toBe(true);
    expect(JSON.stringify(logs)).not.toContain(TOKEN);
  });

  it("after rotation, old rows open with [B, A] but not with [B]", async () => {
    const old = fakeContext(createCredentialCipher(SECRET_A));
    const stored = await sealCredential(old.ctx, CONN, { type: "apiKey", apiKey: TOKEN });
    const rotated = fakeContext(createCredentialCipher([SECRET_B, SECRET_A]));
    expect(await openCredential(rotated.ctx, row(CONN, stored))).toEqual({ type: "apiKey", apiKey: TOKEN });
    const onlyNew = fakeContext(createCredentialCipher([SECRET_B]));
    await expect(openCredential(onlyNew.ctx, row(CONN, stored))).rejects.toBeInstanceOf(ToolsError);
    await expect(openCredential(onlyNew.ctx, row(CONN, stored))).rejects.toThrow(/previous secret/);
  });
});
