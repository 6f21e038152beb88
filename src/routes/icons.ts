import { CATALOG_ICON_PREFIX, catalogIconSvg } from "../catalog/icons.js";
import type { HandlerContext } from "../context/context.js";
import { ToolsError } from "../core/errors.js";
import { defineRoute, type Route } from "./route.js";
import { errors } from "./schemas.js";

/**
 * `GET /icons/:slug.svg`: the icon of a catalog provider, served by the handler so that pages
 * need not hot-link a third party. Public, because an `<img>` cannot send an API key; the icons
 * are the same for everyone and reveal nothing about the server's toolkits or connections.
 */
export const iconRoutes: Route[] = [
  defineRoute({
    method: "GET",
    path: "/icons/:slug.svg",
    summary: "A catalog provider's icon, as SVG (no key: for <img> tags).",
    public: true,
    responses: {
      200: { description: "The icon: the brand's glyph, or a monogram on its colour.", contentType: "image/svg+xml" },
      ...errors(404),
    },
    async handle({ params }, ctx) {
      const svg = catalogIconSvg(params.slug);
      if (svg === null) {
        throw new ToolsError(
          "not_found",
          `No icon "${params.slug}": icons are served for the catalog's providers. A toolkit's icon URL is in GET ${ctx.basePath}/search.`,
        );
      }
      return new Response(svg, {
        headers: {
          "content-type": "image/svg+xml",
          // Icons change only with the package; a day fresh, then revalidated in the background for a week.
          "cache-control": "public, max-age=86400, stale-while-revalidate=604800",
          "x-content-type-options": "nosniff",
          // Opened directly, the SVG is a document of our origin: it may run nothing and load nothing.
          "content-security-policy": "default-src 'none'; sandbox",
        },
      });
    },
  }),
];

/**
 * The URL a client shows for a toolkit's `icon`. A catalog icon (`catalog:<slug>`) becomes
 * `<publicUrl origin><basePath>/icons/<slug>.svg`, or, when the handler has no `publicUrl`, the
 * same path without an origin, which a page served from the handler's origin resolves; it is never
 * built from the request's Host or X-Forwarded-* headers. Any other icon is returned unchanged.
 */
export function iconUrl(icon: string, ctx: Pick<HandlerContext, "basePath" | "publicUrl">): string {
  if (!icon.startsWith(CATALOG_ICON_PREFIX)) return icon;
  const path = `${ctx.basePath}/icons/${encodeURIComponent(icon.slice(CATALOG_ICON_PREFIX.length))}.svg`;
  return ctx.publicUrl ? `${ctx.publicUrl.origin}${path}` : path;
}
