/** What MCP allows as a tool name (the 2025-11-25 spec's advice, which clients enforce). */
export const MCP_TOOL_NAME = /^[A-Za-z0-9_-]{1,64}$/;

/**
 * The MCP name of each tool slug, and back. A slug that is already a valid name keeps it. Any
 * other (a slug with `.`, or longer than 64 characters) has each character outside
 * `[A-Za-z0-9_-]` turned into `_`; when that is still too long or taken, it is cut to 55
 * characters and given `_` and a 8-character hash of the slug, so the name is stable across
 * requests and unique. Slugs are unique, so names are too.
 */
export function mcpToolNames(slugs: readonly string[]): { nameOf: Map<string, string>; slugOf: Map<string, string> } {
  const nameOf = new Map<string, string>();
  const slugOf = new Map<string, string>();
  const take = (slug: string, name: string) => {
    nameOf.set(slug, name);
    slugOf.set(name, slug);
  };
  // Valid slugs first: a mapped name must never take one of theirs.
  for (const slug of slugs) if (MCP_TOOL_NAME.test(slug)) take(slug, slug);
  for (const slug of slugs) {
    if (nameOf.has(slug)) continue;
    const plain = slug.replace(/[^A-Za-z0-9_-]/g, "_");
    take(slug, plain.length <= 64 && !slugOf.has(plain) ? plain : `${plain.slice(0, 55)}_${hash(slug)}`);
  }
  return { nameOf, slugOf };
}

/** FNV-1a, 32 bits, as 8 hex digits: short and stable, not a secret. */
function hash(text: string): string {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193);
  return (h >>> 0).toString(16).padStart(8, "0");
}
