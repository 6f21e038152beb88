/**
 * Redaction of secrets from bodies as bytes, whole or while they stream: the one scanner of every
 * answer that is not parsed into data (staged answers, the passthrough). It looks for the UTF-8
 * bytes of each of the secrets' forms (`secretForms`) and masks every occurrence: in text with
 * `[redacted]`, in a binary body with as many `*` bytes, so that its length and the offsets inside
 * it hold. A stream keeps back the last (longest form − 1) bytes of each chunk until the next one
 * comes, so a secret cut in two by a chunk boundary is found; nothing else is held.
 */
import { looksLikeText, type MaskStyle, SNIFF_BYTES } from "./body-kind.js";
import { REDACTED } from "./redact.js";

const encoder = new TextEncoder();
const TEXT_MASK = encoder.encode(REDACTED);
const BINARY_MASK_BYTE = 0x2a; // "*"

/** How a body is masked: a style, or `sniff` to choose by its first bytes (`looksLikeText`). */
export type MaskChoice = MaskStyle | "sniff";

/** What a scan found, once the body ended: the style used and how many secrets were masked. */
export interface ScanReport {
  style: MaskStyle;
  masked: number;
}

// Buffer's indexOf searches natively, several times faster than a loop over bytes; runtimes
// without Buffer use the loop.
const NodeBuffer = (globalThis as { Buffer?: typeof Buffer }).Buffer;

/** The first index at or after `from` where `needle` occurs in `hay`, or -1. */
function indexOfBytes(hay: Uint8Array, needle: Uint8Array, from: number): number {
  if (NodeBuffer) return NodeBuffer.from(hay.buffer, hay.byteOffset, hay.byteLength).indexOf(needle, from);
  return searchBytes(hay, needle, from);
}

/** `indexOfBytes` without Buffer (exported for its test): each place the first byte occurs, checked. */
export function searchBytes(hay: Uint8Array, needle: Uint8Array, from: number): number {
  const first = needle[0]!;
  const last = hay.length - needle.length;
  for (let i = hay.indexOf(first, from); i !== -1 && i <= last; i = hay.indexOf(first, i + 1)) {
    let k = 1;
    while (k < needle.length && hay[i + k] === needle[k]) k++;
    if (k === needle.length) return i;
  }
  return -1;
}

/**
 * The byte spellings of the forms: distinct, longest first. Two forms have the same bytes only
 * when they differ by unpaired surrogates, which UTF-8 encodes as U+FFFD.
 */
function patternsOf(forms: readonly string[]): Uint8Array[] {
  const unique = new Map<string, Uint8Array>();
  for (const form of forms) if (form.length > 0) unique.set(wellFormed(form), encoder.encode(form));
  return [...unique.values()].sort((a, b) => b.length - a.length);
}

/** A form as UTF-8 spells it: each unpaired surrogate becomes U+FFFD. */
function wellFormed(form: string): string {
  return form.replace(/\p{Cs}/gu, "\uFFFD");
}

/**
 * Whether no form occurs in `bytes`, when Buffer can tell at once (it searches for a string's UTF-8);
 * else false. Forms are made well formed first: Node 24 aborts the process (a failed native
 * assertion in `IndexOfString`) when the string searched for holds an unpaired surrogate.
 */
function surelyClean(bytes: Uint8Array, forms: readonly string[]): boolean {
  if (!NodeBuffer) return false;
  const buffer = NodeBuffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  return forms.every((form) => form.length === 0 || buffer.indexOf(wellFormed(form)) === -1);
}

/** Joins chunks into one new buffer. */
function concat(chunks: Uint8Array[]): Uint8Array {
  if (chunks.length === 1) return chunks[0]!;
  const out = new Uint8Array(chunks.reduce((n, c) => n + c.byteLength, 0));
  let offset = 0;
  for (const chunk of chunks) {
    out.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return out;
}

/** The scanning state of one body. */
class Scanner {
  readonly #patterns: Uint8Array[];
  readonly #keep: number;
  #style: MaskChoice;
  /** Bytes seen but not yet passed on: the tail that may begin a secret, or the head while sniffing. */
  #held: Uint8Array[] = [];
  #heldBytes = 0;
  masked = 0;

  constructor(patterns: Uint8Array[], style: MaskChoice) {
    this.#patterns = patterns;
    this.#keep = patterns[0]!.length - 1;
    this.#style = style;
  }

  get style(): MaskStyle {
    return this.#style === "sniff" ? "binary" : this.#style;
  }

  /** The bytes of `chunk` that can be passed on now (possibly none), masked. */
  push(chunk: Uint8Array): Uint8Array | null {
    this.#held.push(chunk);
    this.#heldBytes += chunk.byteLength;
    if (this.#style === "sniff") {
      if (this.#heldBytes < SNIFF_BYTES) return null;
      this.#decide();
    }
    return this.#scan(false);
  }

  /** Whatever is still held, masked: the body ended. */
  end(): Uint8Array | null {
    if (this.#style === "sniff") this.#decide();
    return this.#scan(true);
  }

  #decide(): void {
    const head = concat(this.#held);
    this.#held = [head];
    this.#style = looksLikeText(head.subarray(0, SNIFF_BYTES)) ? "text" : "binary";
  }

  /**
   * Masks every secret that starts where no longer form could still be cut off (all of them at
   * the end), passes on everything before the kept tail, and holds the tail.
   */
  #scan(final: boolean): Uint8Array | null {
    const data = concat(this.#held);
    const decided = final ? data.length : data.length - this.#keep;
    if (decided <= 0) {
      this.#held = data.length > 0 ? [data] : [];
      return null;
    }
    const out: Uint8Array[] = [];
    // Where each pattern next occurs at or after `pos` (-1: nowhere in `data`), so each is searched
    // for once per occurrence, however many secrets a chunk holds.
    const next = this.#patterns.map(() => -2);
    let pos = 0;
    for (;;) {
      let at = -1;
      let length = 0;
      for (const [i, pattern] of this.#patterns.entries()) {
        if (next[i]! !== -1 && next[i]! < pos) next[i] = indexOfBytes(data, pattern, pos);
        const found = next[i]!;
        // Longest first: at the same start, the longer form (a secret containing another) wins.
        if (found !== -1 && found < decided && (at === -1 || found < at)) {
          at = found;
          length = pattern.length;
        }
      }
      if (at === -1) break;
      if (at > pos) out.push(data.subarray(pos, at));
      out.push(this.#mask(length));
      this.masked++;
      pos = at + length;
    }
    const end = Math.max(pos, decided);
    if (end > pos) out.push(data.subarray(pos, end));
    this.#held = end < data.length ? [data.subarray(end)] : [];
    this.#heldBytes = data.length - end;
    return out.length === 0 ? null : concat(out);
  }

  #mask(length: number): Uint8Array {
    // A copy each time: a consumer may keep or transfer what it is given.
    return this.#style === "text" ? TEXT_MASK.slice() : new Uint8Array(length).fill(BINARY_MASK_BYTE);
  }
}

/** The scanner of `forms`, or null when there is nothing to look for. */
function scannerFor(forms: readonly string[], style: MaskChoice): Scanner | null {
  const patterns = patternsOf(forms);
  return patterns.length === 0 ? null : new Scanner(patterns, style);
}

/**
 * `bytes` with every form of the secrets masked (`style`, see above): the same array when none
 * occurs, else a new one. For a body known whole.
 */
export function redactBytes(bytes: Uint8Array, forms: readonly string[], style: MaskChoice): { bytes: Uint8Array } & ScanReport {
  // Most answers hold no secret: a search per form, without setting up a scanner, which costs a
  // small answer far more than the search.
  const scanner = surelyClean(bytes, forms) ? null : scannerFor(forms, style);
  if (!scanner)
    return { bytes, style: style === "sniff" ? (looksLikeText(bytes.subarray(0, SNIFF_BYTES)) ? "text" : "binary") : style, masked: 0 };
  const parts = [scanner.push(bytes), scanner.end()].filter((part): part is Uint8Array => part !== null);
  return { bytes: scanner.masked === 0 ? bytes : concat(parts), style: scanner.style, masked: scanner.masked };
}

/**
 * `body` with every form of the secrets masked while it streams (`style`, see above); `body`
 * itself when there is nothing to look for. `onEnd` is told what was found once the body ended;
 * not when it broke off or was cancelled.
 */
export function redactStream(
  body: ReadableStream<Uint8Array>,
  forms: readonly string[],
  style: MaskChoice,
  onEnd?: (report: ScanReport) => void,
): ReadableStream<Uint8Array> {
  const scanner = scannerFor(forms, style);
  if (!scanner) return body;
  return body.pipeThrough(
    new TransformStream<Uint8Array, Uint8Array>({
      transform(chunk, controller) {
        const out = scanner.push(chunk);
        if (out) controller.enqueue(out);
      },
      flush(controller) {
        const out = scanner.end();
        if (out) controller.enqueue(out);
        onEnd?.({ style: scanner.style, masked: scanner.masked });
      },
    }),
  );
}
