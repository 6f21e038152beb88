/**
 * `importRsaPrivateKey` at its edges: surrounding whitespace, the length limit, the two spellings
 * of an encrypted PEM header, and text before or after the PEM block.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { importRsaPrivateKey, PrivateKeyProblem } from "../../src/grants/private-key.js";
import { type TestKey, testKey } from "./jwt-emulation.js";

let key: TestKey;
beforeAll(async () => {
  key = await testKey();
});

async function problem(pem: string): Promise<string> {
  const error = await importRsaPrivateKey(pem, "The key").then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(PrivateKeyProblem);
  return (error as Error).message;
}

describe("importRsaPrivateKey's edges", () => {
  it("whitespace around the key is ignored, in both forms", async () => {
    for (const pem of [key.pem, key.pkcs1]) expect((await importRsaPrivateKey(`\n  ${pem}  \n`, "The key")).type).toBe("private");
  });

  it("the longest text is judged on its form; one character more is refused for its length", async () => {
    expect(await problem("x".repeat(16 * 1024))).toContain("is not an RSA private key in PEM");
    expect(await problem("x".repeat(16 * 1024 + 1))).toBe("The key is longer than any RSA private key; check that it is the key alone.");
  });

  it("an encrypted PKCS #1 header, with or without a space after Proc-Type:", async () => {
    for (const header of ["Proc-Type:4,ENCRYPTED", "Proc-Type: 4,ENCRYPTED"]) {
      const pem = key.pkcs1.replace("-----\n", `-----\n${header}\nDEK-Info: AES-128-CBC,00\n\n`);
      expect(await problem(pem)).toContain("is encrypted with a passphrase");
    }
  });

  it("text before or after the PEM block is refused, in both forms", async () => {
    for (const pem of [key.pem, key.pkcs1]) {
      expect(await problem(`my key: ${pem}`)).toContain("is not an RSA private key in PEM");
      expect(await problem(`${pem.trim()} and more`)).toContain("is not an RSA private key in PEM");
      expect(await problem(`${pem.trim()}x`)).toContain("is not an RSA private key in PEM");
    }
  });

  it("a PKCS #1 block with no key in it is not a key in PEM", async () => {
    expect(await problem("-----BEGIN RSA PRIVATE KEY-----\n====\n-----END RSA PRIVATE KEY-----")).toContain(
      "is not an RSA private key in PEM",
    );
    expect(await problem("-----BEGIN RSA PRIVATE KEY-----\n\n\n-----END RSA PRIVATE KEY-----")).toContain(
      "is not an RSA private key in PEM",
    );
  });
});
