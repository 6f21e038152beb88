import { ToolsError } from "../core/errors.js";
import type {
  AppInstallationCredential,
  AppInstallationScheme,
  JwtBearerCredential,
  JwtBearerScheme,
} from "../credentials/auth-schemes.js";
import { INSTALLATION_ID, installationIdProblem } from "./app-installation.js";
import { PrivateKeyProblem } from "./private-key.js";
import { MAX_KEY_FILE_LENGTH, readServiceAccountKey } from "./service-account.js";

/** One key of `POST /auth { credentials }` for a mode, as `fieldsOf(scheme)` lists them. */
export interface GrantField {
  name: string;
  label: string;
  secret: boolean;
  optional: boolean;
  /** Longest accepted value, in characters. */
  max: number;
}

/** What a subject (a user's address, a Salesforce username) may be: printable, no spaces. */
const SUBJECT = /^[\x21-\x7e]{1,256}$/;

/** The keys a JWT bearer mode takes: the key file for a service account, then the subject when the mode has one. */
export function jwtBearerFields(scheme: JwtBearerScheme): GrantField[] {
  const fields: GrantField[] = [];
  if (scheme.signer === "serviceAccount") {
    fields.push({
      name: "serviceAccountKey",
      label: "Service account key (JSON)",
      secret: true,
      optional: false,
      max: MAX_KEY_FILE_LENGTH,
    });
  }
  if (scheme.subject) {
    fields.push({ name: "subject", label: scheme.subject.label, secret: false, optional: scheme.subject.optional === true, max: 256 });
  }
  return fields;
}

/** The key an app installation mode takes: which installation of the deployer's app. */
export const appInstallationFields: GrantField[] = [
  { name: "installationId", label: "Installation id", secret: false, optional: false, max: 20 },
];

/**
 * The credential of a new JWT bearer or app installation connection from what a caller sent
 * (`POST /auth { credentials }`, or the connect page's form), checked: a service account key
 * file is read and its key imported, a subject and an installation id have their shape. Throws a
 * 400 that names the field and never quotes its value. Fields the mode does not take are refused.
 */
export async function grantCredential(
  scheme: JwtBearerScheme | AppInstallationScheme,
  values: Record<string, string | undefined>,
  toolkit: string,
): Promise<JwtBearerCredential | AppInstallationCredential> {
  const fields = scheme.type === "jwtBearer" ? jwtBearerFields(scheme) : appInstallationFields;
  const known = new Set(fields.map((field) => field.name));
  const unknown = Object.keys(values).filter((name) => values[name] !== undefined && !known.has(name));
  if (unknown.length) {
    const wanted = fields.map((field) => field.name).join(", ") || "none";
    throw new ToolsError(
      "invalid_request",
      `credentials.${unknown[0]} is not taken by ${toolkit}'s ${scheme.type} mode (it takes: ${wanted}); remove it.`,
    );
  }
  for (const field of fields) {
    const value = values[field.name];
    if ((value === undefined || value === "") && !field.optional) {
      throw new ToolsError(
        "invalid_request",
        `${toolkit} connects with ${scheme.type}: send "credentials": { "${field.name}": "..." } (${field.label}).`,
      );
    }
  }
  if (scheme.type === "appInstallation") {
    const installationId = values.installationId!.trim();
    if (!INSTALLATION_ID.test(installationId)) throw new ToolsError("invalid_request", installationIdProblem);
    return { type: "appInstallation", installationId };
  }
  const subject = values.subject?.trim() || undefined;
  if (subject !== undefined && !SUBJECT.test(subject)) {
    throw new ToolsError(
      "invalid_request",
      `credentials.subject must be printable, without spaces, at most 256 characters (${scheme.subject?.label}).`,
    );
  }
  const credential: JwtBearerCredential = { type: "jwtBearer", ...(subject ? { subject } : {}) };
  if (scheme.signer !== "serviceAccount") return credential;
  try {
    credential.serviceAccount = await readServiceAccountKey(values.serviceAccountKey!.trim());
  } catch (error) {
    if (error instanceof PrivateKeyProblem) throw new ToolsError("invalid_request", `credentials.serviceAccountKey: ${error.message}`);
    throw error;
  }
  return credential;
}

/** Who the connection acts as, for its `remoteUser`: the subject, else the service account, else the installation. */
export function grantRemoteUser(credential: JwtBearerCredential | AppInstallationCredential): string {
  if (credential.type === "appInstallation") return `installation ${credential.installationId}`;
  return credential.subject ?? credential.serviceAccount?.clientEmail ?? "";
}
