/**
 * `fieldsOf(scheme)`: the keys `POST /auth { credentials }` takes for each way to connect, the
 * names kept identical to those the API always took (`apiKey`, `token`, `username`/`password`),
 * and the checks and credential that the route, the connect page and the CLI share.
 */
import { describe, expect, it } from "vitest";
import { apiKey, basic, bearer, none, oauth2 } from "../../src/credentials/auth-schemes.js";
import { credentialFromFields, fieldsOf, fieldsProblem, publicFields } from "../../src/credentials/fields.js";

const oauth = oauth2({ authorizationUrl: "https://a.test/authorize", tokenUrl: "https://a.test/token", clientId: "c" });
const key = apiKey({ in: "header", name: "x-key" });

describe("fieldsOf", () => {
  it("names each type's fields as POST /auth always took them", () => {
    expect(fieldsOf(key)).toEqual([{ name: "apiKey", label: "API key", secret: true, optional: false, maxLength: 4096 }]);
    expect(fieldsOf(bearer())).toEqual([{ name: "token", label: "Access token", secret: true, optional: false, maxLength: 8192 }]);
    expect(fieldsOf(basic())).toEqual([
      { name: "username", label: "Username", secret: false, optional: false, maxLength: 1024, mayBeEmpty: true },
      { name: "password", label: "Password", secret: true, optional: false, maxLength: 4096, mayBeEmpty: true },
    ]);
    expect(fieldsOf(oauth)).toEqual([]);
    expect(fieldsOf(none())).toEqual([]);
  });

  it("hands out copies: changing one changes no later answer", () => {
    fieldsOf(key)[0]!.label = "changed";
    expect(fieldsOf(key)[0]!.label).toBe("API key");
  });

  it("publicFields keeps name, label, secret and optional only", () => {
    expect(publicFields(basic())).toEqual([
      { name: "username", label: "Username", secret: false, optional: false },
      { name: "password", label: "Password", secret: true, optional: false },
    ]);
    expect(publicFields(oauth)).toEqual([]);
  });
});

describe("fieldsProblem", () => {
  it("accepts exactly the fields, each within its length", () => {
    expect(fieldsProblem(key, { apiKey: "k" })).toBeNull();
    expect(fieldsProblem(key, { apiKey: "k".repeat(4096) })).toBeNull();
    expect(fieldsProblem(bearer(), { token: "t".repeat(8192) })).toBeNull();
    expect(fieldsProblem(basic(), { username: "u", password: "p" })).toBeNull();
  });

  it("names an unknown key and lists the fields", () => {
    expect(fieldsProblem(key, { apiKey: "k", extra: "x" })).toBe(
      "credentials.extra is not a field of this way to connect (its fields: apiKey)",
    );
    expect(fieldsProblem(oauth, { token: "t" })).toBe("credentials.token is not a field of this way to connect (its fields: none)");
  });

  it("names a missing or empty field, except where the field may be empty", () => {
    expect(fieldsProblem(key, {})).toBe("credentials.apiKey (API key) is missing");
    expect(fieldsProblem(key, { apiKey: "" })).toBe("credentials.apiKey (API key) is missing");
    expect(fieldsProblem(basic(), { username: "u" })).toBe("credentials.password (Password) is missing");
    // A Basic password may be empty (an API key as the username, nothing after the colon).
    expect(fieldsProblem(basic(), { username: "key", password: "" })).toBeNull();
    expect(fieldsProblem(basic(), { username: "", password: "p" })).toBeNull();
  });

  it("names a value longer than its field takes", () => {
    expect(fieldsProblem(key, { apiKey: "k".repeat(4097) })).toBe("credentials.apiKey (API key) is longer than 4096 characters");
    expect(fieldsProblem(basic(), { username: "u".repeat(1025), password: "p" })).toBe(
      "credentials.username (Username) is longer than 1024 characters",
    );
  });
});

describe("credentialFromFields", () => {
  it("makes each type's credential, with the mode id only when it is not the type", () => {
    expect(credentialFromFields(key, { apiKey: "k" })).toStrictEqual({ type: "apiKey", apiKey: "k" });
    expect(credentialFromFields(bearer(), { token: "t" })).toStrictEqual({ type: "bearer", token: "t" });
    expect(credentialFromFields(basic(), { username: "u", password: "p" })).toStrictEqual({ type: "basic", username: "u", password: "p" });
    expect(credentialFromFields(basic(), { username: "u" })).toStrictEqual({ type: "basic", username: "u", password: "" });
    expect(credentialFromFields(apiKey({ in: "query", name: "k", mode: "queryKey" }), { apiKey: "k" })).toStrictEqual({
      type: "apiKey",
      apiKey: "k",
      mode: "queryKey",
    });
    expect(credentialFromFields(bearer({ mode: "bearer" }), { token: "t" })).toStrictEqual({ type: "bearer", token: "t" });
    expect(credentialFromFields(oauth, {})).toBeNull();
    expect(credentialFromFields(none(), {})).toBeNull();
  });
});
