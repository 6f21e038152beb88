/**
 * A provider's generated tools, all documents together: slugs made unique and kept clear of the
 * curated tools' slugs, the default set marked, the `$defs` shared.
 */
import { type BuiltTool, credentialPlaces, type ImportReport, importDocument, type ProviderSource, readDocument } from "./operations.js";
import { shareDefs } from "./schemas.js";
import { slugPrefix } from "./text.js";

const SLUG_MAX = 64;

export interface ProviderBuild {
  module: { defs: Record<string, unknown>; tools: Array<Omit<BuiltTool, "key"> & { defs?: string[] }> };
  /** `[slug, name, description, flags]`: flags 1 read-only, 2 destructive, 4 default. */
  summaries: Array<[string, string, string, number]>;
  source: string;
  left: string[];
  /** Mistakes of the mapping entry (operations it names that are not there). */
  problems: string[];
  warnings: number;
}

/** Builds the tools of `slug` from its mapping entry, for the provider (base URLs, auth modes), beside `curated` (its curated tools' slugs). */
export async function buildProvider(
  slug: string,
  entry: ProviderSource,
  provider: { baseUrls: readonly string[]; auth: ReadonlyArray<Record<string, any>> },
  curated: readonly string[],
): Promise<ProviderBuild> {
  const reports: ImportReport[] = [];
  const credentials = credentialPlaces(provider.auth);
  for (const document of entry.documents)
    reports.push(await importDocument(slug, document, provider.baseUrls, entry.covered ?? {}, credentials));
  const tools = shortenSlugs(
    slug,
    reports.flatMap((report) => report.tools),
  );
  const taken = new Set(curated);
  const left = reports.flatMap((report) => report.left);
  const defaults = new Set(entry.default ?? []);
  const unknown = [...defaults].filter((key) => !tools.some((tool) => tool.key === key));
  const problems: string[] = [];
  if (unknown.length > 0) problems.push(`the default set names operations that are not generated: ${unknown.join(", ")}`);
  const known = new Set(reports.flatMap((report) => [...report.keys]));
  const stale = Object.keys(entry.covered ?? {}).filter((key) => !known.has(key));
  if (stale.length > 0) problems.push(`"covered" names operations the documents do not have: ${stale.join(", ")}`);
  const kept: BuiltTool[] = [];
  for (const tool of tools) {
    if (taken.has(tool.slug)) {
      left.push(`${tool.slug}: a curated tool has this slug`);
      continue;
    }
    taken.add(tool.slug);
    kept.push(tool);
  }
  const lost = [...defaults].filter((key) => tools.some((tool) => tool.key === key) && !kept.some((tool) => tool.key === key));
  if (lost.length > 0) problems.push(`the default set names operations whose slug is a curated tool's: ${lost.join(", ")}`);
  // A key two operations share (Box's `/files/{file_id}#get_shared_link`) marks the first as default.
  const marked = new Set<string>();
  const summaries = kept.map((tool): [string, string, string, number] => {
    const first = tool.key !== undefined && defaults.has(tool.key) && !marked.has(tool.key);
    if (first) marked.add(tool.key!);
    return [tool.slug, tool.name, tool.description, flags(tool, first)];
  });
  const shared = shareDefs(kept.map(({ key: _, ...tool }) => tool));
  const source = entry.documents
    .map((document) => {
      const { version, info } = readDocument(document);
      return `${document.package}@${version} ${document.path} (document version ${info})`;
    })
    .join("; ");
  return { module: shared, summaries, source, left, problems, warnings: reports.reduce((sum, report) => sum + report.warnings, 0) };
}

function flags(tool: BuiltTool, isDefault: boolean): number {
  const readOnly = tool.method === "GET" || tool.method === "HEAD" || tool.method === "OPTIONS";
  return (readOnly ? 1 : 0) | (tool.method === "DELETE" ? 2 : 0) | (isDefault ? 4 : 0);
}

/**
 * Slugs without a namespace every operation repeats (Google's `gmail.users.messages.list` under
 * `GMAIL_`), at most 64 characters, `_2`, `_3` on a repeat.
 */
function shortenSlugs(provider: string, tools: BuiltTool[]): BuiltTool[] {
  const prefix = `${slugPrefix(provider)}_`;
  const rests = tools.map((tool) => tool.slug.slice(prefix.length));
  const first = rests[0]?.split("_")[0];
  const common = tools.length > 1 && first && rests.every((rest) => rest.startsWith(`${first}_`)) ? `${first}_` : "";
  const seen = new Set<string>();
  return tools.map((tool, index) => {
    let rest = rests[index]!.slice(common.length);
    if (rest.startsWith(prefix)) rest = rest.slice(prefix.length);
    const whole = `${prefix}${rest}`;
    // Cut at a word boundary: a slug ends with a whole word.
    const base = whole.length <= SLUG_MAX ? whole : whole.slice(0, whole.lastIndexOf("_", SLUG_MAX - 3));
    let slug = base;
    for (let n = 2; seen.has(slug); n++) slug = `${base.slice(0, SLUG_MAX - String(n).length - 1)}_${n}`;
    seen.add(slug);
    return { ...tool, slug };
  });
}
