/**
 * Cross-origin access for browser clients (the `cors` option): off by default, so that only code
 * on the embedding app's own origin can call the API from a browser. API keys travel in headers,
 * never cookies, so credentialed CORS is never needed.
 */
export interface CorsSettings {
  /** Origins allowed to call the API from a browser, or `"*"` for any. */
  origins: string[] | "*";
  /** How long a browser may cache a preflight answer, in seconds. */
  maxAgeSeconds: number;
}

// Headers a browser client may read from an answer, besides the CORS-safelisted ones.
const EXPOSED = "Retry-After, WWW-Authenticate, Content-Disposition, Content-Length";
const TOKEN_LIST = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+(\s*,\s*[!#$%&'*+.^_`|~0-9A-Za-z-]+)*$/;

export interface Cors {
  /** The answer to a preflight request for a path with these methods; null when it is not one. */
  preflight(request: Request, methods: string[]): Response | null;
  /** The answer with the CORS headers its request's origin should get (none for other origins). */
  apply(request: Request, response: Response): Response;
}

export function createCors(options: CorsSettings): Cors {
  const allowed = options.origins === "*" ? "*" : new Set(options.origins.map((origin) => new URL(origin).origin));
  const allowOrigin = (request: Request): string | null => {
    const origin = request.headers.get("origin");
    if (!origin) return null;
    if (allowed === "*") return "*";
    return allowed.has(origin) ? origin : null;
  };
  return {
    preflight(request, methods) {
      if (!isPreflight(request)) return null;
      const headers = new Headers({ vary: "Origin, Access-Control-Request-Method, Access-Control-Request-Headers" });
      const origin = allowOrigin(request);
      if (origin) {
        headers.set("access-control-allow-origin", origin);
        headers.set("access-control-allow-methods", methods.join(", "));
        const requested = request.headers.get("access-control-request-headers");
        if (requested && TOKEN_LIST.test(requested.trim())) headers.set("access-control-allow-headers", requested.trim());
        headers.set("access-control-max-age", String(options.maxAgeSeconds));
      }
      return new Response(null, { status: 204, headers });
    },
    apply(request, response) {
      const origin = allowOrigin(request);
      if (!origin || isPreflight(request)) return response;
      const out = mutable(response);
      out.headers.set("access-control-allow-origin", origin);
      out.headers.set("access-control-expose-headers", EXPOSED);
      if (origin !== "*") out.headers.append("vary", "Origin");
      return out;
    },
  };
}

function isPreflight(request: Request): boolean {
  return request.method === "OPTIONS" && request.headers.has("access-control-request-method");
}

/** The response itself when its headers can change, else a copy that shares its body (redirects have immutable headers). */
function mutable(response: Response): Response {
  try {
    response.headers.set("x-tools-proxy-probe", "1");
    response.headers.delete("x-tools-proxy-probe");
    return response;
  } catch {
    return new Response(response.body, { status: response.status, statusText: response.statusText, headers: response.headers });
  }
}
