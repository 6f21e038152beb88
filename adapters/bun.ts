import type { ToolsHandler } from "../src/handler.js";

/**
 * The handler as Bun.serve's `fetch`: `Bun.serve({ fetch: toBunHandler(tools) })`. The handler is
 * already a fetch function, so this only fixes its arity; Deno.serve takes `tools` directly.
 */
export function toBunHandler(tools: ToolsHandler | ((request: Request) => Promise<Response>)): (request: Request) => Promise<Response> {
  return (request) => tools(request);
}
