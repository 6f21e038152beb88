import { ToolsError } from "../core/errors.js";
import type { AppInstallationScheme, ExchangeField, GrantScheme, JwtBearerScheme } from "./grant-schemes.js";

/** A key of `POST /auth { credentials }` for a grant mode, as `GET /toolkit/{slug}` lists it in `authModes[].fields` (see `fieldsOf`). */
export interface GrantField {
  name: string;
  label: string;
  secret: boolean;
  optional: boolean;
  /** Several lines (a pasted key file): line breaks and surrounding whitespace are kept out of the check, and trimmed. */
  multiline?: boolean;
}

/** Longest value of a typed field, in characters (a private key fits). */
export const MAX_FIELD_LENGTH = 16_384;

/** What a person types to connect with a grant mode (nothing, when the deployer holds the client). */
export function grantFields(scheme: GrantScheme): GrantField[] {
  switch (scheme.type) {
    case "clientCredentials": {
      const client: GrantField[] = [
        { name: "clientId", label: "Client ID", secret: false, optional: false },
        { name: "clientSecret", label: "Client secret", secret: true, optional: false },
      ];
      return [...(scheme.client === "deployer" ? [] : client), ...typedFields(scheme.fields ?? [])];
    }
    case "tokenExchange":
      return typedFields(scheme.fields);
    case "jwtBearer":
      return jwtBearerFields(scheme);
    case "appInstallation":
      return appInstallationFields(scheme);
  }
}

function typedFields(fields: ExchangeField[]): GrantField[] {
  return fields.map((field) => ({ name: field.name, label: field.label, secret: field.secret ?? true, optional: field.optional ?? false }));
}

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

/**
 * The fields a JWT bearer mode takes (`POST /auth { credentials }`, the connect page): the pasted
 * key file for a service account (several lines, as Google writes it), then the subject when the
 * mode names one.
 */
export function jwtBearerFields(scheme: JwtBearerScheme): GrantField[] {
  const fields: GrantField[] = [];
  if (scheme.signer === "serviceAccount") {
    fields.push({ name: "serviceAccountKey", label: "Service account key (JSON)", secret: true, optional: false, multiline: true });
  }
  if (scheme.subject)
    fields.push({ name: "subject", label: scheme.subject.label, secret: false, optional: scheme.subject.optional === true });
  return fields;
}

/** The field an app installation mode takes: which installation of the deployer's app. */
export function appInstallationFields(_scheme: AppInstallationScheme): GrantField[] {
  return [{ name: "installationId", label: "Installation id", secret: false, optional: false }];
}
