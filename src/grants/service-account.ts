import { importRsaPrivateKey, PrivateKeyProblem } from "./private-key.js";

/** The fields of a Google service account key file that sign. */
export interface ServiceAccount {
  clientEmail: string;
  privateKey: string;
  privateKeyId?: string;
  tokenUri: string;
  /** `privateKey` imported for RS256. */
  key: CryptoKey;
}

/** Larger than any key file Google gives (about 2.4 KB); a longer paste is refused before it is parsed. */
export const MAX_KEY_FILE_LENGTH = 16 * 1024;

const EMAIL = /^[^\s@"<>()[\]\\,;:]{1,128}@[A-Za-z0-9.-]{1,190}$/;
const KEY_ID = /^[A-Za-z0-9_-]{1,128}$/;

/**
 * Reads a Google service account key file as a person pasted it (the JSON the Google Cloud console
 * downloads: https://cloud.google.com/iam/docs/keys-create-delete): `type` must be
 * `service_account`, `client_email` an address, `private_key` an RSA key jose imports for RS256
 * (returned imported), `token_uri` an https URL. A file that is not one throws a `PrivateKeyProblem` whose
 * message says what is wrong and never quotes the file, not even its field values.
 */
export async function readServiceAccountKey(text: string): Promise<ServiceAccount> {
  const what = "The service account key";
  if (text.length > MAX_KEY_FILE_LENGTH) {
    throw new PrivateKeyProblem(`${what} is longer than any key file Google gives; paste the JSON key file alone.`);
  }
  let file: unknown;
  try {
    file = JSON.parse(text);
  } catch {
    // JSON.parse's own message quotes the text around the error: never pass it on.
    throw new PrivateKeyProblem(`${what} is not JSON: paste the whole key file you downloaded, from { to }.`);
  }
  if (file === null || typeof file !== "object" || Array.isArray(file)) {
    throw new PrivateKeyProblem(`${what} is not a key file: paste the JSON object you downloaded, from { to }.`);
  }
  const fields = file as Record<string, unknown>;
  if (fields.type !== "service_account") {
    throw new PrivateKeyProblem(`${what} is not a service account key file: its "type" must be "service_account".`);
  }
  if (typeof fields.client_email !== "string" || !EMAIL.test(fields.client_email)) {
    throw new PrivateKeyProblem(`${what} has no usable "client_email": the service account's address.`);
  }
  if (typeof fields.token_uri !== "string" || !isHttpsUrl(fields.token_uri)) {
    throw new PrivateKeyProblem(`${what} has no usable "token_uri": it must be an https URL.`);
  }
  if (typeof fields.private_key !== "string") throw new PrivateKeyProblem(`${what} has no "private_key".`);
  const key = await importRsaPrivateKey(fields.private_key, `${what}'s "private_key"`);
  const keyId = typeof fields.private_key_id === "string" && KEY_ID.test(fields.private_key_id) ? fields.private_key_id : undefined;
  return {
    clientEmail: fields.client_email,
    privateKey: fields.private_key,
    ...(keyId ? { privateKeyId: keyId } : {}),
    tokenUri: fields.token_uri,
    key,
  };
}

function isHttpsUrl(value: string): boolean {
  if (!URL.canParse(value)) return false;
  const url = new URL(value);
  return url.protocol === "https:" && !url.username && !url.password && !url.hash;
}
