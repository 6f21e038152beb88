import type { Toolkit } from "./define.js";
import { type ToolSummary, toolSummaries } from "./lazy.js";
import { includes, Postings, within } from "./search-postings.js";
import { DEFAULT_SET, type ParsedQuery, PHRASE, stems, TOOL_MATCH, toolMatchApplies, WORD } from "./search-rules.js";

/**
 * The words of a list of toolkits and of all their tools (by their summaries, loading nothing),
 * made once per list, so that ranking toolkits and a toolkit's tools looks up each query word
 * instead of reading every tool's text. It gives the same order as `rank` (see search.ts): the
 * same fields, points and ties.
 *
 * Toolkits are numbered in the list's order (the order ties keep); tools are numbered toolkit
 * after toolkit, so a toolkit's tools are one range of ids.
 */
export class SearchIndex {
  /** The toolkits as given, to tell whether a later list is the same. */
  readonly source: readonly Toolkit[];
  readonly toolkits: Toolkit[];
  private readonly idOf = new Map<Toolkit, number>();
  private readonly toolStart: number[] = [];
  private readonly toolkitOfTool: number[] = [];
  private readonly summaries: ToolSummary[] = [];
  private readonly kit = new Fields();
  private readonly tool = new Fields();
  /** Each word of a toolkit's tools' names and descriptions, to the toolkits. */
  private readonly related = new Postings();

  constructor(toolkits: readonly Toolkit[]) {
    this.source = [...toolkits];
    this.toolkits = [...toolkits];
    this.toolkits.forEach((toolkit, id) => {
      this.idOf.set(toolkit, id);
      this.kit.addItem(id, toolkit);
      this.toolStart.push(this.summaries.length);
      for (const summary of toolSummaries(toolkit)) {
        const toolId = this.summaries.length;
        this.summaries.push(summary);
        this.toolkitOfTool.push(id);
        const { name, description } = this.tool.addItem(toolId, summary);
        // Postings keep an id once per word: the toolkit's id is the same for all its tools.
        this.related.add(id, name);
        this.related.add(id, description);
      }
    });
    this.toolStart.push(this.summaries.length);
  }

  /** Toolkits matching the query, most relevant first (see `searchToolkits`). */
  rankToolkits(query: ParsedQuery): Toolkit[] {
    const extra = [{ ids: (word: string) => this.related.exact(word), points: WORD.related.exact }];
    const scores = this.kit.score(query, 0, this.toolkits.length, extra);
    for (const toolkit of toolMatchApplies(query.words) ? this.withToolFor(query.words) : []) {
      const current = scores.get(toolkit);
      if (current !== undefined) scores.set(toolkit, current + TOOL_MATCH);
    }
    for (const id of this.kit.slugHits(query.raw, 0, this.toolkits.length)) scores.set(id, 1000);
    return ordered(scores).map((id) => this.toolkits[id]!);
  }

  /** The tools of `toolkit` matching the query, most relevant first; undefined for a toolkit not indexed. */
  rankTools(toolkit: Toolkit, query: ParsedQuery): ToolSummary[] | undefined {
    const id = this.idOf.get(toolkit);
    if (id === undefined) return undefined;
    const [from, to] = [this.toolStart[id]!, this.toolStart[id + 1]!];
    const scores = this.tool.score(query, from, to, []);
    for (const [toolId, score] of scores) if (this.summaries[toolId]!.default) scores.set(toolId, score * DEFAULT_SET);
    for (const toolId of this.tool.slugHits(query.raw, from, to)) scores.set(toolId, 1000);
    return ordered(scores).map((toolId) => this.summaries[toolId]!);
  }

  /** Toolkits with a tool whose slug and name hold every word. */
  private withToolFor(words: readonly string[]): Set<number> {
    const lists = words.map((word) => this.tool.named(word));
    const rarest = lists.reduce((a, b) => (b.length < a.length ? b : a), lists[0] ?? []);
    const found = new Set<number>();
    for (const tool of rarest) {
      if (lists.every((ids) => includes(ids, tool))) found.add(this.toolkitOfTool[tool]!);
    }
    return found;
  }
}

/** Ids by score, highest first, ties by id. */
function ordered(scores: Map<number, number>): number[] {
  return [...scores]
    .filter(([, score]) => score > 0)
    .sort((a, b) => b[1] - a[1] || a[0] - b[0])
    .map(([id]) => id);
}

interface Item {
  slug: string;
  name: string;
  description: string;
  aliases?: readonly string[];
  categories?: readonly string[];
}

/** The searched fields of one kind of item (toolkits, or tools), with their phrases and slugs. */
class Fields {
  private readonly name = new Postings();
  private readonly alias = new Postings();
  private readonly category = new Postings();
  private readonly description = new Postings();
  private readonly slugs = new Map<string, number[]>();
  private readonly phrases = {
    name: new Map<string, number[]>(),
    alias: new Map<string, number[]>(),
    category: new Map<string, number[]>(),
  };
  private readonly mainCategory = new Map<string, number[]>();

  /** Adds the item's words, and returns those of its slug, name and description (in singular). */
  addItem(id: number, item: Item): { slug: string[]; name: string[]; description: string[] } {
    const words = { slug: stems(item.slug), name: stems(item.name), description: stems(item.description) };
    this.name.add(id, [...words.slug, ...words.name]);
    const aliases = (item.aliases ?? []).map(stems);
    const categories = (item.categories ?? []).map(stems);
    this.alias.add(id, aliases.flat());
    this.category.add(id, categories.flat());
    this.description.add(id, words.description);
    push(this.slugs, item.slug.toLowerCase(), id);
    for (const phrase of new Set([words.name.join(" "), words.slug.join(" ")])) push(this.phrases.name, phrase, id);
    for (const phrase of new Set(aliases.map((words) => words.join(" ")))) push(this.phrases.alias, phrase, id);
    const first = categories[0]?.join(" ");
    if (first !== undefined) push(this.mainCategory, first, id);
    for (const phrase of new Set(categories.slice(1).map((words) => words.join(" ")))) {
      if (phrase !== first) push(this.phrases.category, phrase, id);
    }
    return words;
  }

  /**
   * Scores of the items with ids in [from, to) that match, as `rank` scores them before its tool
   * bonus: `extra` adds fields scored by whole words only (a toolkit's tool text).
   */
  score(
    query: ParsedQuery,
    from: number,
    to: number,
    extra: Array<{ ids: (word: string) => Iterable<number>; points: number }>,
  ): Map<number, number> {
    // Arrays over the range, not maps: a word of a large toolkit can match thousands of tools.
    const size = to - from;
    const totals = new Float64Array(size);
    const matched = new Uint16Array(size);
    const points = new Float64Array(size);
    const touched: number[] = [];
    const marks = new Marks(size);
    for (const word of query.words) {
      const hit: number[] = [];
      const add = (id: number, value: number) => {
        if (points[id - from] === 0) hit.push(id);
        points[id - from] = points[id - from]! + value;
      };
      for (const [postings, weights] of [
        [this.name, WORD.name],
        [this.alias, WORD.alias],
        [this.category, WORD.category],
        [this.description, WORD.description],
      ] as const) {
        addBest(add, marks, postings, word, weights, from, to);
      }
      for (const field of extra) {
        for (const id of field.ids(word)) if (id >= from && id < to) add(id, field.points);
      }
      for (const id of hit) {
        const at = id - from;
        if (matched[at] === 0) touched.push(id);
        totals[at] = totals[at]! + points[at]!;
        matched[at] = matched[at]! + 1;
        points[at] = 0;
      }
    }
    const phrased = this.phrasePoints(query.phrase, from, to);
    const scores = new Map<number, number>();
    for (const id of touched) {
      const total = totals[id - from]! + (phrased.get(id) ?? 0);
      scores.set(id, (total * matched[id - from]!) / query.words.length);
    }
    return scores;
  }

  /** The items whose slug or name holds `word`, ascending. */
  named(word: string): readonly number[] {
    return this.name.exact(word);
  }

  /** The items whose slug is the whole query (case aside), which `rank` puts first. */
  slugHits(raw: string, from: number, to: number): readonly number[] {
    return within(this.slugs.get(raw) ?? [], from, to);
  }

  /** Points of the items whose name, an alias or a category is the whole query. */
  private phrasePoints(phrase: string, from: number, to: number): Map<number, number> {
    const points = new Map<number, number>();
    const add = (map: Map<string, number[]>, value: number) => {
      for (const id of within(map.get(phrase) ?? [], from, to)) points.set(id, (points.get(id) ?? 0) + value);
    };
    add(this.phrases.name, PHRASE.name);
    add(this.phrases.alias, PHRASE.alias);
    add(this.mainCategory, PHRASE.mainCategory);
    add(this.phrases.category, PHRASE.category);
    return points;
  }
}

/** Adds to each item its best match of `word` in one field: a whole word, else a longer word it begins. */
function addBest(
  add: (id: number, value: number) => void,
  marks: Marks,
  postings: Postings,
  word: string,
  weights: { exact: number; prefix: number },
  from: number,
  to: number,
): void {
  const exact = within(postings.exact(word), from, to);
  for (const id of exact) add(id, weights.exact);
  // One-letter prefixes match too much to mean anything.
  if (word.length < 2 || weights.prefix === 0) return;
  const field = marks.next();
  for (const id of exact) marks.set(id - from, field);
  postings.prefixed(word, from, to, (id) => {
    if (marks.get(id - from) === field) return;
    marks.set(id - from, field);
    add(id, weights.prefix);
  });
}

/** Which items a field has already counted for a word, reset by starting a new field (no clearing). */
class Marks {
  private readonly stamps: Uint32Array;
  private current = 0;
  constructor(size: number) {
    this.stamps = new Uint32Array(size);
  }
  next(): number {
    return ++this.current;
  }
  get(at: number): number {
    return this.stamps[at]!;
  }
  set(at: number, stamp: number): void {
    this.stamps[at] = stamp;
  }
}

function push(map: Map<string, number[]>, key: string, id: number): void {
  const ids = map.get(key);
  if (!ids) map.set(key, [id]);
  else if (ids[ids.length - 1] !== id) ids.push(id);
}
