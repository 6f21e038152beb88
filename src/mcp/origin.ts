import type { HandlerContext } from "../context/context.js";

/**
 * The 403 the MCP Streamable HTTP transport requires for a browser request from an origin the
 * app does not trust (a DNS-rebinding page), or null when the request may go on. No `Origin` (a
 * client that is not a browser) passes; a browser's must be `publicUrl`'s or one the `cors`
 * option allows. The body is a JSON-RPC error without an id, as the transport describes.
 */
export function refuseForeignOrigin(request: Request, ctx: Pick<HandlerContext, "browserOrigins">): Response | null {
  const origin = request.headers.get("origin");
  if (origin === null || ctx.browserOrigins === "*" || ctx.browserOrigins.includes(origin)) return null;
  const message =
    "This MCP server does not accept requests from pages of this origin. " +
    "Its operator can allow the origin with the publicUrl or cors option.";
  return new Response(JSON.stringify({ jsonrpc: "2.0", error: { code: -32000, message }, id: null }), {
    status: 403,
    headers: { "content-type": "application/json; charset=utf-8" },
  });
}
