import { readPath } from "../oauth/values.js";
import { BodyTooLargeError, readBytes } from "../util/bytes.js";
import { GrantError, type GrantRequest } from "./grant.js";

/** The largest token answer read. */
const MAX_ANSWER_BYTES = 256 * 1024;

/** One token request: where, how, with what. */
export interface TokenCall {
  url: string;
  method?: string;
  headers: Record<string, string>;
  body?: string;
}

/**
 * Makes a grant's token request and returns its JSON answer. A 4xx answer is the provider refusing
 * what it was given: a `GrantError("refused")` with the provider's own sentence (its
 * `error_description`, `error` or `message`), secrets removed. Anything else that is not a JSON
 * answer of 2xx throws a plain error (the provider is unwell: try again).
 */
export async function requestToken(
  request: Pick<GrantRequest, "ctx" | "toolkit" | "credential" | "signal">,
  call: TokenCall,
): Promise<unknown> {
  const { ctx, toolkit } = request;
  const response = await ctx.fetch(call.url, {
    method: call.method ?? "POST",
    headers: call.headers,
    ...(call.body === undefined ? {} : { body: call.body }),
    redirect: "manual",
    signal: request.signal,
  });
  let answer: unknown;
  try {
    answer = JSON.parse(new TextDecoder().decode(await readBytes(response.body, MAX_ANSWER_BYTES)));
  } catch (error) {
    if (!(error instanceof BodyTooLargeError || error instanceof SyntaxError)) throw error;
  }
  if (response.status >= 400 && response.status < 500) {
    const said = providerSentence(answer, Object.values(request.credential));
    throw new GrantError(
      "refused",
      `${toolkit.name} refused the credentials (${response.status}${said ? `: ${said}` : ""}). Check them and connect again.`,
    );
  }
  if (!response.ok || answer === undefined) {
    throw new Error(`${toolkit.name}'s token endpoint answered ${response.status} without a JSON token answer.`);
  }
  return answer;
}

/** Longest provider sentence quoted. */
const MAX_SENTENCE = 200;

/** What the provider said about a refusal, in one line, without any of `secrets`. */
export function providerSentence(answer: unknown, secrets: string[]): string | undefined {
  const candidates = [
    "error_description",
    "error.message",
    "error.detail",
    "errorMessage",
    "message",
    "error",
    "errors.0.message",
    "reason",
  ];
  for (const path of candidates) {
    const value = readPath(answer, path);
    if (typeof value !== "string" || value.trim() === "") continue;
    let sentence = value.replace(/[\x00-\x1f\x7f]+/g, " ").trim();
    for (const secret of secrets) if (secret.length >= 4) sentence = sentence.replaceAll(secret, "[redacted]");
    return sentence.length > MAX_SENTENCE ? `${sentence.slice(0, MAX_SENTENCE - 1)}…` : sentence;
  }
  return undefined;
}

/** Where a token answer holds the token and its lifetime. */
export interface TokenPaths {
  token: string;
  expiresIn?: string;
  expiresAt?: string;
}

/**
 * Reads the token and its lifetime at the declared paths. A token that is not a non-empty string,
 * or a declared lifetime that is not a number of seconds (or an expiry that is not a date), is a
 * `GrantError("answer")` naming the field; a lifetime not declared is left undefined.
 */
export function readToken(toolkit: { name: string }, answer: unknown, paths: TokenPaths): { accessToken: string; expiresIn?: number } {
  const token = readPath(answer, paths.token);
  if (typeof token !== "string" || token === "") throw missing(toolkit, paths.token, "the access token");
  if (paths.expiresIn !== undefined) {
    const raw = readPath(answer, paths.expiresIn);
    const seconds = typeof raw === "string" && /^\d+$/.test(raw) ? Number(raw) : raw;
    if (typeof seconds !== "number" || !Number.isFinite(seconds) || seconds < 0) {
      throw missing(toolkit, paths.expiresIn, "the token's lifetime in seconds");
    }
    return { accessToken: token, expiresIn: Math.floor(seconds) };
  }
  if (paths.expiresAt !== undefined) {
    const raw = readPath(answer, paths.expiresAt);
    const at = typeof raw === "number" ? raw * 1000 : typeof raw === "string" ? Date.parse(raw) : Number.NaN;
    if (!Number.isFinite(at)) throw missing(toolkit, paths.expiresAt, "the token's expiry");
    return { accessToken: token, expiresIn: Math.max(0, Math.floor((at - Date.now()) / 1000)) };
  }
  return { accessToken: token };
}

function missing(toolkit: { name: string }, path: string, what: string): GrantError {
  return new GrantError("answer", `${toolkit.name}'s token answer has no usable "${path}" (${what}), so no token could be kept.`);
}
