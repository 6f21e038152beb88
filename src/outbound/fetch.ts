import { ToolsError } from "../core/errors.js";
import type { RateLimitHeaders } from "../core/rate-limit-headers.js";
import type { AuthScheme, Credential } from "../credentials/auth-schemes.js";
import { isGrantType } from "../credentials/grant-schemes.js";
import { fillPathPlacements } from "../credentials/placements.js";
import { applyCredentialQuery, buildUpstreamHeaders, chooseToken, credentialValues, isHeaderValue } from "./headers.js";
import { type RetryPolicy, sendWithRetries } from "./retry.js";
import { checkOutboundUrl, checkRedirectUrl, fillBaseUrl, resolveAgainstBase } from "./url-policy.js";

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
  /**
   * Whole hosts of base URLs written `https://{name}/...`, by placeholder name, each already checked
   * against the hosts its toolkit's `host` input allows (Datadog's site, Wrike's host).
   */
  hosts?: Record<string, string>;
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
  /**
   * Trusted code's choice of one of the connection's further tokens (a tool's `credential`, Slack's
   * `user`), used when the connection keeps a token of that name; otherwise its own token is.
   */
  preferToken?: string;
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
  const { baseUrls, checkUrl } = placedBaseUrls(toolkit.baseUrls, toolkit.auth, credential, params, options.hosts);
  return Object.assign(outboundFetch, { baseUrls });
  async function outboundFetch(input: string | URL, init: OutboundInit = {}): Promise<Response> {
    let url = checkUrl(input);
    let method = (init.method ?? "GET").toUpperCase();
    let body = init.body ?? null;
    // A request may name one of the connection's further tokens (Slack's user token) instead of its own.
    const choice = chooseToken(init.headers, credential, init.preferToken);
    let used = choice.credential;
    let headers = withTrusted(buildUpstreamHeaders(choice.headers, toolkit.auth, used, toolkit.headers), body, init);
    const signal = init.signal ? AbortSignal.any([init.signal, options.signal]) : options.signal;
    let retriedUnauthorized = false;

    for (let hop = 0; ; hop++) {
      const target = applyCredentialQuery(url, toolkit.auth, used);
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
        choice.chosen === undefined &&
        options.refreshAfterUnauthorized &&
        !retriedUnauthorized &&
        !(body instanceof ReadableStream)
      ) {
        retriedUnauthorized = true;
        await response.body?.cancel().catch(() => {});
        credential = await options.refreshAfterUnauthorized(credential);
        used = credential;
        headers = withTrusted(buildUpstreamHeaders(headers, toolkit.auth, credential), body, init);
        continue;
      }
      const location = response.headers.get("location");
      if (!REDIRECT_STATUSES.has(response.status) || !location || hop >= MAX_REDIRECTS) return response;
      let next: URL;
      try {
        // The Location is checked as written, like a caller's URL, not after the parser normalised it.
        next = checkRedirectUrl(location, url, baseUrls, params);
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
  }
}

/** The fetch `createOutboundFetch` makes: `baseUrls` are the toolkit's with the credential's path placements filled in. */
export type OutboundFetch = ReturnType<typeof createOutboundFetch>;

/** Base URLs written `https://{name}/...` with `name`'s checked host filled in; the others as they are. */
export function fillWholeHosts(templates: string[], hosts: Record<string, string>): string[] {
  return templates.map((base) =>
    base.replace(/^(https?:\/\/)\{([A-Za-z0-9_]+)\}(?=[:/]|$)/i, (whole, scheme: string, name: string) =>
      Object.hasOwn(hosts, name) ? `${scheme}${hosts[name]}` : whole,
    ),
  );
}

/**
 * The toolkit's base URLs with the credential's path placements filled in (Telegram's
 * `bot{token}`), and the URL check against them: the URL policy checks the filled base, so a
 * caller's URL must fall under the connection's own path. A template URL (a tool's, written
 * with the base's placeholders, as JSON toolkit and generated tools send theirs) is filled the
 * same way first, and with the connection's params (`{subdomain}`, `{dc}`). A refusal names the base URLs as
 * the toolkit writes them, never with the secret in them.
 */
export function placedBaseUrls(
  templates: string[],
  scheme: AuthScheme,
  credential: Credential | null,
  params: Record<string, string>,
  hosts: Record<string, string> = {},
): { baseUrls: string[]; checkUrl: (input: string | URL) => URL } {
  const path = credentialValues(scheme, credential).filter((sent) => sent.in === "path");
  const baseUrls = fillWholeHosts(templates, hosts).map((base) => fillPathPlacements(base, path));
  const checkUrl = (input: string | URL) => {
    let raw = String(input);
    // A template URL: its base with the credential's placements, whole hosts and the connection's params filled in.
    const template = templates.findIndex((base) => base.includes("{") && raw.startsWith(base));
    if (template !== -1) {
      const placed = baseUrls[template]!;
      raw = (placed.includes("{") ? fillBaseUrl(placed, params) : placed) + raw.slice(templates[template]!.length);
    }
    try {
      return checkOutboundUrl(resolveAgainstBase(raw, baseUrls, params), baseUrls, params);
    } catch (error) {
      if (!(error instanceof ToolsError) || path.length === 0) throw error;
      let message = error.message;
      for (const sent of path) message = message.replaceAll(sent.value, `{${sent.name}}`);
      throw new ToolsError(error.code, message);
    }
  };
  return { baseUrls, checkUrl };
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
