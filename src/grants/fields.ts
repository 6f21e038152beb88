import { ToolsError } from "../core/errors.js";
import { type CredentialField, type GrantScheme, grantFields } from "../credentials/grant-schemes.js";

export { type CredentialField, grantFields };

/** Longest value of a typed field, in characters (a private key fits). */
export const MAX_FIELD_LENGTH = 16_384;

/**
 * The secrets kept for a grant mode, from what `POST /auth { credentials }` or the connect page
 * sent: every required field present and not blank, no field the mode does not take, no control
 * character. Errors name the field and never quote a value.
 */
export function grantSecrets(toolkitSlug: string, scheme: GrantScheme, given: Record<string, string> | undefined): Record<string, string> {
  const fields = grantFields(scheme);
  const shape = `{ ${fields.map((field) => `"${field.name}": "..."`).join(", ")} }`;
  const secrets: Record<string, string> = {};
  for (const name of Object.keys(given ?? {})) {
    if (!fields.some((field) => field.name === name)) {
      const takes = fields.length ? `it takes ${shape}` : "its client is the server's, so send no credentials";
      throw new ToolsError(
        "invalid_request",
        `credentials.${name} is not a field of toolkit "${toolkitSlug}"'s ${scheme.type} mode: ${takes}.`,
      );
    }
  }
  for (const field of fields) {
    const value = field.multiline ? (given?.[field.name] ?? "").trim() : (given?.[field.name] ?? "");
    if (value.trim() === "") {
      if (field.optional) continue;
      throw new ToolsError(
        "invalid_request",
        `Toolkit "${toolkitSlug}" connects with ${scheme.type}: send "credentials": ${shape} (${field.name} is missing).`,
      );
    }
    const control = field.multiline ? /[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]/ : /[\x00-\x08\x0a-\x1f\x7f]/;
    if (value.length > MAX_FIELD_LENGTH || control.test(value) || value !== value.trim()) {
      const shape = field.multiline ? "text without control characters" : "one line without surrounding whitespace";
      throw new ToolsError(
        "invalid_request",
        `credentials.${field.name} must be ${shape}, at most ${MAX_FIELD_LENGTH} characters. Check the value and send it again.`,
      );
    }
    secrets[field.name] = value;
  }
  return secrets;
}
