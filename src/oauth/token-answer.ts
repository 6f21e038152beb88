import type { OAuth2Scheme } from "../credentials/auth-schemes.js";
import { BodyTooLargeError, readBytes } from "../util/bytes.js";
import { readPath } from "./values.js";

/** The token endpoint's answer as the provider sent it, kept for the values read from it (Slack's `team.id`). */
export interface TokenAnswer {
  raw: Record<string, unknown> | null;
}

/** The token answers this reads at most: a token endpoint has no reason to send more. */
const MAX_ANSWER_BYTES = 1024 * 1024;

/**
 * Makes a token endpoint's answer what RFC 6749 (5.1, 5.2) says, so that oauth4webapi can read
 * the answers real providers send:
 * - a form-encoded body (GitHub without `Accept: application/json`) is read as fields;
 * - an error sent with a 2xx status (Slack's `{ ok: false, error }`, GitHub's `error` with 200)
 *   becomes a 400 with `error`;
 * - a refusal in a provider's own error shape, without RFC 6749's `error` but with a string
 *   `code` (Notion's `{ object: "error", status, code, message }`), is read as `error: code` and
 *   `error_description: message`, so that `invalid_grant` is recognised;
 * - the tokens under `tokensAt` (Slack's user token under `authed_user`) are lifted to the top;
 * - `expires_in` sent as a string becomes a number, and `expires_in: 0` or `scope: null`
 *   (Mailchimp's never-expiring tokens) are left out; a `token_type` other than bearer or DPoP
 *   (Slack's `bot` and `user`), or none, becomes `bearer`: the token is sent the way the scheme's
 *   placement says, whatever the provider calls it.
 * The answer as sent is kept in `answer.raw`. Anything else (an HTML error page) is left as it is.
 */
export async function normalizeTokenAnswer(response: Response, scheme: OAuth2Scheme, answer: TokenAnswer): Promise<Response> {
  const text = await readCapped(response);
  if (text === null) return new Response(null, { status: 502 });
  const fields = parseFields(text, response.headers.get("content-type") ?? "");
  if (!fields) return new Response(text, { status: response.status, headers: response.headers });
  answer.raw = fields;
  const failed = fields.ok === false || typeof fields.error === "string";
  if (response.ok && failed) {
    const error = typeof fields.error === "string" && fields.error ? fields.error : "invalid_request";
    const description = typeof fields.error_description === "string" ? { error_description: fields.error_description } : {};
    return jsonAnswer(400, { error, ...description });
  }
  // A refusal keeps its headers: oauth4webapi reads a 401's WWW-Authenticate challenge.
  if (!response.ok) return jsonAnswer(response.status, asRfcError(fields), response.headers);
  const nested = scheme.tokensAt ? readPath(fields, scheme.tokensAt) : undefined;
  const tokens: Record<string, unknown> =
    nested !== null && typeof nested === "object" && !Array.isArray(nested) ? { ...(nested as Record<string, unknown>) } : { ...fields };
  // A list of scopes (some providers send one) is read as RFC 6749's space-separated string.
  if (Array.isArray(tokens.scope) && tokens.scope.every((scope) => typeof scope === "string")) tokens.scope = tokens.scope.join(" ");
  if (typeof tokens.expires_in === "string" && /^\d+$/.test(tokens.expires_in)) tokens.expires_in = Number(tokens.expires_in);
  // Mailchimp's tokens never expire, and it says so with `expires_in: 0` and `scope: null`: a
  // lifetime of zero seconds is no lifetime, and a null scope no scope.
  if (tokens.expires_in === null || tokens.expires_in === "" || tokens.expires_in === 0) delete tokens.expires_in;
  if (tokens.scope === null) delete tokens.scope;
  const type = typeof tokens.token_type === "string" ? tokens.token_type.toLowerCase() : "";
  if (type !== "bearer" && type !== "dpop") tokens.token_type = "bearer";
  return jsonAnswer(response.status, tokens);
}

/** A refusal without RFC 6749's `error` but with a string `code` (Notion's error object) gets `error` and `error_description` from it. */
function asRfcError(fields: Record<string, unknown>): Record<string, unknown> {
  if (typeof fields.error === "string" || typeof fields.code !== "string" || !fields.code) return fields;
  const description = typeof fields.message === "string" ? { error_description: fields.message } : {};
  return { ...fields, error: fields.code, ...description };
}

function parseFields(text: string, contentType: string): Record<string, unknown> | null {
  const type = contentType.split(";")[0]!.trim().toLowerCase();
  if (type === "application/x-www-form-urlencoded" || (type === "text/plain" && /^[\w.-]+=/.test(text))) {
    return Object.fromEntries(new URLSearchParams(text));
  }
  try {
    const value = JSON.parse(text) as unknown;
    return value !== null && typeof value === "object" && !Array.isArray(value) ? (value as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

async function readCapped(response: Response): Promise<string | null> {
  try {
    return new TextDecoder().decode(await readBytes(response.body, MAX_ANSWER_BYTES));
  } catch (error) {
    if (error instanceof BodyTooLargeError) return null;
    throw error;
  }
}

function jsonAnswer(status: number, body: Record<string, unknown>, from?: Headers): Response {
  const headers = new Headers(from);
  headers.delete("content-length");
  headers.delete("content-encoding");
  headers.set("content-type", "application/json");
  return new Response(JSON.stringify(body), { status, headers });
}
