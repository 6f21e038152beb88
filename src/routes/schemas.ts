import { ErrorBodySchema } from "../api/common.js";

/**
 * The schemas shared by several routes live in `src/api/` (the client takes its types from there);
 * they are re-exported here for the routes.
 */
export { ConnectionSchema, cursorParam, ErrorBodySchema, ExecutionResultSchema, idParam, limitParam, ToolSchema } from "../api/common.js";

/** Standard error responses, for the OpenAPI document. */
export function errors(...statuses: number[]) {
  const descriptions: Record<number, string> = {
    400: "Bad request: the message names what to fix.",
    401: "Missing or invalid API key.",
    402: "Insufficient credits.",
    404: "Not found.",
    409: "No connection, or several: pass connection_id.",
    413: "Payload too large.",
    415: "Unsupported media type.",
    429: "Rate limited; see Retry-After.",
    500: "The server failed; nothing internal is said. Retry later.",
    503: "Storage unavailable; see Retry-After.",
  };
  return Object.fromEntries(statuses.map((s) => [s, { description: descriptions[s] ?? "Error.", schema: ErrorBodySchema }]));
}
