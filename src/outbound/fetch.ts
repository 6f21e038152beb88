import { ToolsError } from "../core/errors.js";
import type { RateLimitHeaders } from "../core/rate-limit-headers.js";
import type { AuthScheme, Credential } from "../credentials/auth-schemes.js";
import { isGrantType } from "../credentials/grant-schemes.js";
import { applyCredentialQuery, buildUpstreamHeaders, isHeaderValue } from "./headers.js";
import { type RetryPolicy, sendWithRetries } from "./retry.js";
import { checkOutboundUrl, checkRedirectUrl, resolveAgainstBase } from "./url-policy.js";

/** Redirects followed at most, each to a URL that passes the same policy. */
export const MAX_REDIRECTS = 5;

/** The statuses that redirect; any other 3xx (304, 300) is an answer, returned as it is. */
export const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);

export interface OutboundOptions {
  fetch: typeof fetch;
  /**
   * Where requests may go (the toolkit's base URLs), how the credential is sent (the scheme of the
   * connection's mode), the headers the API requires on every request, and its declared
   * rate-limit headers (whose reset retries wait for).
   */
  toolkit: { baseUrls: string[]; auth: AuthScheme; headers?: Record<string, string>; rateLimit?: RateLimitHeaders };
  credential: Credential | null;
  /** Values of base URL placeholders, from the connection. */
  params: Record<string, string>;
  signal: AbortSignal;
  /**
   * Called once when the upstream answers 401 to an OAuth or granted token: returns a refreshed credential
   * to retry with, or throws. Omit to never retry.
   */
  refreshAfterUnauthorized?: (stale: Credential) => Promise<Credential>;
  /** Retries of idempotent calls (see `sendWithRetries`); null or absent: none. */
  retries?: RetryPolicy | null;
  /** `performance.now()` value of the call's overall deadline: no retry starts a wait past it. */
  deadline?: number;
}

/**
 * `RequestInit` plus the length of a stream body. The header policy drops a caller's
 * `Content-Length`, so a trusted caller that knows the size of its stream says it here.
 */
export interface OutboundInit extends RequestInit {
  contentLength?: number;
  /**
   * A `Cookie` header built by trusted code (a tool's declared cookie parameters). The header
   * policy drops a `Cookie` among `headers`, where it would be a caller's own session cookie.
   */
  cookie?: string;
}

/**
 * A fetch that can only reach the toolkit's base URLs and carries the connection's credential.
 * Every URL (and every redirect target) is checked before anything is sent; a redirect elsewhere
 * is returned as the response instead of being followed, so the credential never leaves the
 * toolkit's origins. An OAuth 401 is retried once with a refreshed token when the body can be
 * sent again, and each hop is retried per `options.retries`. Throws `ToolsError` (400) for a
 * refused URL or header.
 */
export function createOutboundFetch(options: OutboundOptions) {
  const { toolkit, params } = options;
  let credential = options.credential;
  return async function outboundFetch(input: string | URL, init: OutboundInit = {}): Promise<Response> {
    let url = checkOutboundUrl(resolveAgainstBase(input, toolkit.baseUrls, params), toolkit.baseUrls, params);
    let method = (init.method ?? "GET").toUpperCase();
    let body = init.body ?? null;
    let headers = withTrusted(buildUpstreamHeaders(init.headers, toolkit.auth, credential, toolkit.headers), body, init);
    const signal = init.signal ? AbortSignal.any([init.signal, options.signal]) : options.signal;
    let retriedUnauthorized = false;

    for (let hop = 0; ; hop++) {
      const target = applyCredentialQuery(url, toolkit.auth, credential);
      const request = {
        method,
        headers,
        body,
        redirect: "manual",
        signal,
        ...(body instanceof ReadableStream ? { duplex: "half" } : {}),
      } as RequestInit;
      const response = await sendWithRetries(() => options.fetch(target, request), {
        method,
        body,
        policy: options.retries ?? null,
        signal,
        deadline: options.deadline,
        rateLimit: toolkit.rateLimit,
      });
      if (
        response.status === 401 &&
        credential &&
        (credential.type === "oauth2" || isGrantType(credential.type)) &&
        options.refreshAfterUnauthorized &&
        !retriedUnauthorized &&
        !(body instanceof ReadableStream)
      ) {
        retriedUnauthorized = true;
        await response.body?.cancel().catch(() => {});
        credential = await options.refreshAfterUnauthorized(credential);
        headers = withTrusted(buildUpstreamHeaders(headers, toolkit.auth, credential), body, init);
        continue;
      }
      const location = response.headers.get("location");
      if (!REDIRECT_STATUSES.has(response.status) || !location || hop >= MAX_REDIRECTS) return response;
      let next: URL;
      try {
        // The Location is checked as written, like a caller's URL, not after the parser normalised it.
        next = checkRedirectUrl(location, url, toolkit.baseUrls, params);
      } catch {
        return response; // A redirect elsewhere comes back to the caller, unfollowed.
      }
      const keepsBody = response.status === 307 || response.status === 308;
      if (keepsBody && body instanceof ReadableStream) return response; // A consumed stream cannot be sent twice.
      await response.body?.cancel().catch(() => {});
      if (!keepsBody && method !== "GET" && method !== "HEAD") {
        method = "GET";
        body = null;
        headers.delete("content-type");
        headers.delete("content-length");
      }
      url = next;
    }
  };
}

/**
 * Sets what the header policy leaves to trusted code: the declared length of a stream body (other
 * bodies get theirs from the fetch itself) and a `Cookie` header.
 */
function withTrusted(headers: Headers, body: unknown, init: OutboundInit): Headers {
  const { contentLength, cookie } = init;
  if (body instanceof ReadableStream && Number.isSafeInteger(contentLength) && contentLength! >= 0) {
    headers.set("content-length", String(contentLength));
  }
  if (cookie !== undefined && cookie !== "") {
    if (!isHeaderValue(cookie))
      throw new ToolsError("invalid_request", "The Cookie value has a line break or control character; remove it.");
    headers.set("cookie", cookie);
  }
  return headers;
}
