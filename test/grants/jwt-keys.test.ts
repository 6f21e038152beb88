import { createPrivateKey } from "node:crypto";
import { exportPKCS8, generateKeyPair, jwtVerify, SignJWT } from "jose";
import { beforeAll, describe, expect, it } from "vitest";
import { credentialSecrets } from "../../src/credentials/auth-schemes.js";
import { derLength, importRsaPrivateKey, PrivateKeyProblem, pkcs8Pem } from "../../src/grants/private-key.js";
import { readServiceAccountKey } from "../../src/grants/service-account.js";
import { keyFile, type TestKey, testKey } from "./jwt-emulation.js";

let key: TestKey;
beforeAll(async () => {
  key = await testKey();
});

/**
 * Every 8-character window of `text` with a run of 6 letters or digits, PEM framing lines aside
 * (the messages name them: "BEGIN PRIVATE KEY"): what an answer must not hold.
 */
function fragments(text: string): string[] {
  const windows = new Set<string>();
  const content = text.replace(/-----(BEGIN|END) [A-Z ]+-----/g, "\n");
  for (let i = 0; i + 8 <= content.length; i++) {
    const window = content.slice(i, i + 8);
    if (/[A-Za-z0-9+/]{6}/.test(window)) windows.add(window);
  }
  return [...windows];
}

/** Why a pasted key file is refused, checked to hold no fragment of what was pasted beyond the message's own words. */
async function refusal(pasted: string): Promise<string> {
  const error = await readServiceAccountKey(pasted).then(
    () => {
      throw new Error("accepted");
    },
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(PrivateKeyProblem);
  const message = (error as Error).message;
  expect(message.startsWith("The service account key")).toBe(true);
  // Words of the message itself ("service_account", "private_key") are allowed; nothing else of the input.
  const own = message.replace(/"[a-z_]+"/g, "");
  for (const fragment of fragments(pasted)) {
    if (own.includes(fragment)) throw new Error(`the answer echoes ${JSON.stringify(fragment)}: ${message}`);
  }
  return message;
}

describe("a pasted service account key file", () => {
  it("is read: client_email, private_key (imported), private_key_id and token_uri", async () => {
    const file = keyFile(key);
    const account = await readServiceAccountKey(file.text);
    expect(account).toMatchObject({
      clientEmail: file.email,
      privateKey: key.pem,
      privateKeyId: file.fields.private_key_id,
      tokenUri: "https://oauth2.googleapis.com/token",
    });
    expect(account.key.algorithm).toMatchObject({ name: "RSASSA-PKCS1-v1_5" });
    // Every secret of the credential is masked by redaction: the file, its PEM, and the PEM's body on one line.
    const secrets = credentialSecrets({ type: "jwtBearer", secrets: { serviceAccountKey: file.text }, accessToken: "ya29.x" });
    expect(secrets).toEqual(["ya29.x", file.text, key.pem, key.pem.replace(/-----[^-]+-----/g, "").replace(/\s/g, "")]);
  });

  const cases: Array<[string, () => string, RegExp]> = [
    ["not JSON", () => `not json ${key.pem}`, /is not JSON/],
    ["a bare key where the file goes", () => key.pem, /is not JSON/],
    ["a word where the file goes", () => "Kq7Zx93mWpRtY5", /is not JSON/],
    ["JSON with a stray word", () => `{"type": "service_account", Kq7Zx93mWp: 1}`, /is not JSON/],
    ["truncated JSON", () => keyFile(key).text.slice(0, 900), /is not JSON/],
    ["a JSON array", () => JSON.stringify([keyFile(key).fields]), /is not a key file/],
    ["JSON null", () => "null", /is not a key file/],
    ["another type of key file", () => keyFile(key, { type: "authorized_user" }).text, /"type" must be "service_account"/],
    ["no client_email", () => keyFile(key, { client_email: undefined }).text, /no usable "client_email"/],
    ["a client_email that is not an address", () => keyFile(key, { client_email: "sa-7b1c9f2e8d" }).text, /no usable "client_email"/],
    ["a token_uri over http", () => keyFile(key, { token_uri: "http://oauth2.googleapis.com/token" }).text, /no usable "token_uri"/],
    ["a token_uri that is no URL", () => keyFile(key, { token_uri: "oauth2-7b1c9f2e8d" }).text, /no usable "token_uri"/],
    ["no private_key", () => keyFile(key, { private_key: undefined }).text, /has no "private_key"/],
    ["a truncated private_key", () => keyFile(key, { private_key: key.pem.slice(0, 600) }).text, /is not an RSA private key in PEM/],
    ["a private_key cut inside its body", () => keyFile(key, { private_key: cutBody(key.pem) }).text, /could not be read/],
    ["a public key as private_key", () => keyFile(key, { private_key: publicPem(key) }).text, /is not an RSA private key in PEM/],
    ["an encrypted private_key", () => keyFile(key, { private_key: encryptedPem(key) }).text, /is encrypted/],
    [
      "a private_key that is not a key",
      () => keyFile(key, { private_key: "MIIEvQIBADANBgkqhkiG9w0BAQEFAASC" }).text,
      /is not an RSA private key/,
    ],
    ["a huge paste", () => keyFile(key, { padding: "A".repeat(20_000) }).text, /longer than any key file/],
  ];
  // A loop of plain tests rather than it.each, so that mutation testing's per-test coverage finds each.
  for (const [name, paste, expected] of cases) {
    it(`${name}: a 400 that says what is wrong and echoes nothing of it`, async () => {
      expect(await refusal(paste())).toMatch(expected);
    });
  }

  it("addresses and key ids are checked whole, not in part", async () => {
    for (const email of ["<sa@proj.iam.gserviceaccount.com", "sa@proj.iam.gserviceaccount.com>", "sa proj@x.com"]) {
      expect(await refusal(keyFile(key, { client_email: email }).text)).toMatch(/no usable "client_email"/);
    }
    for (const id of ["abc def", "abc!", "!abc"]) {
      expect((await readServiceAccountKey(keyFile(key, { private_key_id: id }).text)).privateKeyId).toBeUndefined();
    }
    expect((await readServiceAccountKey(keyFile(key, { private_key_id: 7 }).text)).privateKeyId).toBeUndefined();
  });

  it("a file of exactly the longest length is read; one character more is refused", async () => {
    const file = keyFile(key, { padding: "" }).text;
    const exact = file.replace('"padding": ""', `"padding": "${"p".repeat(16 * 1024 - file.length)}"`);
    expect(exact.length).toBe(16 * 1024);
    await expect(readServiceAccountKey(exact)).resolves.toMatchObject({ privateKey: key.pem });
    expect(await refusal(exact.replace('"padding": "', '"padding": "p'))).toMatch(/longer than any key file/);
  });

  it("an EC key as private_key: a 400 (RS256 needs RSA)", async () => {
    const { privateKey } = await generateKeyPair("ES256", { extractable: true });
    expect(await refusal(keyFile(key, { private_key: await exportPKCS8(privateKey) }).text)).toMatch(
      /could not be read as an RSA private key/,
    );
  });
});

describe("private keys", () => {
  it("a PKCS #1 key (GitHub's) is wrapped as PKCS #8 and signs what its public key verifies", async () => {
    const imported = await importRsaPrivateKey(key.pkcs1, "the key");
    const jwt = await new SignJWT({ n: 1 }).setProtectedHeader({ alg: "RS256" }).sign(imported);
    await expect(jwtVerify(jwt, key.publicKey)).resolves.toMatchObject({ payload: { n: 1 } });
    // The wrapping is the same DER node:crypto writes for the key as PKCS #8.
    const body = key.pkcs1.replace(/-----[^-]+-----/g, "");
    expect(pkcs8Pem(body)).toBe(createPrivateKey(key.pkcs1).export({ type: "pkcs8", format: "pem" }).toString().trim());
  });

  it("DER lengths: short form below 128, long form above", () => {
    expect(derLength(0)).toEqual([0]);
    expect(derLength(127)).toEqual([127]);
    expect(derLength(128)).toEqual([0x81, 128]);
    expect(derLength(255)).toEqual([0x81, 255]);
    expect(derLength(256)).toEqual([0x82, 1, 0]);
    expect(derLength(1190)).toEqual([0x82, 0x04, 0xa6]);
    expect(derLength(70000)).toEqual([0x83, 0x01, 0x11, 0x70]);
  });

  it("a key with surrounding whitespace is read; one that is not base64, or too long, is refused with a reason", async () => {
    await expect(importRsaPrivateKey(`\n  ${key.pem}\n\n`, "the key")).resolves.toBeDefined();
    await expect(importRsaPrivateKey("-----BEGIN RSA PRIVATE KEY-----\nA\n-----END RSA PRIVATE KEY-----", "the key")).rejects.toThrow(
      "the key is not an RSA private key in PEM",
    );
    await expect(importRsaPrivateKey(`${key.pem}${"\n".repeat(17 * 1024)}x`, "the key")).rejects.toThrow(
      "the key is longer than any RSA private key; check that it is the key alone.",
    );
  });

  it("an unreadable key's problem never quotes it", async () => {
    for (const pem of [
      key.pkcs1.slice(0, 500),
      cutBody(key.pkcs1),
      "-----BEGIN RSA PRIVATE KEY-----\n!!!!\n-----END RSA PRIVATE KEY-----",
      "x".repeat(20_000),
    ]) {
      const error = await importRsaPrivateKey(pem, "The app's key").catch((e: unknown) => e);
      expect(error).toBeInstanceOf(PrivateKeyProblem);
      for (const fragment of fragments(pem)) expect((error as Error).message).not.toContain(fragment);
    }
  });
});

/** The PEM with a stretch of its base64 body removed, framing kept. */
function cutBody(pem: string): string {
  const lines = pem.trim().split("\n");
  return [...lines.slice(0, 6), ...lines.slice(9)].join("\n");
}

function publicPem(test: TestKey): string {
  return createPrivateKey(test.pem)
    .export({ type: "pkcs8", format: "pem" })
    .toString()
    .replace(/PRIVATE/g, "PUBLIC");
}

function encryptedPem(test: TestKey): string {
  return createPrivateKey(test.pem).export({ type: "pkcs8", format: "pem", cipher: "aes-256-cbc", passphrase: "correct horse" }).toString();
}
