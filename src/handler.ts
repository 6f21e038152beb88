import { memoryBlobStore } from "./blob/memory.js";
import type { HandlerContext, ToolsEvents } from "./context/context.js";
import { createCredentialCipher } from "./credentials/cipher.js";
import { createSigner } from "./credentials/signer.js";
import { createCursors } from "./credentials/cursors.js";
import { authenticate } from "./credentials/api-keys.js";
import { ToolsError, errorResponse, toToolsError } from "./core/errors.js";
import { cut, readJson, readQuery } from "./core/http.js";
import { createSafeLogger } from "./core/logger.js";
import { DEFAULT_ALLOWED_CONTENT_TYPES, validateOptions, type ToolsHandlerOptions } from "./options.js";
import { resolveRetryPolicy } from "./outbound/retry.js";
import { allRoutes } from "./routes/index.js";
import { createRouter } from "./routes/router.js";
import { createCors } from "./core/cors.js";
import type { RouteDefinition } from "./routes/route.js";
import { createSweeper, DEFAULT_SWEEP_INTERVAL_MS } from "./uploads/sweeper.js";
import { storeLeases } from "./store/leases.js";
import { REFRESH_LEASE_MS } from "./oauth/refresh.js";
import { memoryStore } from "./store/memory.js";
import { createToolkitRegistry, type ToolkitRegistry } from "./toolkits/registry.js";
import { randomBytes, toBase64Url } from "./util/encoding.js";

/** A fetch function serving the Tools API, with the resolved context for tools and tests. */
export interface ToolsHandler {
  (request: Request): Promise<Response>;
  /** The same function, for frameworks that want a named property. */
  handler(request: Request): Promise<Response>;
  /** The resolved configuration (stores, registry, cipher) the routes use. */
  readonly context: HandlerContext;
  /**
   * Deletes expired staged files now and resolves to how many, e.g. from a cron job. The handler
   * also does it every `uploads.sweepIntervalMs` (default 60 s) once it has served a request.
   */
  sweep(): Promise<number>;
  /** Stops the periodic sweep and waits for one in progress. The stores stay open: close them yourself. */
  close(): Promise<void>;
}

const IN_MEMORY = Symbol.for("tools-proxy.inMemory");

/**
 * Creates the Tools API as a function from `Request` to `Promise<Response>`. Mount it under
 * `basePath` (default `/proxy/tools`) in any framework. Throws at once, naming the option, when
 * the configuration is wrong.
 */
export function createToolsHandler(options: ToolsHandlerOptions = {}): ToolsHandler {
  validateOptions(options);
  const context = resolveContext(options);
  const router = createRouter(allRoutes, context.basePath);
  const cors = options.cors ? createCors(options.cors) : null;

  const sweeper = createSweeper(context.blobStore, context.logger, options.uploads?.sweepIntervalMs ?? DEFAULT_SWEEP_INTERVAL_MS);
  const dispatch = async (request: Request): Promise<Response> => {
    const url = new URL(request.url);
    const match = router.match(request.method, url.pathname);
    if (match.kind === "route") {
      const response = await serve(match.route, request, url, match.params, context);
      return request.method === "HEAD" ? withoutBody(response) : response;
    }
    if (match.kind === "method") {
      if (request.method === "OPTIONS") return cors?.preflight(request, match.allow) ?? new Response(null, { status: 204, headers: { allow: match.allow.join(", ") } });
      throw new ToolsError("method_not_allowed", `${cut(request.method, 16)} is not a method of ${cut(url.pathname, 200)}; it answers ${match.allow.join(", ")}.`, {
        headers: { allow: match.allow.join(", ") },
      });
    }
    throw new ToolsError("not_found", `No route ${cut(request.method, 16)} ${cut(url.pathname, 200)}. The routes are listed at ${context.basePath}/openapi.json.`);
  };
  const handle = async (request: Request): Promise<Response> => {
    sweeper.start();
    let response: Response;
    try {
      response = await dispatch(request);
    } catch (error) {
      response = failure(error, request, context);
    }
    return cors ? cors.apply(request, response) : response;
  };
  return Object.assign(handle, { handler: handle, context, sweep: sweeper.sweep, close: sweeper.stop });
}

async function serve(route: RouteDefinition, request: Request, url: URL, rawParams: Record<string, string>, context: HandlerContext): Promise<Response> {
  const principal = route.public ? null : await authenticate(context.store, request.headers);
  if (principal && context.limits) {
    const decision = await context.limits({ principal, route: `${route.method} ${route.path}`, method: request.method });
    if (decision && !decision.allow) {
      if (decision.reason === "rate_limited") {
        throw new ToolsError("rate_limited", decision.message ?? "Too many requests for this API key; wait for the Retry-After seconds and retry.", {
          retryAfter: decision.retryAfterSeconds,
        });
      }
      throw new ToolsError("insufficient_credits", decision.message ?? "The workspace has no credits left for this request; add credits and retry.");
    }
  }
  if (request.bodyUsed) {
    throw new ToolsError(
      "invalid_request",
      "The request body was read before it reached the Tools API handler (by a body parser or middleware); mount the handler before that code, or pass it the unread request.",
    );
  }
  const params = decodeParams(rawParams);
  const query = route.query ? readQuery(url, route.query) : undefined;
  const body = route.body ? await readJson(request, route.body) : undefined;
  return route.handle({ request, url, principal: principal!, params, query, body }, context);
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
    if (decoded[name]!.length > MAX_PARAM_LENGTH) throw new ToolsError("not_found", `No ${name} is longer than ${MAX_PARAM_LENGTH} characters; check the path.`);
  }
  return decoded;
}

function failure(error: unknown, request: Request, context: HandlerContext): Response {
  const toolsError = toToolsError(error);
  if (request.signal.aborted) {
    // Nobody reads this answer: a client that went away is not a server fault.
    context.logger.log("debug", "request aborted by the client", { method: request.method, path: new URL(request.url).pathname });
  } else if (toolsError.code === "internal" || toolsError.code === "unavailable") {
    // An unavailable dependency is expected to pass; a bug is not.
    const level = toolsError.code === "internal" ? "error" : "warn";
    context.logger.log(level, "request failed", { method: request.method, path: new URL(request.url).pathname, error });
  }
  return errorResponse(toolsError);
}

function resolveContext(options: ToolsHandlerOptions): HandlerContext {
  const store = options.store ?? memoryStore();
  const blobStore = options.blobStore ?? memoryBlobStore();
  const logger = createSafeLogger(options.logger);
  const inMemory = !options.store || (store as unknown as Record<symbol, unknown>)[IN_MEMORY] === true;
  const blobsInMemory = !options.blobStore || (blobStore as unknown as Record<symbol, unknown>)[IN_MEMORY] === true;
  let secret = options.secret;
  if (!secret) {
    if (!inMemory || !blobsInMemory) {
      throw new TypeError(
        'createToolsHandler: option "secret" is required with a persistent store: pass at least 32 random bytes, e.g. from `openssl rand -base64 32`, kept outside the code.',
      );
    }
    secret = toBase64Url(randomBytes(32));
    const warn = options.logger?.warn ? logger : null;
    const message = "tools-proxy: no secret given; using a random one, so stored credentials are unreadable after a restart. Pass `secret` in production.";
    if (warn) warn.log("warn", message);
    else console.warn(message);
  }
  const registry: ToolkitRegistry = Array.isArray(options.toolkits) ? createToolkitRegistry(options.toolkits) : (options.toolkits ?? createToolkitRegistry([]));
  const hooks = options.hooks ?? {};
  return {
    store,
    registry,
    blobStore,
    cipher: createCredentialCipher(secret),
    cursors: createCursors(createSigner(secret, "cursor")),
    basePath: options.basePath ?? "/proxy/tools",
    publicUrl: options.publicUrl ? new URL(options.publicUrl) : null,
    allowedReturnOrigins: (options.allowedReturnOrigins ?? []).map((o) => new URL(o).origin),
    logger,
    fetch: options.fetch ?? ((input, init) => fetch(input, init)),
    timeouts: { toolMs: options.timeouts?.toolMs ?? 30_000, proxyMs: options.timeouts?.proxyMs ?? 30_000 },
    uploads: {
      maxBytes: options.uploads?.maxBytes ?? 100 * 1024 * 1024,
      ttlMs: options.uploads?.ttlMs ?? 60 * 60 * 1000,
      allowedContentTypes: options.uploads?.allowedContentTypes ?? DEFAULT_ALLOWED_CONTENT_TYPES,
    },
    maxResponseBytes: options.maxResponseBytes ?? 10 * 1024 * 1024,
    retries: resolveRetryPolicy(options.retries),
    limits: options.limits,
    leases: options.leases ?? storeLeases(store),
    refreshLeaseMs: options.refreshLeaseMs ?? REFRESH_LEASE_MS,
    emit<E extends keyof ToolsEvents>(event: E, payload: ToolsEvents[E]) {
      const hook = hooks[event] as ((p: ToolsEvents[E]) => unknown) | undefined;
      if (!hook) return;
      Promise.resolve()
        .then(() => hook(payload))
        .catch((error: unknown) => logger.log("warn", `hook ${event} failed`, { error }));
    },
  };
}
