import type { HandlerContext } from "./context/context.js";
import { createHandlerContext } from "./context/create.js";
import { createCors } from "./core/cors.js";
import { errorResponse, ToolsError, toToolsError } from "./core/errors.js";
import { cut, loggablePath } from "./core/http.js";
import type { SafeLogger } from "./core/logger.js";
import { standardResponse } from "./core/whole-bodies.js";
import { authenticateWith } from "./credentials/api-keys.js";
import { dropApiKeyCache } from "./credentials/key-cache.js";
import { joinRevocations } from "./credentials/revocations.js";
import { enforceLimits } from "./limits/enforce.js";
import { resolveOptions, type ToolsHandlerOptions } from "./options.js";
import { createRouteTable } from "./route-table.js";
import type { Route } from "./routes/route.js";
import { createRouter } from "./routes/router.js";
import { createSweeper } from "./sweeper.js";
import type { ToolkitRegistry } from "./toolkits/registry.js";

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
  const context = createHandlerContext(resolved);
  const router = createRouter(createRouteTable(), context.basePath);
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
