/**
 * `readServiceAccountKey` at its edges: the length limit, JSON that is not an object, fields of the
 * wrong type that would read as text, addresses and key ids with something before or after them.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { PrivateKeyProblem } from "../../src/grants/private-key.js";
import { MAX_KEY_FILE_LENGTH, readServiceAccountKey } from "../../src/grants/service-account.js";
import { keyFile, type TestKey, testKey } from "./jwt-emulation.js";

let key: TestKey;
beforeAll(async () => {
  key = await testKey();
});

async function problem(text: string): Promise<string> {
  const error = await readServiceAccountKey(text).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(PrivateKeyProblem);
  return (error as Error).message;
}

describe("readServiceAccountKey's edges", () => {
  it("a file of exactly the longest length is read; one character more is refused", async () => {
    const { text } = keyFile(key);
    const padded = text.padEnd(MAX_KEY_FILE_LENGTH, " ");
    expect((await readServiceAccountKey(padded)).tokenUri).toBe("https://oauth2.googleapis.com/token");
    expect(await problem(`${padded} `)).toContain("longer than any key file");
  });

  it("JSON that is not an object: null, a list, a number", async () => {
    for (const text of ["null", "[]", "7"]) expect(await problem(text)).toContain("is not a key file");
  });

  it("an address or token URL given as a list (which would read as text) is refused", async () => {
    expect(await problem(keyFile(key, { client_email: ["sa@proj.iam.gserviceaccount.com"] }).text)).toContain('"client_email"');
    expect(await problem(keyFile(key, { token_uri: ["https://oauth2.googleapis.com/token"] }).text)).toContain('"token_uri"');
  });

  it("an address with something before or after it is refused", async () => {
    for (const email of ["bad<sa@proj.iam.gserviceaccount.com", "sa@proj.iam.gserviceaccount.com/x"]) {
      expect(await problem(keyFile(key, { client_email: email }).text)).toContain('"client_email"');
    }
  });

  it("a key id is kept only when it is one: not a number, not text with a space", async () => {
    expect((await readServiceAccountKey(keyFile(key, { private_key_id: "abc_123-x" }).text)).privateKeyId).toBe("abc_123-x");
    for (const id of [123, "ab cd"]) {
      const account = await readServiceAccountKey(keyFile(key, { private_key_id: id }).text);
      expect("privateKeyId" in account).toBe(false);
    }
  });
});
