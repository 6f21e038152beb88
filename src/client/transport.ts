import { checkAnswer, readJsonAnswer } from "./answers.js";
import { ToolsClientError } from "./errors.js";

/** A fetch function: the global one, or any with its signature (e.g. undici's, or a test's). */
export type FetchFunction = (input: Request | string | URL, init?: RequestInit) => Promise<Response>;

/** What the transport needs to reach the Tools API (see ToolsClientOptions). */
export interface TransportOptions {
  baseUrl: string;
  apiKey: string;
  agentId?: string;
  fetch?: FetchFunction;
  headers?: Record<string, string>;
}

export interface SendOptions {
  query?: Record<string, string | number | boolean | undefined>;
  json?: unknown;
  body?: BodyInit;
  headers?: Record<string, string>;
  signal?: AbortSignal;
}

/**
 * The HTTP layer of the client: builds URLs under `baseUrl`, adds the API key (as
 * `Authorization: Bearer`) and `x-agent-id`, and turns every failure into a ToolsClientError.
 * Throws a TypeError naming the option when `baseUrl` or `apiKey` is unusable.
 */
export function createTransport(options: TransportOptions) {
  if (typeof options.apiKey !== "string" || options.apiKey.trim() === "") {
    throw new TypeError('createToolsClient: option "apiKey" is required: pass an agent key (pak_...) or a service key (psk_...).');
  }
  const apiKey = options.apiKey.trim();
  // Checked here, because fetch's own error for a bad header value quotes the value: the key.
  if (!/^[\x21-\x7e]+$/.test(apiKey)) {
    throw new TypeError(
      'createToolsClient: option "apiKey" holds a space, a line break, a control or a non-ASCII character, ' +
        "which no API key has; copy the key again.",
    );
  }
  if (options.agentId !== undefined && !/^[\x21-\x7e]*$/.test(options.agentId)) {
    throw new TypeError('createToolsClient: option "agentId" must be an agent id of letters, digits, "_" or "-".');
  }
  for (const [name, value] of Object.entries(options.headers ?? {})) {
    try {
      new Headers({ [name]: value });
    } catch {
      throw new TypeError(
        `createToolsClient: option "headers": the header ${JSON.stringify(name.replace(/[^\x20-\x7e]/g, "?"))} ` +
          "has a name or value HTTP cannot carry (a line break, NUL or non-Latin-1 character).",
      );
    }
  }
  const baseUrl = checkBaseUrl(options.baseUrl, apiKey);
  const doFetch: FetchFunction = options.fetch ?? ((input, init) => fetch(input, init));
  const ctx = { baseUrl, redact: redactor(apiKey) };

  function url(path: string, query: SendOptions["query"] = {}): string {
    const search = new URLSearchParams();
    for (const [name, value] of Object.entries(query)) if (value !== undefined) search.set(name, String(value));
    const qs = search.toString();
    return `${baseUrl}${path}${qs ? `?${qs}` : ""}`;
  }

  function headers(extra: Record<string, string> = {}): Headers {
    const all = new Headers({ accept: "application/json", ...options.headers, ...extra });
    all.set("authorization", `Bearer ${apiKey}`);
    if (options.agentId) all.set("x-agent-id", options.agentId);
    return all;
  }

  /** What a fetch that got no answer rejects with: the signal's reason when it aborted, else `network_error`. */
  function networkError(error: unknown, target: string, signal?: AbortSignal): unknown {
    if (signal?.aborted) return signal.reason;
    const cause = (error as { cause?: { code?: unknown; message?: unknown } } | null)?.cause;
    const detail =
      typeof cause?.code === "string"
        ? cause.code
        : typeof cause?.message === "string"
          ? cause.message
          : String((error as Error)?.message ?? error);
    const where = new URL(target);
    const message =
      `Could not reach the Tools API at ${where.origin}${where.pathname} (${detail}). ` +
      "Check the URL and that the server is running, then retry.";
    return new ToolsClientError("network_error", ctx.redact(message), { cause: error });
  }

  /** Sends the request and resolves with its 2xx answer; see checkAnswer for the rest. */
  async function send(method: string, path: string, opts: SendOptions = {}): Promise<Response> {
    const target = url(path, opts.query);
    const extra: Record<string, string> = { ...opts.headers };
    let body = opts.body;
    if (opts.json !== undefined) {
      body = JSON.stringify(opts.json);
      extra["content-type"] = "application/json";
    }
    const init: RequestInit & { duplex?: "half" } = { method, headers: headers(extra), body, signal: opts.signal };
    if (body instanceof ReadableStream) init.duplex = "half"; // required by fetch for a streamed body
    let response: Response;
    try {
      response = await doFetch(target, init);
    } catch (error) {
      throw networkError(error, target, opts.signal);
    }
    return checkAnswer(response, ctx);
  }

  return {
    baseUrl,
    /** True when no `fetch` option was given (uploads may then use XMLHttpRequest in a browser). */
    usesGlobalFetch: !options.fetch,
    url,
    headers,
    networkError,
    send,
    check: (response: Response) => checkAnswer(response, ctx),
    readJson: <T>(response: Response) => readJsonAnswer<T>(response, ctx),
    async json<T>(method: string, path: string, opts: SendOptions = {}): Promise<T> {
      return readJsonAnswer<T>(await send(method, path, opts), ctx);
    },
  };
}

export type Transport = ReturnType<typeof createTransport>;

/** `baseUrl` without a trailing slash; throws a TypeError naming the option when it is unusable. */
function checkBaseUrl(value: string, apiKey: string): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    const got = redactor(apiKey)(String(value));
    throw new TypeError(
      `createToolsClient: option "baseUrl" must be an absolute URL such as http://localhost:8787/proxy/tools; got ${JSON.stringify(got)}.`,
    );
  }
  if (url.protocol !== "http:" && url.protocol !== "https:")
    throw new TypeError('createToolsClient: option "baseUrl" must be an http: or https: URL.');
  if (url.username || url.password)
    throw new TypeError('createToolsClient: option "baseUrl" must not carry a user name or password; pass the key as "apiKey".');
  if (url.search || url.hash) throw new TypeError('createToolsClient: option "baseUrl" must not have a query string or a fragment.');
  return url.href.replace(/\/+$/, "");
}

/**
 * The length of every API key (`pak_`/`psk_` and 43 base64url characters). Written here rather
 * than imported, so that the client stays free of the server's modules; test/client/client.test.ts
 * checks it against src/credentials/key-shape.ts.
 */
export const API_KEY_LENGTH = 47;

/**
 * Removes the API key from a message. A string shorter than a real key is left alone: it is no
 * key, and removing every "a" from "Invalid API key" would garble the sentence instead.
 */
function redactor(apiKey: string): (text: string) => string {
  return apiKey.length < API_KEY_LENGTH ? (text) => text : (text) => text.split(apiKey).join("[redacted]");
}
