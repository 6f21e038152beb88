import type { AppInstallationScheme, JwtBearerScheme } from "../credentials/grant-schemes.js";
import type { CredentialField } from "./fields.js";

/**
 * The fields a JWT bearer mode takes (`POST /auth { credentials }`, the connect page): the pasted
 * key file for a service account (several lines, as Google writes it), then the subject when the
 * mode names one.
 */
export function jwtBearerFields(scheme: JwtBearerScheme): CredentialField[] {
  const fields: CredentialField[] = [];
  if (scheme.signer === "serviceAccount") {
    fields.push({ name: "serviceAccountKey", label: "Service account key (JSON)", secret: true, optional: false, multiline: true });
  }
  if (scheme.subject)
    fields.push({ name: "subject", label: scheme.subject.label, secret: false, optional: scheme.subject.optional === true });
  return fields;
}

/** The field an app installation mode takes: which installation of the deployer's app. */
export function appInstallationFields(_scheme: AppInstallationScheme): CredentialField[] {
  return [{ name: "installationId", label: "Installation id", secret: false, optional: false }];
}
