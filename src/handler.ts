import { memoryBlobStore } from "./blob/memory.js";
import { connectPageSettings } from "./context/connect-page.js";
import type { HandlerContext, ToolsEvents } from "./context/context.js";
import { createCors } from "./core/cors.js";
import { errorResponse, ToolsError, toToolsError } from "./core/errors.js";
import { cut, loggablePath } from "./core/http.js";
import { createSafeLogger, type SafeLogger } from "./core/logger.js";
import { standardResponse } from "./core/whole-bodies.js";
import { authenticateWith } from "./credentials/api-keys.js";
import { createCredentialCipher } from "./credentials/cipher.js";
import { createCursors } from "./credentials/cursors.js";
import { createApiKeyCache, dropApiKeyCache } from "./credentials/key-cache.js";
import { joinRevocations } from "./credentials/revocations.js";
import { createSigner } from "./credentials/signer.js";
import { enforceLimits } from "./limits/enforce.js";
import { mcpRoutes } from "./mcp/route.js";
import { type ResolvedOptions, resolveOptions, type ToolsHandlerOptions } from "./options.js";
import { resolveRetryPolicy } from "./outbound/retry.js";
import { createRoutes } from "./routes/index.js";
import { passthroughRoutes } from "./routes/passthrough.js";
import type { Route } from "./routes/route.js";
import { createRouter } from "./routes/router.js";
import { storeLeases } from "./store/leases.js";
import { memoryStore } from "./store/memory.js";
import { createSweeper } from "./sweeper.js";
import { createToolkitRegistry, type ToolkitRegistry } from "./toolkits/registry.js";
import { randomBytes, toBase64Url } from "./util/encoding.js";

/** A fetch function serving the Tools API. */
export interface ToolsHandler {
  (request: Request): Promise<Response>;
  /** The same function, for frameworks that want a named property. */
  handler(request: Request): Promise<Response>;
  /**
   * The same answer as the handler's, as made, for a server bridge that writes responses itself
   * (`tools-proxy/node`, `/express` and `/fastify` do): a JSON answer comes as a `WholeAnswer`,
   * whose `wholeParts()` are written in one call without a `Response` being read. It passes for a
   * `Response`, but only the handler itself gives ones that Bun, Deno and Next.js can send.
   */
  answer(request: Request): Promise<Response>;
  /** Where the routes live, e.g. `/proxy/tools` (the `basePath` option). */
  readonly basePath: string;
  /** The toolkits served (the `toolkits` option, as a registry). */
  readonly registry: ToolkitRegistry;
  /**
   * Deletes expired staged files, OAuth authorizations and leases now and resolves to how many,
   * e.g. from a cron job. The handler also does it every `sweepIntervalMs` (default 60 s) once it
   * has served a request.
   */
  sweep(): Promise<number>;
  /** Stops the periodic sweep and waits for one in progress. The stores stay open: close them yourself. */
  close(): Promise<void>;
  /** `close()`, for `await using tools = createToolsHandler(...)`. */
  [Symbol.asyncDispose](): Promise<void>;
}

/**
 * Creates the Tools API as a function from `Request` to `Promise<Response>`. Mount it under
 * `basePath` (default `/proxy/tools`) in any framework. Throws at once, naming the option, when
 * the configuration is wrong.
 */
export function createToolsHandler(options: ToolsHandlerOptions = {}): ToolsHandler {
  const resolved = resolveOptions(options);
  const context = resolveContext(resolved);
  const router = createRouter([...createRoutes(), ...mcpRoutes, ...passthroughRoutes], context.basePath);
  const cors = resolved.cors ? createCors(resolved.cors) : null;
  const sweeper = createSweeper(context, context.logger, resolved.sweepIntervalMs);
  const leaveRevocations = resolved.apiKeyRevocations ? joinRevocations(context.store, context.apiKeys, resolved.apiKeyRevocations) : null;

  const dispatch = async (request: Request): Promise<Response> => {
    const url = new URL(request.url);
    const match = router.match(request.method, url.pathname);
    if (match.kind === "route") {
      const response = await serve(match.route, request, url, match.params, context);
      return request.method === "HEAD" ? withoutBody(response) : response;
    }
    if (match.kind === "method") {
      if (request.method === "OPTIONS")
        return cors?.preflight(request, match.allow) ?? new Response(null, { status: 204, headers: { allow: match.allow.join(", ") } });
      throw new ToolsError(
        "method_not_allowed",
        `${cut(request.method, 16)} is not a method of ${cut(url.pathname, 200)}; it answers ${match.allow.join(", ")}.`,
        {
          headers: { allow: match.allow.join(", ") },
        },
      );
    }
    throw new ToolsError(
      "not_found",
      `No route ${cut(request.method, 16)} ${cut(url.pathname, 200)}. The routes are listed at ${context.basePath}/openapi.json.`,
    );
  };
  const answer = async (request: Request): Promise<Response> => {
    sweeper.start();
    let response: Response;
    try {
      response = await dispatch(request);
    } catch (error) {
      response = failure(error, request, context.logger);
    }
    return cors ? cors.apply(request, response) : response;
  };
  const handle = async (request: Request): Promise<Response> => standardResponse(await answer(request));
  const close = async () => {
    if (context.apiKeys) dropApiKeyCache(context.store, context.apiKeys);
    leaveRevocations?.();
    await sweeper.stop();
  };
  return Object.assign(handle, {
    handler: handle,
    answer,
    basePath: context.basePath,
    registry: context.registry,
    sweep: sweeper.sweep,
    close,
    [Symbol.asyncDispose]: close,
  });
}

async function serve(
  route: Route,
  request: Request,
  url: URL,
  rawParams: Record<string, string>,
  context: HandlerContext,
): Promise<Response> {
  const ctx = forRequest(context, request.signal);
  const principal = route.public ? null : await authenticateWith(request.headers, (hash) => context.findApiKey(hash, ctx.store));
  // A route that checks limits itself (MCP: one check per message, named by what it does) is left to it.
  if (principal && context.limits && !route.ownLimits) {
    await enforceLimits(context.limits, { principal, route: `${route.method} ${route.path}`, method: request.method });
  }
  if (request.bodyUsed) {
    throw new ToolsError(
      "invalid_request",
      "The request body was read before it reached the Tools API handler (by a body parser or middleware); " +
        "mount the handler before that code, or pass it the unread request.",
    );
  }
  return route.serve({ request, url, principal, params: decodeParams(rawParams) }, ctx);
}

/** The context of one request: a store whose reads stop when the client goes away, where the store can. */
function forRequest(context: HandlerContext, signal: AbortSignal): HandlerContext {
  const store = context.sharedStore.withSignal?.(signal);
  return store ? { ...context, store } : context;
}

/** A HEAD answer: the GET answer's status and headers, its body released unread. */
function withoutBody(response: Response): Response {
  void response.body?.cancel().catch(() => {});
  return new Response(null, { status: response.status, statusText: response.statusText, headers: response.headers });
}

/** Longest path parameter taken, in characters: ids and slugs are far shorter, and errors echo them. */
const MAX_PARAM_LENGTH = 256;

function decodeParams(params: Record<string, string>): Record<string, string> {
  const decoded: Record<string, string> = {};
  for (const [name, value] of Object.entries(params)) {
    try {
      decoded[name] = decodeURIComponent(value);
    } catch {
      throw new ToolsError("invalid_request", `The path parameter ${name} is not valid percent-encoding.`);
    }
    if (decoded[name]!.length > MAX_PARAM_LENGTH)
      throw new ToolsError("not_found", `No ${name} is longer than ${MAX_PARAM_LENGTH} characters; check the path.`);
  }
  return decoded;
}

function failure(error: unknown, request: Request, logger: SafeLogger): Response {
  const toolsError = toToolsError(error);
  if (request.signal.aborted) {
    // Nobody reads this answer: a client that went away is not a server fault.
    logger.log("debug", "request aborted by the client", { method: request.method, path: loggablePath(new URL(request.url).pathname) });
  } else if (toolsError.code === "internal" || toolsError.code === "unavailable") {
    // An unavailable dependency is expected to pass; a bug is not.
    const level = toolsError.code === "internal" ? "error" : "warn";
    logger.log(level, "request failed", { method: request.method, path: loggablePath(new URL(request.url).pathname), error });
  }
  return errorResponse(toolsError);
}

function resolveContext(options: ResolvedOptions): HandlerContext {
  const store = options.store ?? memoryStore();
  const blobStore = options.blobStore ?? memoryBlobStore();
  const logger = createSafeLogger(options.logger);
  const registry: ToolkitRegistry = Array.isArray(options.toolkits)
    ? createToolkitRegistry(options.toolkits)
    : (options.toolkits ?? createToolkitRegistry([]));
  const secret =
    options.secret ?? ephemeralSecret(store.persistent === false && blobStore.persistent === false, options.logger?.warn ? logger : null);
  const hooks = options.hooks;
  const apiKeys = options.apiKeyCache.ttlMs > 0 ? createApiKeyCache(store, options.apiKeyCache) : null;
  return {
    store,
    sharedStore: store,
    registry,
    blobStore,
    cipher: createCredentialCipher(secret),
    cursors: createCursors(createSigner(secret, "cursor")),
    forms: createSigner(secret, "connect-form"),
    connectPage: connectPageSettings(options.connectPage),
    basePath: options.basePath,
    publicUrl: options.publicUrl ? new URL(options.publicUrl) : null,
    allowedReturnOrigins: options.allowedReturnOrigins.map((o) => new URL(o).origin),
    browserOrigins:
      options.cors?.origins === "*"
        ? "*"
        : [
            ...(options.publicUrl ? [new URL(options.publicUrl).origin] : []),
            ...(options.cors?.origins ?? []).map((o) => new URL(o).origin),
          ],
    logger,
    fetch: options.fetch ?? ((input, init) => fetch(input, init)),
    timeouts: options.timeouts,
    uploads: options.uploads,
    maxResponseBytes: options.maxResponseBytes,
    retries: resolveRetryPolicy(options.retries),
    limits: options.limits,
    leases: options.leases ?? storeLeases(store),
    refreshLeaseMs: options.refreshLeaseMs,
    refreshes: new Map(),
    apiKeys,
    findApiKey: apiKeys
      ? (hash, from) => apiKeys.lookup(hash, async () => from.getApiKeyByHash(hash))
      : async (hash, from) => from.getApiKeyByHash(hash),
    emit<E extends keyof ToolsEvents>(event: E, payload: ToolsEvents[E]) {
      const hook = hooks[event] as ((p: ToolsEvents[E]) => unknown) | undefined;
      if (!hook) return;
      Promise.resolve()
        .then(() => hook(payload))
        .catch((error: unknown) => logger.log("warn", `hook ${event} failed`, { error }));
    },
  };
}

/**
 * The secret of a handler given none: allowed only when nothing it encrypts outlives the process
 * (both stores declare `persistent: false`), with a warning.
 */
function ephemeralSecret(inMemory: boolean, logger: SafeLogger | null): string {
  if (!inMemory) {
    throw new TypeError(
      'createToolsHandler: option "secret" is required with a persistent store: ' +
        "pass at least 32 random bytes, e.g. from `openssl rand -base64 32`, kept outside the code.",
    );
  }
  const message =
    "tools-proxy: no secret given; using a random one, so stored credentials are unreadable after a restart. Pass `secret` in production.";
  if (logger) logger.log("warn", message);
  else console.warn(message);
  return toBase64Url(randomBytes(32));
}
