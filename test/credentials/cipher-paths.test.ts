/**
 * The credential cipher on both of its paths: `node:crypto` (Node, Bun) and plain WebCrypto (edge
 * runtimes, browsers), loaded here with `node:crypto` hidden. Each path opens what the other
 * sealed, refuses what was tampered with, and reads values written by earlier releases.
 */
import fc from "fast-check";
import { beforeAll, describe, expect, it } from "vitest";
import { type CredentialCipher, createCredentialCipher } from "../../src/credentials/cipher.js";
import { fromBase64Url, sha256Hex, toBase64Url } from "../../src/util/encoding.js";
import { importWithoutNodeCrypto } from "../support/without-node-crypto.js";

const SECRET_A = "cipher-paths-secret-A-0123456789abcdefghijklmnop";
const SECRET_B = "cipher-paths-secret-B-ZYXWVUTSRQPONMLKJIHGFEDCBA";
const CONN = "conn_paths_1";
const TOKEN = "tok-cipher-paths-0123456789-abcdefghijklmnopqrstuvwxyz";

/** Written by release 0.1 with `FORMAT_SECRET` for the connection `conn_format_v1`: stored rows look like this. */
const FORMAT_SECRET = "format-v1-secret-kept-for-compatibility-tests";
const STORED_V1 = "v1.Y_3qz4Ne.QHhwyCsDwqW3D9mn.fMjXwUpqZVIGiyD-1uXaEAVXA08aRPJGI8IfTkV4G_9SWHyS50UbWFlXxJEch7G6ibXabgqNNGgpJ7FEeQ";
const STORED_V1_PLAINTEXT = '{"type":"bearer","token":"tok-v1-0123456789"}';

type Maker = (secrets: string | string[]) => CredentialCipher;
let webCipher: Maker;
let webSha256Hex: (input: string) => Promise<string>;

beforeAll(async () => {
  const loaded = await importWithoutNodeCrypto(async () => ({
    cipher: await import("../../src/credentials/cipher.js"),
    encoding: await import("../../src/util/encoding.js"),
  }));
  webCipher = loaded.cipher.createCredentialCipher;
  webSha256Hex = loaded.encoding.sha256Hex;
});

const paths: Array<[string, () => Maker]> = [
  ["node:crypto", () => createCredentialCipher],
  ["WebCrypto", () => webCipher],
];

function split(sealed: string) {
  const [version, keyId, iv, body] = sealed.split(".") as [string, string, string, string];
  return { version, keyId, iv, body };
}
const join = (p: ReturnType<typeof split>) => `${p.version}.${p.keyId}.${p.iv}.${p.body}`;

async function failure(promise: Promise<unknown>): Promise<Error> {
  const outcome = await promise.then(
    (value) => ({ value }),
    (error: unknown) => ({ error }),
  );
  if (!("error" in outcome)) throw new Error(`expected a failure, got ${JSON.stringify(outcome.value)}`);
  expect(outcome.error).toBeInstanceOf(Error);
  return outcome.error as Error;
}

describe.each(paths)("the cipher on its %s path", (_name, make) => {
  it("opens a value written by release 0.1, and nothing else with that key id", async () => {
    const cipher = make()(FORMAT_SECRET);
    expect(await cipher.decrypt(STORED_V1, "conn_format_v1")).toBe(STORED_V1_PLAINTEXT);
    await failure(cipher.decrypt(STORED_V1, "conn_format_v2"));
    await failure(make()(SECRET_A).decrypt(STORED_V1, "conn_format_v1"));
  });

  it("names its key by HKDF-SHA-256 of the secret (empty salt, info 'tools-proxy key id v1'), 48 bits", async () => {
    for (const secret of [FORMAT_SECRET, SECRET_A, SECRET_B]) {
      const material = await crypto.subtle.importKey("raw", new TextEncoder().encode(secret), "HKDF", false, ["deriveBits"]);
      const info = new TextEncoder().encode("tools-proxy key id v1");
      const bits = await crypto.subtle.deriveBits({ name: "HKDF", hash: "SHA-256", salt: new Uint8Array(0), info }, material, 48);
      expect(split(await make()(secret).encrypt(TOKEN, CONN)).keyId).toBe(toBase64Url(new Uint8Array(bits)));
    }
  });

  it("round-trips values of every length class, the empty string and non-ASCII text", async () => {
    const cipher = make()(SECRET_A);
    for (const value of ["", "a", "ab", "abc", "abcd", TOKEN, "日本語 🔑 пароль", "x".repeat(5000)]) {
      const sealed = await cipher.encrypt(value, CONN);
      expect(fromBase64Url(split(sealed).body)).toHaveLength(new TextEncoder().encode(value).length + 16);
      expect(await cipher.decrypt(sealed, CONN)).toBe(value);
    }
  });

  it("refuses a value bound to another connection, and every one-character change", async () => {
    const cipher = make()(SECRET_A);
    const sealed = await cipher.encrypt(TOKEN, CONN);
    await failure(cipher.decrypt(sealed, "conn_paths_2"));
    const p = split(sealed);
    for (const field of ["iv", "body"] as const) {
      for (let i = 0; i < p[field].length; i++) {
        const char = p[field][i]!;
        const changed = char === "A" ? "B" : "A";
        await failure(cipher.decrypt(join({ ...p, [field]: p[field].slice(0, i) + changed + p[field].slice(i + 1) }), CONN));
      }
    }
  });

  it("refuses a tag cut short, even when what is left is a true prefix of the real tag", async () => {
    // node:crypto accepts GCM tags of 4, 8 and 12-16 bytes unless told otherwise; a stored value
    // must carry the whole 16-byte tag, or a forger needs to guess only 32 bits.
    const cipher = make()(SECRET_A);
    for (const [plaintext, keep] of [
      ["", 8],
      ["", 12],
      ["12345678", 4],
      ["1234", 6],
      [TOKEN, 12],
    ] as const) {
      const p = split(await cipher.encrypt(plaintext, CONN));
      const body = fromBase64Url(p.body);
      const ciphertext = body.subarray(0, body.length - 16);
      const tag = body.subarray(body.length - 16);
      const short = new Uint8Array([...ciphertext, ...tag.subarray(0, keep)]);
      const error = await failure(cipher.decrypt(join({ ...p, body: toBase64Url(short) }), CONN));
      if (short.length < 16) expect(error.message).toBe("Unrecognised credential ciphertext.");
    }
  });

  it("refuses an IV of another length than 12 bytes, even one GCM would accept", async () => {
    const cipher = make()(SECRET_A);
    const p = split(await cipher.encrypt(TOKEN, CONN));
    const iv = fromBase64Url(p.iv);
    for (const other of [iv.subarray(0, 8), iv.subarray(0, 11), new Uint8Array([...iv, 0]), new Uint8Array([...iv, ...iv])]) {
      const error = await failure(cipher.decrypt(join({ ...p, iv: toBase64Url(other) }), CONN));
      expect(error.message).toBe("Unrecognised credential ciphertext.");
    }
  });

  it("rotates: [B, A] opens A's values and writes with B; B alone asks for the old secret", async () => {
    const sealedA = await make()(SECRET_A).encrypt(TOKEN, CONN);
    const rotated = make()([SECRET_B, SECRET_A]);
    expect(await rotated.decrypt(sealedA, CONN)).toBe(TOKEN);
    const sealedB = await rotated.encrypt(TOKEN, CONN);
    expect(split(sealedB).keyId).toBe(split(await make()(SECRET_B).encrypt("x", CONN)).keyId);
    expect(await make()(SECRET_B).decrypt(sealedB, CONN)).toBe(TOKEN);
    const error = await failure(make()(SECRET_B).decrypt(sealedA, CONN));
    expect(error.message).toBe(`No secret with key id ${split(sealedA).keyId} is configured; add the old secret to decrypt it.`);
  });
});

describe("the two paths together", () => {
  it("each opens what the other sealed, for any text and connection id", async () => {
    const node = createCredentialCipher([SECRET_B, SECRET_A]);
    const web = webCipher([SECRET_A, SECRET_B]);
    await fc.assert(
      fc.asyncProperty(fc.string({ unit: "grapheme", maxLength: 200 }), fc.string({ maxLength: 40 }), async (text, connection) => {
        expect(await web.decrypt(await node.encrypt(text, connection), connection)).toBe(text);
        expect(await node.decrypt(await web.encrypt(text, connection), connection)).toBe(text);
      }),
      { numRuns: 60 },
    );
  });

  it("hash API keys and OAuth states the same way (SHA-256, lower-case hex)", async () => {
    expect(await webSha256Hex("abc")).toBe("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    expect(await webSha256Hex("")).toBe("e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
    await fc.assert(
      fc.asyncProperty(fc.string({ unit: "binary", maxLength: 300 }), async (text) => {
        expect(await webSha256Hex(text)).toBe(await sha256Hex(text));
      }),
      { numRuns: 100 },
    );
  });
});

describe("what the cipher refuses before it decrypts", () => {
  it("needs a secret, and says so", () => {
    expect(() => createCredentialCipher([])).toThrow(new TypeError("createCredentialCipher needs at least one secret."));
  });

  it("answers every malformed value with the same sentence, whatever is wrong with it", async () => {
    const cipher = createCredentialCipher(SECRET_A);
    const p = split(await cipher.encrypt(TOKEN, CONN));
    const malformed = [
      "",
      "v1",
      `v1.${p.keyId}.${p.iv}`,
      `v1.${p.keyId}.${p.iv}.${p.body}.extra`,
      `v2.${p.keyId}.${p.iv}.${p.body}`,
      `v1..${p.iv}.${p.body}`,
      `v1.${p.keyId}..${p.body}`,
      `v1.${p.keyId}.${p.iv}.`,
      `v1.${p.keyId}.A.${p.body}`,
      // A length no base64 has (4n + 1 characters).
      `v1.${p.keyId}.${p.iv}.${p.body.slice(0, p.body.length - ((p.body.length - 1) % 4))}`,
      `v1.${p.keyId}.${p.iv}.${p.body}==`,
      `v1.${p.keyId}.${p.iv}.${p.body.replace(/^./, "+")}`,
      `v1.${p.keyId}.${p.iv}.${p.body.replace(/.$/, "/")}`,
      `v1.${p.keyId}.${p.iv}.AAAAAAAAAAAAAAAAAAAA`,
    ];
    for (const value of malformed) {
      const error = await failure(cipher.decrypt(value, CONN));
      expect(error.message, value).toBe("Unrecognised credential ciphertext.");
    }
  });

  it("takes one spelling of each value: the same bytes with the unused bits of the last character set are refused", async () => {
    const cipher = createCredentialCipher(SECRET_A);
    const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
    // Bodies of 16 and 17 bytes end in a character with 4 and 2 unused low bits.
    for (const [plaintext, unused] of [
      ["", 0b1111],
      ["a", 0b11],
    ] as const) {
      const p = split(await cipher.encrypt(plaintext, CONN));
      const last = alphabet.indexOf(p.body.at(-1)!);
      expect(last & unused).toBe(0);
      for (let bits = 1; bits <= unused; bits++) {
        const body = p.body.slice(0, -1) + alphabet[last | bits];
        expect(fromBase64Url(body)).toEqual(fromBase64Url(p.body));
        const error = await failure(cipher.decrypt(join({ ...p, body }), CONN));
        expect(error.message).toBe("Unrecognised credential ciphertext.");
      }
    }
  });

  it("takes one spelling of each value: another base64 spelling of the same bytes is refused", async () => {
    const cipher = createCredentialCipher(SECRET_A);
    // Bodies of 16, 17 and 18 bytes: 4, 2 and 0 unused low bits in the last character.
    const sealed = await Promise.all(["", "a", "ab", TOKEN].map((value) => cipher.encrypt(value, CONN)));
    const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
    const twins: Record<string, string> = { "-": "+", _: "/" };
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...sealed),
        fc.constantFrom("iv" as const, "body" as const),
        fc.nat(),
        fc.integer({ min: 1, max: 63 }),
        async (value, field, at, delta) => {
          const p = split(value);
          const i = at % p[field].length;
          const char = p[field][i]!;
          const changed = alphabet[(alphabet.indexOf(char) + delta) % 64]!;
          const variant = p[field].slice(0, i) + changed + p[field].slice(i + 1);
          // The same bytes spelled otherwise (unused bits set), or other bytes: refused either way.
          await failure(cipher.decrypt(join({ ...p, [field]: variant }), CONN));
          if (twins[char]) {
            const twin = p[field].slice(0, i) + twins[char] + p[field].slice(i + 1);
            const error = await failure(cipher.decrypt(join({ ...p, [field]: twin }), CONN));
            expect(error.message).toBe("Unrecognised credential ciphertext.");
          }
        },
      ),
      { numRuns: 300 },
    );
  });
});
