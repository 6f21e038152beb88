import type { Toolkit } from "./define.js";

/** The text of an item that a search looks at. */
export interface SearchFields {
  slug: string;
  name: string;
  description: string;
  /** Other names of the item ("gh", "google mail"), matched almost as strongly as its name. */
  aliases?: readonly string[];
  /** Its categories ("crm", "project-management"); the first is its main one. */
  categories?: readonly string[];
  /** Text that matters least, such as the names and descriptions of a toolkit's tools. */
  related?: readonly string[];
  /**
   * A toolkit's tools, each as the text of its slug and name. A toolkit with a tool whose slug and
   * name hold every word of the query gains `TOOL_MATCH` points: an agent looking for "send an
   * email" wants the toolkit that can send one, not one whose description says "email" but has no
   * tools. Whole words only, no prefixes or descriptions: those match too loosely to outrank.
   */
  tools?: readonly string[];
}

// Words that would otherwise match nearly every description.
const STOP_WORDS = new Set(["a", "an", "and", "for", "in", "of", "on", "or", "the", "to", "with"]);

/** Points for the whole query equal to a name, an alias or a category ("google mail", "project management"). */
const PHRASE = { name: 100, alias: 60, mainCategory: 50, category: 40 };
/** Points for a toolkit with a tool named for every word of the query: as many as its own name would give. */
const TOOL_MATCH = 100;
/** Points for one query word equal to a word of a field, or a prefix of one. */
const WORD = {
  name: { exact: 20, prefix: 10 },
  alias: { exact: 10, prefix: 5 },
  category: { exact: 10, prefix: 5 },
  description: { exact: 3, prefix: 1 },
  related: { exact: 1, prefix: 0 },
};

/** Lowercase words of `text`, split on anything that is not a letter or digit (so on `_` and `-` too). */
export function tokenize(text: string): string[] {
  return text
    .toLowerCase()
    .split(/[^\p{L}\p{N}]+/u)
    .filter(Boolean);
}

/**
 * Orders `items` by relevance to `query`. An empty or blank query returns the items in their
 * original order. Otherwise an exact slug match (case-insensitive) comes first, then items by
 * score. The whole query equal to the name, an alias or a category counts most; then each query
 * word scores its best match in each field, a whole word more than a prefix of one, in this order
 * of weight: name or slug, aliases and categories, description, related text. An item with a tool
 * (`fields.tools`) whose slug and name hold every query word gains more than a whole category does. Plural and singular
 * are the same word ("tickets" finds "ticket"). A multi-word query favours items that match more
 * of its words: the score is scaled by the share of words matched. Items that match nothing are
 * dropped; ties keep their original order.
 */
export function rank<T>(items: readonly T[], query: string | undefined, fields: (item: T) => SearchFields): T[] {
  const raw = query?.trim().toLowerCase() ?? "";
  if (!raw) return [...items];
  const all = tokenize(raw);
  const meaningful = all.filter((word) => !STOP_WORDS.has(word));
  const words = (meaningful.length ? meaningful : all).map(singular);
  const phrase = all.map(singular).join(" ");
  return items
    .map((item, index) => ({ item, index, score: score(fields(item), raw, phrase, words) }))
    .filter((entry) => entry.score > 0)
    .sort((a, b) => b.score - a.score || a.index - b.index)
    .map((entry) => entry.item);
}

/**
 * Searches toolkits by `keywords` over their name, slug, aliases, categories and description, and
 * with less weight their tools' names and descriptions (see `rank`); a toolkit with a tool that
 * matches every word ranks above toolkits that only mention them ("send an email" finds Gmail,
 * whose GMAIL_SEND_EMAIL does it, before an email API without tools). Ties are broken by name. No
 * keywords: every toolkit, in the registry's order.
 */
export function searchToolkits(toolkits: readonly Toolkit[], keywords: string | undefined): Toolkit[] {
  if (!keywords?.trim()) return [...toolkits];
  const byName = [...toolkits].sort((a, b) => a.name.localeCompare(b.name, "en") || a.slug.localeCompare(b.slug, "en"));
  return rank(byName, keywords, (toolkit) => ({
    ...toolkit,
    related: toolkit.tools.flatMap((tool) => [tool.name, tool.description]),
    tools: toolkit.tools.map((tool) => `${tool.slug} ${tool.name}`),
  }));
}

function score(item: SearchFields, raw: string, phrase: string, words: string[]): number {
  if (item.slug.toLowerCase() === raw) return 1000;
  const name = [...stems(item.slug), ...stems(item.name)];
  const aliases = (item.aliases ?? []).map(stems);
  const categories = (item.categories ?? []).map(stems);
  const description = stems(item.description);
  const related = (item.related ?? []).flatMap(stems);

  let total = 0;
  if (stems(item.name).join(" ") === phrase || stems(item.slug).join(" ") === phrase) total += PHRASE.name;
  if (aliases.some((alias) => alias.join(" ") === phrase)) total += PHRASE.alias;
  const category = categories.findIndex((words) => words.join(" ") === phrase);
  if (category !== -1) total += category === 0 ? PHRASE.mainCategory : PHRASE.category;

  let matched = 0;
  for (const word of words) {
    const points =
      best(name, word, WORD.name) +
      best(aliases.flat(), word, WORD.alias) +
      best(categories.flat(), word, WORD.category) +
      best(description, word, WORD.description) +
      best(related, word, WORD.related);
    if (points > 0) matched++;
    total += points;
  }
  if (matched === 0) return 0;
  const toolMatch = item.tools?.some((text) => {
    const tokens = stems(text);
    return words.every((word) => tokens.includes(word));
  });
  return (total * matched) / words.length + (toolMatch ? TOOL_MATCH : 0);
}

function best(tokens: readonly string[], word: string, points: { exact: number; prefix: number }): number {
  let result = 0;
  for (const token of tokens) {
    if (token === word) return points.exact;
    // One-letter prefixes match too much to mean anything.
    if (word.length >= 2 && token.startsWith(word)) result = points.prefix;
  }
  return result;
}

function stems(text: string): string[] {
  return tokenize(text).map(singular);
}

/**
 * "tickets" and "ticket", "companies" and "company", "inboxes" and "inbox" are the same word to
 * a searcher. Only these regular English plurals are undone; "status", "analysis" and "address"
 * keep their "s".
 */
export function singular(word: string): string {
  if (word.length > 4 && word.endsWith("ies")) return `${word.slice(0, -3)}y`;
  if (/(?:ss|x|ch|sh)es$/.test(word)) return word.slice(0, -2);
  if (word.length > 3 && word.endsWith("s") && !/(?:ss|us|is)$/.test(word)) return word.slice(0, -1);
  return word;
}
