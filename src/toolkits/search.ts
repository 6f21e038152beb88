import type { Toolkit } from "./define.js";
import { defaultFirst, type ToolSummary, toolSummaries } from "./lazy.js";
import { SearchIndex } from "./search-index.js";
import { DEFAULT_SET, type ParsedQuery, PHRASE, parseQuery, stems, TOOL_MATCH, toolMatchApplies, WORD } from "./search-rules.js";

export { singular, tokenize } from "./search-rules.js";

/** The text of an item that a search looks at. */
export interface SearchFields {
  slug: string;
  name: string;
  description: string;
  /**
   * A tool of its toolkit's default set (curated tools, and the generated operations agents use
   * most): its score counts `DEFAULT_SET` times, so that among hundreds of generated operations the
   * ones a toolkit is used for come first.
   */
  default?: boolean;
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

/**
 * Orders `items` by relevance to `query`. An empty or blank query returns the items in their
 * original order. Otherwise an exact slug match (case-insensitive) comes first, then items by
 * score. The whole query equal to the name, an alias or a category counts most; then each query
 * word scores its best match in each field, a whole word more than a prefix of one, in this order
 * of weight: name or slug, aliases and categories, description, related text. An item with a tool
 * (`fields.tools`) whose slug and name hold every query word gains more than a whole category does,
 * for a query of two meaningful words or more (see `toolMatchApplies`). Plural and singular
 * are the same word ("tickets" finds "ticket"). A multi-word query favours items that match more
 * of its words: the score is scaled by the share of words matched. Items that match nothing are
 * dropped; ties keep their original order.
 */
export function rank<T>(items: readonly T[], query: string | undefined, fields: (item: T) => SearchFields): T[] {
  const parsed = parseQuery(query);
  if (!parsed) return [...items];
  return items
    .map((item, index) => ({ item, index, score: score(fields(item), parsed) }))
    .filter((entry) => entry.score > 0)
    .sort((a, b) => b.score - a.score || a.index - b.index)
    .map((entry) => entry.item);
}

/**
 * Searches toolkits by `keywords` over their name, slug, aliases, categories and description, and
 * with less weight their tools' names and descriptions (see `rank`), read from the tools'
 * summaries, so lazy tools are searched without being loaded; a toolkit with a tool that
 * matches every word ranks above toolkits that only mention them ("send an email" finds Gmail,
 * whose GMAIL_SEND_EMAIL does it, before an email API without tools). Ties keep the registry's order
 * (the catalog's is most connected first). No keywords: every toolkit, in the registry's order.
 *
 * The words are looked up in an index of `toolkits` made on the first search of that list and
 * kept while the same toolkits are passed (see `searchIndex`), so a search over a hundred
 * thousand tools reads only the words of the query.
 */
export function searchToolkits(toolkits: readonly Toolkit[], keywords: string | undefined): Toolkit[] {
  const query = parseQuery(keywords);
  if (!query) return [...toolkits];
  return searchIndex(toolkits).rankToolkits(query);
}

/**
 * The tools of `toolkit` matching `query`, most relevant first, as `rank` orders them; without a
 * query, every tool with the default set first (see `defaultFirst`). Summaries only: nothing is
 * loaded. The words are looked up in an index that holds the toolkit: the one `searchToolkits`
 * made of a list that has it, else one of this toolkit alone, kept while the toolkit lives.
 */
export function searchTools(toolkit: Toolkit, query: string | undefined): ToolSummary[] {
  const parsed = parseQuery(query);
  if (!parsed) return defaultFirst(toolSummaries(toolkit));
  for (const index of recent) {
    const found = index.rankTools(toolkit, parsed);
    if (found) return found;
  }
  let own = alone.get(toolkit);
  if (!own) {
    own = new SearchIndex([toolkit]);
    alone.set(toolkit, own);
  }
  return own.rankTools(toolkit, parsed)!;
}

const alone = new WeakMap<Toolkit, SearchIndex>();

const recent: SearchIndex[] = [];
/** Lists of toolkits whose index is kept (a handler has one; a test makes several). */
const KEPT = 4;

/**
 * The index of these toolkits: the one made for the same toolkits in the same order, else a new
 * one (kept, dropping the oldest past a few). A registry that changes its list is indexed again.
 */
export function searchIndex(toolkits: readonly Toolkit[]): SearchIndex {
  const found = recent.find((index) => sameToolkits(index.source, toolkits));
  if (found) return found;
  const index = new SearchIndex(toolkits);
  if (recent.length >= KEPT) recent.shift();
  recent.push(index);
  return index;
}

function sameToolkits(a: readonly Toolkit[], b: readonly Toolkit[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

function score(item: SearchFields, { raw, phrase, words }: ParsedQuery): number {
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
  const toolMatch =
    toolMatchApplies(words) &&
    item.tools?.some((text) => {
      const tokens = stems(text);
      return words.every((word) => tokens.includes(word));
    });
  return ((total * matched) / words.length + (toolMatch ? TOOL_MATCH : 0)) * (item.default ? DEFAULT_SET : 1);
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
