/** The connect page's words: its texts with their placeholders filled, and HTML escaping. */
import type { ConnectTextName } from "../context/connect-page.js";
import type { HandlerContext } from "../context/context.js";

const ESCAPES: Record<string, string> = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" };
/** Text escaped for HTML content and attribute values. */
export const html = (text: string) => text.replace(/[&<>"']/g, (c) => ESCAPES[c]!);

/** A text of the page with `{toolkit}`, `{app}` and the given words filled in. */
export function text(ctx: HandlerContext, name: ConnectTextName, words: Record<string, string> = {}): string {
  const all: Record<string, string> = { app: ctx.connectPage.appName, ...words };
  return ctx.connectPage.texts[name].replace(/\{(\w+)\}/g, (whole, key: string) => all[key] ?? whole);
}
