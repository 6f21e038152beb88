/**
 * `serve`'s access log: one line per request on stderr, when its response has ended or the client
 * went away, with the method, the path without its query string, the status, the time taken in
 * milliseconds and the id of the API key (`key_...`, never the key) when the request carried a
 * valid one. Never a query string, a header or a body: those may hold tokens and personal data.
 *
 * The path is the one the router matched (dot segments resolved: `/connect/./auth_x.…` is the
 * connect page), noted by `noteRequest` from the `Request` the handler is given, with a connect
 * link's secret part left out (`/connect/auth_x.***`). The key id comes from the handler's `limits`
 * hook, which it calls with the principal of every authenticated request. An AsyncLocalStorage ties
 * both to the request's line, so neither a second key lookup nor a response header is needed.
 */
import { AsyncLocalStorage } from "node:async_hooks";
import type { IncomingMessage, ServerResponse } from "node:http";
import { loggablePath } from "../core/http.js";
import type { LimitsHook } from "../limits/types.js";

export type LogFormat = "text" | "json";

/** What a request's line learns while it is served. */
interface Entry {
  keyId: string | null;
  /** The URL path the handler's router matched; null until the request reaches the fetch function. */
  path: string | null;
}

type Listener = (req: IncomingMessage, res: ServerResponse) => void;

/** An access log in `format`, written with `write` (stderr by default). */
export function createAccessLog(format: LogFormat, write: (line: string) => void = (line) => void process.stderr.write(line)) {
  const current = new AsyncLocalStorage<Entry>();
  return {
    /** `listener`, with a line written for each request it serves. */
    wrap(listener: Listener): Listener {
      return (req, res) => {
        const started = performance.now();
        const entry: Entry = { keyId: null, path: null };
        res.once("close", () => {
          const line = {
            time: new Date().toISOString(),
            method: req.method ?? "",
            path: pathOf(entry.path ?? routedPath(req.url ?? "")),
            status: res.statusCode,
            durationMs: Math.round((performance.now() - started) * 10) / 10,
            keyId: entry.keyId,
            // The client went away before the response ended: the status is what was about to be sent.
            ...(res.writableFinished ? {} : { aborted: true }),
          };
          write(
            format === "json"
              ? `${JSON.stringify(line)}\n`
              : `${line.time} ${line.method} ${line.path} ${line.status} ${line.durationMs}ms ` +
                  `${line.keyId ?? "-"}${line.aborted ? " aborted" : ""}\n`,
          );
        });
        current.run(entry, () => listener(req, res));
      };
    },
    /**
     * Notes the path of `request`, the one the handler routes, for the line of the request being
     * served; call it first thing in the fetch function that `wrap`'s listener runs.
     */
    noteRequest(request: Request): void {
      const entry = current.getStore();
      if (entry) entry.path = new URL(request.url).pathname;
    },
    /** A `limits` hook that notes the key id of the request it is called for, then asks `inner`, if any. */
    limits(inner?: LimitsHook): LimitsHook {
      return (request) => {
        const entry = current.getStore();
        if (entry) entry.keyId = request.principal.keyId;
        return inner?.(request);
      };
    },
  };
}

/**
 * The path a request target routes to, as the Node bridge builds the request's URL: for a request
 * that never reached the fetch function. The query string and fragment are dropped.
 */
function routedPath(target: string): string {
  try {
    return new URL(`http://localhost${target.startsWith("/") ? "" : "/"}${target}`).pathname;
  } catch {
    return target.replace(/[?#].*$/s, "");
  }
}

/**
 * A routed path as the line shows it: a connect link's secret part left out (`/connect/auth_x.***`,
 * the link works for whoever holds it) and anything but visible ASCII percent-encoded.
 */
function pathOf(path: string): string {
  return loggablePath(path).replace(/[^\x21-\x7e]/g, (char) => encodeURIComponent(char));
}
