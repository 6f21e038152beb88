import { maskStyleFor, mediaType } from "../core/body-kind.js";
import { ToolsError } from "../core/errors.js";
import { requireAgent } from "../core/principal.js";
import { secretForms } from "../core/redact.js";
import { redactBytes, redactStream } from "../core/redact-bytes.js";
import type { ExecutionResult } from "../core/results.js";
import { takeWholeBody, wholeResponse } from "../core/whole-bodies.js";
import { type AnswerUrlMapping, routeAnswerUrls } from "../execution/answer-urls.js";
import { runCall } from "../execution/call.js";
import { passedHeaders } from "../execution/upstream-result.js";
import { REDIRECT_STATUSES } from "../outbound/fetch.js";
import { placesInQuery } from "../outbound/headers.js";
import { fillBaseUrl } from "../outbound/url-policy.js";
import type { Toolkit } from "../toolkits/define.js";
import { requireToolkit } from "../toolkits/registry.js";
import { defineRoute, type Route } from "./route.js";
import { errors } from "./schemas.js";

/** Names the connection to use; without it, the agent's only active connection to the toolkit. */
export const CONNECTION_HEADER = "x-connection-id";

/**
 * Headers that speak to this server, never to the upstream: the API key (`x-api-key`; the
 * `Authorization` carrying it is replaced by the credential anyway), the agent a service key acts
 * for, and the connection to use; and `Accept-Encoding`, replaced by `IDENTITY`.
 */
const OWN_HEADERS = new Set(["x-api-key", "x-agent-id", CONNECTION_HEADER, "accept-encoding"]);

/**
 * Asked of every upstream in place of the caller's `Accept-Encoding`: the answer is passed on as it
 * comes, and whether a fetch decodes a compressed body differs (the global fetch does,
 * `createUndiciFetch` does not), so the only encoding both pass on correctly is none.
 */
const IDENTITY: [string, string] = ["accept-encoding", "identity"];

/** Statuses whose answer has no body, whatever the upstream sent. */
const NULL_BODY_STATUSES = new Set([204, 205, 304]);

/**
 * `{basePath}/passthrough/{toolkit}/{path}`: any method (OPTIONS aside) to `<toolkit baseUrl>/{path}`
 * with the query, so that an official SDK can take it as its base URL. The call is a `POST /proxy`
 * in another shape: the same connection choice, credential, URL, header and redirect policy, the
 * same retries and refresh, the same response header filter. Only the bodies differ: both are
 * streamed, never buffered, so the answer's body has the secrets masked as it streams rather than
 * redacted as data, and a request with a body is not sent twice (no retry, no refresh after a
 * 401). Refusals are the usual JSON errors;
 * an upstream that cannot be reached is `502 upstream_unreachable`, one that does not answer in
 * time `504 upstream_timeout`. The answer's URLs stay on this server (`routeAnswerUrls`): under the
 * base URL they point at this route, other ones are dropped, and a redirect elsewhere is
 * `502 upstream_redirect`, so no client that follows them sends its API key off this origin. Not in
 * the OpenAPI document: its paths are the upstream API's.
 */
export const passthroughRoutes: Route[] = [
  defineRoute({
    method: "*",
    path: "/passthrough/:toolkit/*",
    openApi: false,
    summary: "Forward a request to the toolkit's own API with the connection's credential added; the answer is the upstream's.",
    responses: { 200: { description: "The upstream answer, any status." }, ...errors(400, 401, 402, 404, 409, 429, 503) },
    async handle({ request, url, principal, params }, ctx) {
      const agent = requireAgent(principal);
      const toolkit = await requireToolkit(ctx.registry, params.toolkit, ctx.basePath);
      refuseQueryCredential(toolkit, ctx.basePath);
      const headers = [...[...request.headers].filter(([name]) => !OWN_HEADERS.has(name)), IDENTITY];
      const body = requestBody(request);
      let target = "";
      let base = toolkit.baseUrls[0];
      const outcome = await runCall(ctx, {
        kind: "proxy",
        name: toolkit.slug,
        agent,
        toolkit,
        connectionId: request.headers.get(CONNECTION_HEADER) || undefined,
        timeoutMs: toolkit.timeoutMs ?? ctx.timeouts.proxyMs,
        signal: request.signal,
        run: ({ fetch, connection }) => {
          // The base with the credential's path placements filled in (Telegram's bot{token}), when there are any.
          base = (fetch as { baseUrls?: string[] }).baseUrls?.[0] ?? base;
          target = upstreamUrl(base, toolkit.slug, restOfPath(url, ctx.basePath), connection?.params ?? {}) + url.search;
          return fetch(target, { method: request.method, headers, ...body });
        },
      });
      ctx.emit("proxy.requested", {
        principal: agent,
        toolkit: toolkit.slug,
        connectionId: outcome.connection?.id ?? null,
        method: request.method,
        host: URL.canParse(target) ? new URL(target).host : "",
        status: outcome.ok ? outcome.value.status : null,
        durationMs: outcome.durationMs,
      });
      if (!outcome.ok) throw upstreamFailure(outcome.failure);
      const upstream = outcome.value;
      const mapping: AnswerUrlMapping = {
        base: fillBaseUrl(base!, outcome.connection?.params ?? {}),
        route: `${ctx.publicUrl?.origin ?? url.origin}${ctx.basePath}/passthrough/${encodeURIComponent(toolkit.slug)}`,
        // A fetch of the options may leave `url` empty; then the URL asked for is the best known.
        answeredUrl: URL.canParse(upstream.url) ? new URL(upstream.url) : new URL(target),
      };
      const passed = passedHeaders(upstream.headers, outcome.secrets);
      const answerHeaders = routeAnswerUrls(passed, mapping);
      if (REDIRECT_STATUSES.has(upstream.status) && passed.location !== undefined && answerHeaders.location === undefined) {
        void upstream.body?.cancel().catch(() => {});
        throw foreignRedirect(upstream.status, passed.location, mapping.base, ctx.basePath);
      }
      return answer(upstream, answerHeaders, outcome.secrets);
    },
  }),
];

/**
 * A credential sent in the query string comes back in answers that echo their URL (pagination
 * links, error pages). POST /proxy redacts them into data; the passthrough would mask it in links
 * that an SDK then follows, and in an encoding the scan does not see (compressed) not at all.
 */
function refuseQueryCredential(toolkit: Toolkit, basePath: string): void {
  const modes = [toolkit.auth, ...toolkit.authModes];
  if (modes.every((mode) => mode.type === "none" || !placesInQuery(mode))) return;
  throw new ToolsError(
    "invalid_request",
    `Toolkit "${toolkit.slug}" sends its credential in the query string, which answers echo back in the URLs they return; ` +
      `call it with POST ${basePath}/proxy, which redacts it.`,
  );
}

/** The request body as a stream with its declared length, or none when the request has none. */
function requestBody(request: Request): { body?: ReadableStream<Uint8Array>; contentLength?: number } {
  const declared = request.headers.get("content-length");
  if (!request.body || declared === "0") return {};
  return { body: request.body, ...(declared !== null && /^\d+$/.test(declared) ? { contentLength: Number(declared) } : {}) };
}

/** The path after `{basePath}/passthrough/{toolkit}`, as the caller wrote it (still percent-encoded). */
function restOfPath(url: URL, basePath: string): string {
  const afterRoute = url.pathname.slice(`${basePath}/passthrough/`.length);
  const slash = afterRoute.indexOf("/");
  return slash === -1 ? "" : afterRoute.slice(slash);
}

/**
 * The upstream URL (without the query) of a path under the toolkit's first base URL. When the base
 * URL has a path (`https://api.notion.com/v1`) and the caller's path already starts with it, whole
 * segments, it is not added twice: an SDK that appends the version itself (Notion's adds `/v1`)
 * works as well as one given the full base. The result still passes the URL policy as any other.
 */
function upstreamUrl(template: string | undefined, slug: string, path: string, params: Record<string, string>): string {
  if (template === undefined) throw new ToolsError("invalid_request", `Toolkit "${slug}" has no base URL to pass requests to.`);
  const base = new URL(fillBaseUrl(template, params));
  const basePath = base.pathname.replace(/\/+$/, "");
  const under = basePath !== "" && (path === basePath || path.startsWith(`${basePath}/`)) ? path.slice(basePath.length) : path;
  return `${base.origin}${basePath}${under}`;
}

/**
 * The upstream's status, the headers given (filtered, URLs routed) and its body (a body the status
 * forbids dropped). The body streams with every form of the call's secrets masked (`redactStream`):
 * in a text type (by its Content-Type alone, there is no waiting for the bytes) with `[redacted]`,
 * its Content-Length then dropped; in any other, the secret's bytes overwritten with `*` in place,
 * so its length holds.
 */
function answer(upstream: Response, headers: Record<string, string>, secrets: string[]): Response {
  // fetch decodes a compressed body, so the length the upstream declared is not the length sent.
  if (upstream.headers.has("content-encoding")) delete headers["content-length"];
  if (NULL_BODY_STATUSES.has(upstream.status)) {
    void upstream.body?.cancel().catch(() => {});
    return new Response(null, { status: upstream.status, statusText: upstream.statusText, headers });
  }
  const forms = secretForms(secrets);
  const style = maskStyleFor(mediaType(upstream.headers.get("content-type")), false);
  // An answer read whole already (`createUndiciFetch`) goes back whole: the Node bridge writes its bytes.
  const whole = takeWholeBody(upstream);
  if (whole) {
    const { bytes } = redactBytes(whole, forms, style);
    return wholeResponse(bytes, upstream.status, { ...headers, "content-length": String(bytes.byteLength) });
  }
  const body = upstream.body && redactStream(upstream.body, forms, style);
  // `[redacted]` is rarely as long as what it replaces, and the headers go before the body is read.
  if (body !== upstream.body && style === "text") delete headers["content-length"];
  return new Response(body, { status: upstream.status, statusText: upstream.statusText, headers });
}

/**
 * A redirect off the toolkit's base URL, refused. Followed here, it would be a request to a host
 * the deployer never allowed, from the server's network (an upstream's open redirect would reach
 * internal addresses); passed on, the client would follow it with its API key. `POST /proxy`
 * answers it as data: its Location is there for the caller to fetch without the API key.
 */
function foreignRedirect(status: number, location: string, base: string, basePath: string): ToolsError {
  // The Location as passed (secrets redacted): its host helps a person see where it pointed.
  const host = URL.canParse(location) ? ` (${new URL(location).host})` : "";
  return new ToolsError(
    "upstream_redirect",
    `The upstream answered ${status} with a redirect outside the toolkit's base URL ${base}${host}. ` +
      "The passthrough neither follows it (the credential goes only to the base URL) nor passes it on (your client would send your API key there). " +
      `Send the request with POST ${basePath}/proxy: its result has the redirect's Location, to fetch without your API key.`,
  );
}

/** A call that got no answer, as an error of this server: the upstream is away or too slow. */
function upstreamFailure(failure: ExecutionResult): ToolsError {
  if (failure.code === "timeout") {
    return new ToolsError("upstream_timeout", `${failure.error ?? "The upstream did not answer in time."} Retry later.`);
  }
  return new ToolsError("upstream_unreachable", `${failure.error ?? "The upstream could not be reached."} Retry later.`);
}
