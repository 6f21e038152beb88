import { ToolsClientError } from "./errors.js";

/** Error bodies are small; the client reads at most this much of one. */
const MAX_ERROR_BODY = 64 * 1024;

/** What reading an answer needs to word its errors. */
export interface AnswerContext {
  baseUrl: string;
  /** Removes the API key from a message. */
  redact(text: string): string;
}

/**
 * Resolves with a 2xx answer. Otherwise throws a ToolsClientError: with the server's `code`,
 * message and status when the body is the Tools API's `{ error, code }`, else `unexpected_response`.
 */
export async function checkAnswer(response: Response, ctx: AnswerContext): Promise<Response> {
  if (response.ok) return response;
  const text = await readCapped(response);
  const body = parseJson(text) as { error?: unknown; code?: unknown } | null;
  if (body && typeof body.error === "string" && typeof body.code === "string") {
    const retryAfter = parseRetryAfter(response.headers.get("retry-after"));
    throw new ToolsClientError(body.code as ToolsClientError["code"], ctx.redact(body.error), { status: response.status, retryAfter });
  }
  throw unexpectedAnswer(response, "without a Tools API error body", ctx);
}

/** The JSON body of a 2xx answer; an answer that is not JSON is `unexpected_response`. */
export async function readJsonAnswer<T>(response: Response, ctx: AnswerContext): Promise<T> {
  const type = response.headers.get("content-type") ?? "";
  if (!/\bjson\b/i.test(type)) {
    await response.body?.cancel().catch(() => {});
    throw unexpectedAnswer(response, `with ${type || "no content type"} instead of JSON`, ctx);
  }
  try {
    return (await response.json()) as T;
  } catch (error) {
    throw new ToolsClientError("unexpected_response", "The answer's JSON body could not be read completely; retry.", {
      status: response.status,
      cause: error,
    });
  }
}

function unexpectedAnswer(response: Response, what: string, ctx: AnswerContext): ToolsClientError {
  const path = response.url ? new URL(response.url).pathname : "The server";
  const status = `${response.status}${response.statusText ? ` ${response.statusText}` : ""}`;
  const message =
    `${path} answered ${status} ${what}. ` + `Is ${ctx.baseUrl} the Tools API's base URL, with its mount path (e.g. /proxy/tools)?`;
  return new ToolsClientError("unexpected_response", ctx.redact(message), { status: response.status });
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return null; // not JSON: not the Tools API's answer
  }
}

/** Seconds from a Retry-After header (delta-seconds or an HTTP date). */
export function parseRetryAfter(value: string | null): number | undefined {
  if (!value) return undefined;
  if (/^\s*\d+\s*$/.test(value)) return Number(value);
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, Math.ceil((date - Date.now()) / 1000));
}

/** The body as text, reading at most MAX_ERROR_BODY bytes of it. */
async function readCapped(response: Response): Promise<string> {
  if (!response.body) return "";
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  try {
    while (size <= MAX_ERROR_BODY) {
      const { done, value } = await reader.read();
      if (done) break;
      chunks.push(value);
      size += value.byteLength;
    }
    if (size > MAX_ERROR_BODY) await reader.cancel().catch(() => {});
  } catch {
    return "";
  }
  const decoder = new TextDecoder();
  return chunks.map((chunk, i) => decoder.decode(chunk, { stream: i < chunks.length - 1 })).join("");
}
