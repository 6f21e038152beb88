/** What a tool slug may be: letters, digits, "_", "." or "-", starting with a letter or a digit, at most 128. */
const TOOL_SLUG = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,127}$/;
const MAX_SLUG = 128;

/**
 * The slugs of a remote MCP server's tools in the toolkit `toolkit`: `<toolkit>.<name>`, the name
 * made to fit a tool slug (other characters become `_`, cut to length). Names that then collide
 * (`a b` and `a_b`) keep the plain slug only for the one that needed no change; the others get
 * `_` and a short hash of their original name, so each slug is the same from one listing to the
 * next. Returns original name → slug; a name listed twice keeps its first slug.
 */
export function remoteToolSlugs(toolkit: string, names: readonly string[]): Map<string, string> {
  const prefix = `${toolkit}.`;
  const fitted = new Map<string, string>();
  const count = new Map<string, number>();
  for (const name of names) {
    if (fitted.has(name)) continue;
    const slug = prefix + fittedName(name, MAX_SLUG - prefix.length);
    fitted.set(name, slug);
    count.set(slug, (count.get(slug) ?? 0) + 1);
  }
  const taken = new Set([...fitted].filter(([name, slug]) => count.get(slug) === 1 || slug === prefix + name).map(([, slug]) => slug));
  const slugs = new Map<string, string>();
  for (const [name, slug] of fitted) {
    if (count.get(slug) === 1 || slug === prefix + name) {
      slugs.set(name, slug);
      continue;
    }
    let suffixed = slug;
    for (let attempt = 0; taken.has(suffixed) || suffixed === slug; attempt++) {
      // Longer hashes first; past the whole hash, a counter (a clash that far is deliberate).
      const tag = attempt < 4 ? `_${hashOf(name, 6 + 2 * attempt)}` : `_${hashOf(name, 13)}${attempt}`;
      suffixed = slug.slice(0, MAX_SLUG - tag.length) + tag;
    }
    taken.add(suffixed);
    slugs.set(name, suffixed);
  }
  return slugs;
}

/** A tool name as the part of a slug after its toolkit's prefix, at most `room` characters. */
function fittedName(name: string, room: number): string {
  const replaced = name.replace(/[^A-Za-z0-9_.-]/g, "_").slice(0, room);
  const fitted = /^[A-Za-z0-9]/.test(replaced) ? replaced : `t${replaced}`.slice(0, room);
  return TOOL_SLUG.test(`x${fitted}`) && fitted !== "" ? fitted : "tool";
}

/** `length` base-36 characters of a 64-bit FNV-1a hash of `text`: short, stable, and the same on every runtime. */
function hashOf(text: string, length: number): string {
  let hash = 0xcbf29ce484222325n;
  for (const byte of new TextEncoder().encode(text)) {
    hash ^= BigInt(byte);
    hash = (hash * 0x100000001b3n) & 0xffffffffffffffffn;
  }
  return hash.toString(36).padStart(13, "0").slice(0, Math.min(length, 13));
}
