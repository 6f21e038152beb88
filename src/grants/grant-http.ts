import type { HandlerContext } from "../context/context.js";
import { ToolsError } from "../core/errors.js";
import { readBytes } from "../util/bytes.js";

/** The largest token answer read. */
const MAX_ANSWER_BYTES = 64 * 1024;
/** A token request's own timeout, at most. */
const GRANT_REQUEST_MS = 20_000;

/** What a grant's token request is about, for its sentences and its redaction. */
export interface GrantCall {
  /** The provider, as a person knows it ("Google Drive"). */
  provider: string;
  /** Secrets the request carried (the assertion, the app JWT): never in a message or a log line. */
  secrets: string[];
}

/**
 * Sends a grant's token request and reads its JSON answer. A provider that cannot be reached, or
 * answers 429 or 5xx, is `unavailable` (503, retry shortly); one that answers another 4xx refused
 * the grant: `invalid_request` with the provider's own `error` and description (GitHub's
 * `message`), cut short and without the request's secrets. Redirects are not followed.
 */
export async function requestGrant(
  ctx: Pick<HandlerContext, "fetch" | "logger">,
  url: string,
  init: { method: "POST"; headers: HeadersInit; body?: string },
  call: GrantCall,
  signal: AbortSignal,
): Promise<Record<string, unknown>> {
  let response: Response;
  try {
    response = await ctx.fetch(url, {
      ...init,
      redirect: "manual",
      signal: AbortSignal.any([signal, AbortSignal.timeout(GRANT_REQUEST_MS)]),
    });
  } catch (error) {
    ctx.logger.log("warn", "grant token request failed", { provider: call.provider, error }, call.secrets);
    throw new ToolsError("unavailable", `${call.provider}'s token endpoint could not be reached; retry shortly.`, { retryAfter: 5 });
  }
  const answer = await readAnswer(response);
  if (response.status === 429 || response.status >= 500 || (response.status >= 300 && response.status < 400)) {
    ctx.logger.log("warn", "grant token request answered an error", { provider: call.provider, status: response.status }, call.secrets);
    throw new ToolsError("unavailable", `${call.provider}'s token endpoint answered ${response.status}; retry shortly.`, { retryAfter: 5 });
  }
  if (!response.ok) {
    throw new ToolsError("invalid_request", `${call.provider} refused the token request${refusal(answer, call.secrets)}. ${REFUSED_HINT}`);
  }
  if (answer === undefined) {
    throw new ToolsError("unavailable", `${call.provider}'s token endpoint answered something other than a JSON object; retry shortly.`, {
      retryAfter: 5,
    });
  }
  return answer;
}

const REFUSED_HINT = "Check the key, the account and what it may access, then connect again.";

/** The answer's JSON object, or undefined when it is not one (or too large to be a token answer). */
async function readAnswer(response: Response): Promise<Record<string, unknown> | undefined> {
  try {
    const value: unknown = JSON.parse(new TextDecoder().decode(await readBytes(response.body, MAX_ANSWER_BYTES)));
    return value !== null && typeof value === "object" && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

/** ` (invalid_grant: Invalid JWT Signature.)`: the provider's reason, printable, short, without secrets. */
function refusal(answer: Record<string, unknown> | undefined, secrets: string[]): string {
  const words = [answer?.error, answer?.error_description ?? answer?.message]
    .filter((word): word is string => typeof word === "string" && word !== "")
    .map((word) => clean(word, secrets));
  return words.length ? ` (${words.join(": ")})` : "";
}

function clean(text: string, secrets: string[]): string {
  let safe = text.replace(/[^\x20-\x7e]/g, " ").slice(0, 200);
  for (const secret of secrets) if (secret) safe = safe.replaceAll(secret, "[redacted]");
  return safe;
}

/**
 * The value of a token answer's field that must be a non-empty string (`access_token`, GitHub's
 * `token`); a missing one fails the connection with a sentence naming it.
 */
export function answerToken(answer: Record<string, unknown>, field: string, provider: string): string {
  const value = answer[field];
  if (typeof value !== "string" || value === "") {
    throw new ToolsError("invalid_request", `${provider}'s token answer has no "${field}", so no token could be kept. ${REFUSED_HINT}`);
  }
  return value;
}
