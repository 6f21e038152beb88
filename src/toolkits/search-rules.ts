/** The words, weights and query parsing every search shares: `rank` and the index score alike. */

// Words that would otherwise match nearly every description.
const STOP_WORDS = new Set(["a", "an", "and", "for", "in", "of", "on", "or", "the", "to", "with"]);

/** Points for the whole query equal to a name, an alias or a category ("google mail", "project management"). */
export const PHRASE = { name: 100, alias: 60, mainCategory: 50, category: 40 };
/** Points for a toolkit with a tool named for every word of the query: as many as its own name would give. */
export const TOOL_MATCH = 100;
/** How many times a default-set tool's score counts in a toolkit's tool search (a power of two, so the index and the scan agree exactly). */
export const DEFAULT_SET = 2;

/**
 * Whether a query can earn `TOOL_MATCH`: only one of two meaningful words or more ("send email").
 * A single word that is also a tool's verb or object ("lists", "comments", "social") would
 * otherwise lift every toolkit with such a tool above the ones the word names.
 */
export function toolMatchApplies(words: readonly string[]): boolean {
  return words.length >= 2;
}
/** Points for one query word equal to a word of a field, or a prefix of one. */
export const WORD = {
  name: { exact: 20, prefix: 10 },
  alias: { exact: 10, prefix: 5 },
  category: { exact: 10, prefix: 5 },
  description: { exact: 3, prefix: 1 },
  related: { exact: 1, prefix: 0 },
};

/** A query as the scores read it. */
export interface ParsedQuery {
  /** The query trimmed and lowercased, compared with slugs. */
  raw: string;
  /** Its words in singular, stop words left out unless the query has nothing else. */
  words: string[];
  /** All its words in singular, joined by one space, compared with whole names, aliases and categories. */
  phrase: string;
}

/** The parsed query, or null for an empty or blank one. */
export function parseQuery(query: string | undefined): ParsedQuery | null {
  const raw = query?.trim().toLowerCase() ?? "";
  if (!raw) return null;
  const all = tokenize(raw);
  const meaningful = all.filter((word) => !STOP_WORDS.has(word));
  return { raw, words: (meaningful.length ? meaningful : all).map(singular), phrase: all.map(singular).join(" ") };
}

/** Lowercase words of `text`, split on anything that is not a letter or digit (so on `_` and `-` too). */
export function tokenize(text: string): string[] {
  return text
    .toLowerCase()
    .split(/[^\p{L}\p{N}]+/u)
    .filter(Boolean);
}

/** The words of `text`, each in singular. */
export function stems(text: string): string[] {
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
