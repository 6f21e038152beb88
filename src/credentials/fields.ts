/**
 * The fields of a way to connect: the keys `POST /auth { credentials }` takes for it, listed by
 * `GET /toolkit/{slug}` as `authModes[].fields`, asked for by the connect page and the CLI. A new
 * scheme type adds its fields to `fieldsOf` and its credential to `credentialFromFields`; nothing
 * that shows or reads fields knows the types.
 */
import type { AuthScheme, Credential } from "./auth-schemes.js";
import type { SecretField } from "./placements.js";

/** What the fields of a way to connect depend on: its type, and the further secrets it declares (Datadog's `applicationKey`). */
type FieldsOwner = Pick<AuthScheme, "type"> & { fields?: SecretField[] };

/** One value a person types to connect. */
export interface CredentialField {
  /** The key in `credentials`, e.g. `apiKey`. */
  name: string;
  /** What a person is asked, e.g. "API key". */
  label: string;
  /** Whether it is a secret: never shown again, typed into a password field, read without echo. */
  secret: boolean;
  /** Whether it may be left out. */
  optional: boolean;
  /** Longest accepted value, in characters. */
  maxLength: number;
  /** Whether `POST /auth` takes an empty string (a Basic password some APIs leave empty); the connect page still asks for one. */
  mayBeEmpty?: boolean;
}

const field = (name: string, label: string, secret: boolean, maxLength: number, mayBeEmpty = false): CredentialField => ({
  name,
  label,
  secret,
  optional: false,
  maxLength,
  ...(mayBeEmpty ? { mayBeEmpty } : {}),
});

/** The fields of each way a person connects by typing, by scheme type; OAuth 2 and none take none. */
const FIELDS: Partial<Record<AuthScheme["type"], readonly CredentialField[]>> = {
  apiKey: [field("apiKey", "API key", true, 4096)],
  bearer: [field("token", "Access token", true, 8192)],
  basic: [field("username", "Username", false, 1024, true), field("password", "Password", true, 4096, true)],
};

/** What `POST /auth { credentials }` takes for this way to connect, in the order a person is asked. */
export function fieldsOf(scheme: FieldsOwner): CredentialField[] {
  const own = (FIELDS[scheme.type] ?? []).map((f) => ({ ...f }));
  // The further secrets a mode declares (src/credentials/placements.ts), each required.
  const further = (own.length ? (scheme.fields ?? []) : []).map((f) => field(f.name, f.label, f.secret !== false, 4096));
  return [...own, ...further];
}

/** The fields as `GET /toolkit/{slug}` lists them: `{ name, label, secret, optional }`. */
export function publicFields(scheme: FieldsOwner): Array<Pick<CredentialField, "name" | "label" | "secret" | "optional">> {
  return fieldsOf(scheme).map(({ name, label, secret, optional }) => ({ name, label, secret, optional }));
}

/** Why `credentials` do not fit the scheme's fields, as a sentence naming the key, or null. */
export function fieldsProblem(scheme: FieldsOwner, credentials: Record<string, string>): string | null {
  const fields = fieldsOf(scheme);
  const names = fields.map((f) => f.name);
  for (const key of Object.keys(credentials)) {
    if (!names.includes(key)) return `credentials.${key} is not a field of this way to connect (its fields: ${names.join(", ") || "none"})`;
  }
  for (const f of fields) {
    const value = credentials[f.name];
    if (value === undefined || (value === "" && !f.mayBeEmpty)) {
      if (f.optional) continue;
      return `credentials.${f.name} (${f.label}) is missing`;
    }
    if (value.length > f.maxLength) return `credentials.${f.name} (${f.label}) is longer than ${f.maxLength} characters`;
  }
  return null;
}

/**
 * The credential a scheme keeps from its fields' values (already checked by `fieldsProblem`), with
 * the mode id when it is not the type; null for a scheme without fields.
 */
export function credentialFromFields(
  scheme: Pick<AuthScheme, "type" | "mode"> & FieldsOwner,
  values: Record<string, string>,
): Credential | null {
  const extra = scheme.fields?.length ? { fields: Object.fromEntries(scheme.fields.map((f) => [f.name, values[f.name] ?? ""])) } : {};
  const mode = { ...(scheme.mode !== undefined && scheme.mode !== scheme.type ? { mode: scheme.mode } : {}), ...extra };
  const value = (name: string) => values[name] ?? "";
  switch (scheme.type) {
    case "apiKey":
      return { type: "apiKey", apiKey: value("apiKey"), ...mode };
    case "bearer":
      return { type: "bearer", token: value("token"), ...mode };
    case "basic":
      return { type: "basic", username: value("username"), password: value("password"), ...mode };
    default:
      return null;
  }
}
