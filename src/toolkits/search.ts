/** The text of an item that a search looks at. */
export interface SearchFields {
  slug: string;
  name: string;
  description: string;
}

// Words that would otherwise match nearly every description.
const STOP_WORDS = new Set(["a", "an", "and", "for", "in", "of", "on", "or", "the", "to", "with"]);

/** Lowercase words of `text`, split on anything that is not a letter or digit (so on `_` too). */
export function tokenize(text: string): string[] {
  return text
    .toLowerCase()
    .split(/[^\p{L}\p{N}]+/u)
    .filter(Boolean);
}

/**
 * Orders `items` by relevance to `query`. An empty or blank query returns the items in their
 * original order. Otherwise an exact slug match (case-insensitive) comes first, then items by
 * score: a query word equal to a word of the slug or name counts most, a prefix of one less,
 * a word of the description least (a plural "s" is ignored). Items that match nothing are dropped; ties keep their
 * original order.
 */
export function rank<T>(items: T[], query: string | undefined, fields: (item: T) => SearchFields): T[] {
  const raw = query?.trim().toLowerCase() ?? "";
  if (!raw) return items;
  const words = tokenize(raw);
  const meaningful = words.filter((word) => !STOP_WORDS.has(word));
  const queryWords = meaningful.length ? meaningful : words;
  return items
    .map((item, index) => ({ item, index, score: score(fields(item), raw, queryWords) }))
    .filter((entry) => entry.score > 0)
    .sort((a, b) => b.score - a.score || a.index - b.index)
    .map((entry) => entry.item);
}

function score(item: SearchFields, raw: string, queryWords: string[]): number {
  let total = item.slug.toLowerCase() === raw ? 1000 : 0;
  const slug = tokenize(item.slug);
  const name = tokenize(item.name);
  const description = tokenize(item.description);
  for (const word of queryWords) {
    total += best(slug, word, 30, 15) + best(name, word, 20, 10) + best(description, word, 5, 2);
  }
  return total;
}

function best(tokens: string[], word: string, exact: number, prefix: number): number {
  let result = 0;
  const stem = singular(word);
  for (const token of tokens) {
    if (token === word || singular(token) === stem) return exact;
    // One-letter prefixes match too much to mean anything.
    if (word.length >= 2 && token.startsWith(word)) result = prefix;
  }
  return result;
}

/** "issues" and "issue" are the same word to a searcher; a plain trailing "s" is all we undo. */
function singular(word: string): string {
  return word.length > 3 && word.endsWith("s") && !word.endsWith("ss") ? word.slice(0, -1) : word;
}
