import { catalogIcons } from "./icons.generated.js";

/**
 * The `icon` of a catalog toolkit: `catalog:<slug>`, an icon the handler itself serves at
 * `{basePath}/icons/<slug>.svg`. The routes turn it into that URL (see `iconUrl` in
 * routes/icons.ts); a toolkit of your own may use it too, to show a catalog provider's icon.
 */
export const CATALOG_ICON_PREFIX = "catalog:";

/** The `icon` value that stands for the catalog icon of provider `slug`. */
export function catalogIconRef(slug: string): string {
  return `${CATALOG_ICON_PREFIX}${slug}`;
}

/**
 * The SVG of a catalog provider's icon, or null for a slug the catalog does not have: the
 * simple-icons glyph in its brand colour, or a monogram (the name's first letter on the provider's
 * colour). Both are 24x24, labelled for screen readers (`role="img"` and a `<title>`), and hold
 * nothing but shapes and text: no script, style, link or external reference.
 */
export function catalogIconSvg(slug: string): string | null {
  const icon = Object.hasOwn(catalogIcons, slug) ? catalogIcons[slug] : undefined;
  return icon ? iconSvg(icon) : null;
}

/** The SVG of one icon: a 24x24 `path` in colour `hex`, or without a path a monogram of `title` on it. */
export function iconSvg(icon: { title: string; hex: string; path?: string }): string {
  const open = `<svg xmlns="http://www.w3.org/2000/svg" role="img" viewBox="0 0 24 24"><title>${escapeXml(icon.title)}</title>`;
  if (icon.path) return `${open}<path fill="#${icon.hex}" d="${escapeXml(icon.path)}"/></svg>`;
  const initial = [...icon.title.trim()][0]?.toUpperCase() ?? "?";
  return (
    `${open}<rect width="24" height="24" rx="5" fill="#${icon.hex}"/>` +
    `<text x="12" y="16.5" fill="${textColor(icon.hex)}" font-family="system-ui, -apple-system, 'Segoe UI', sans-serif" ` +
    `font-size="13" font-weight="600" text-anchor="middle">${escapeXml(initial)}</text></svg>`
  );
}

/** White on dark colours, near-black on light ones (by relative luminance, as WCAG computes it). */
function textColor(hex: string): string {
  const [r, g, b] = [0, 2, 4].map((i) => {
    const channel = Number.parseInt(hex.slice(i, i + 2), 16) / 255;
    return channel <= 0.04045 ? channel / 12.92 : ((channel + 0.055) / 1.055) ** 2.4;
  });
  const luminance = 0.2126 * r! + 0.7152 * g! + 0.0722 * b!;
  // The luminance where white and black text have the same contrast ratio.
  return luminance > 0.179 ? "#111111" : "#FFFFFF";
}

function escapeXml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}
