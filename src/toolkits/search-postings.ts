/**
 * An inverted index of one field: each word to the ascending ids of the items that hold it, and
 * the sorted words, so that the words a query word begins can be found without a scan.
 */
export class Postings {
  private readonly byWord = new Map<string, number[]>();
  private sorted: string[] | null = null;

  /** Adds the item's words; ids must be added in ascending order. */
  add(id: number, words: readonly string[]): void {
    for (const word of words) {
      const ids = this.byWord.get(word);
      if (!ids) this.byWord.set(word, [id]);
      else if (ids[ids.length - 1] !== id) ids.push(id);
    }
    this.sorted = null;
  }

  /** The ids of the items holding `word`, ascending. */
  exact(word: string): readonly number[] {
    return this.byWord.get(word) ?? NONE;
  }

  /** Calls `visit` with each id (within [from, to)) of the items holding a longer word that begins with `word`. */
  prefixed(word: string, from: number, to: number, visit: (id: number) => void): void {
    const words = this.words();
    for (let i = lowerBound(words, word); i < words.length && words[i]!.startsWith(word); i++) {
      if (words[i] === word) continue;
      const ids = this.byWord.get(words[i]!)!;
      for (let j = firstAtLeast(ids, from); j < ids.length && ids[j]! < to; j++) visit(ids[j]!);
    }
  }

  private words(): string[] {
    if (!this.sorted) this.sorted = [...this.byWord.keys()].sort();
    return this.sorted;
  }
}

const NONE: readonly number[] = [];

/** The ids of `ids` (ascending) within [from, to). */
export function within(ids: readonly number[], from: number, to: number): readonly number[] {
  const start = firstAtLeast(ids, from);
  let end = start;
  while (end < ids.length && ids[end]! < to) end++;
  return start === 0 && end === ids.length ? ids : ids.slice(start, end);
}

/** Whether `ids` (ascending) holds `id`. */
export function includes(ids: readonly number[], id: number): boolean {
  const at = firstAtLeast(ids, id);
  return at < ids.length && ids[at] === id;
}

function lowerBound(words: readonly string[], word: string): number {
  let low = 0;
  let high = words.length;
  while (low < high) {
    const mid = (low + high) >>> 1;
    if (words[mid]! < word) low = mid + 1;
    else high = mid;
  }
  return low;
}

function firstAtLeast(ids: readonly number[], value: number): number {
  let low = 0;
  let high = ids.length;
  while (low < high) {
    const mid = (low + high) >>> 1;
    if (ids[mid]! < value) low = mid + 1;
    else high = mid;
  }
  return low;
}
