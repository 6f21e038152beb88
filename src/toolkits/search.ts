import { ToolsError } from "../errors.js";
import { fromBase64Url, toBase64Url } from "../util/encoding.js";

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
  return text.toLowerCase().split(/[^\p{L}\p{N}]+/u).filter(Boolean);
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

interface CursorData {
  /** Offset of the next item. */
  o: number;
  /** Fingerprint hash of the query the cursor belongs to. */
  f: string;
}

/** An opaque cursor for `offset` within the results of the query `fingerprint` names. */
export function encodeCursor(offset: number, fingerprint: string): string {
  const data: CursorData = { o: offset, f: hash(fingerprint) };
  return toBase64Url(JSON.stringify(data));
}

/**
 * The offset a cursor points at. Throws `ToolsError("invalid_request")` (400) when the cursor is
 * malformed or was issued for another query (another `fingerprint`).
 */
export function decodeCursor(cursor: string, fingerprint: string): number {
  let data: Partial<CursorData>;
  try {
    if (!/^[A-Za-z0-9_-]+$/.test(cursor)) throw new Error("not base64url");
    data = JSON.parse(new TextDecoder("utf-8", { fatal: true }).decode(fromBase64Url(cursor)));
  } catch {
    throw new ToolsError("invalid_request", "The cursor is malformed: pass the nextCursor of a previous answer unchanged.");
  }
  if (data === null || typeof data !== "object" || !Number.isSafeInteger(data.o) || data.o! < 0 || typeof data.f !== "string") {
    throw new ToolsError("invalid_request", "The cursor is malformed: pass the nextCursor of a previous answer unchanged.");
  }
  if (data.f !== hash(fingerprint)) {
    throw new ToolsError("invalid_request", "The cursor belongs to another query or filter: repeat the request without a cursor.");
  }
  return data.o!;
}

/**
 * One page of `items`: `limit` items from the cursor's offset (from the start without a cursor),
 * and the cursor of the next page, or null on the last page. `fingerprint` names the query and
 * filters the list came from, so a cursor reused with other ones is rejected (400). The route
 * validates `limit` (1 to 200); a cursor past the end gives an empty last page.
 */
export function paginate<T>(items: T[], options: { limit: number; cursor?: string | undefined; fingerprint: string }): { page: T[]; nextCursor: string | null } {
  const offset = options.cursor ? decodeCursor(options.cursor, options.fingerprint) : 0;
  const end = offset + options.limit;
  return {
    page: items.slice(offset, end),
    nextCursor: end < items.length ? encodeCursor(end, options.fingerprint) : null,
  };
}

// The cursor is not a secret and needs no signature: a forged offset only pages the caller's own
// results. The hash just keeps cursors short and detects reuse with another query (cyrb53).
function hash(text: string): string {
  let h1 = 0xdeadbeef;
  let h2 = 0x41c6ce57;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    h1 = Math.imul(h1 ^ c, 2654435761);
    h2 = Math.imul(h2 ^ c, 1597334677);
  }
  h1 = Math.imul(h1 ^ (h1 >>> 16), 2246822507) ^ Math.imul(h2 ^ (h2 >>> 13), 3266489909);
  h2 = Math.imul(h2 ^ (h2 >>> 16), 2246822507) ^ Math.imul(h1 ^ (h1 >>> 13), 3266489909);
  return (4294967296 * (2097151 & h2) + (h1 >>> 0)).toString(36);
}
