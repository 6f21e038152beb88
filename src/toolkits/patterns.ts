/**
 * Regular expressions that come from definitions (a JSON Schema `pattern` or `patternProperties`,
 * a connection input's `pattern`, a value rule's `pattern`) and are matched against what callers
 * or providers send. JavaScript's `RegExp` backtracks: `^(a+)+$` against 28 `a`s and a `!` takes
 * seconds on the event loop, and every other request waits. These are matched by RE2JS instead,
 * a port of RE2 whose matching time is linear in the input, whatever the pattern.
 *
 * RE2 cannot express backreferences (`\1`, `\k<name>`) or lookaround (`(?=`, `(?!`, `(?<=`,
 * `(?<!`): such a pattern is refused when it is defined, with a `PatternError` that says so.
 */
import { RE2JS } from "re2js";

/** A pattern RE2 cannot express (or no valid pattern at all); the message says why, in words. */
export class PatternError extends Error {}

/**
 * The subset of `RegExp` that zod's checks and our own callers use, matched in linear time. It is
 * stateless: `lastIndex` is accepted (zod resets it before each test) and ignored.
 */
export interface LinearPattern {
  /** The pattern as written in the definition. */
  readonly source: string;
  lastIndex: number;
  /** Whether the pattern matches anywhere in `text` (unanchored, as JSON Schema's `pattern`). */
  test(text: string): boolean;
  /** The first match with its groups, as `RegExp.prototype.exec` gives it, or null. */
  exec(text: string): RegExpExecArray | null;
  /** `/source/`, for error messages. */
  toString(): string;
}

/** A backreference by name: RE2JS's translation would quietly turn `\k<n>` into the literal `k<n>`. */
const NAMED_BACKREFERENCE = /(?:^|[^\\])(?:\\\\)*\\k</;

/**
 * Compiled patterns by source, and refusals: compiling costs far more than a match, and a document
 * repeats its patterns across tools (the OpenAPI import checks each one it copies). Emptied when full.
 */
const compiled = new Map<string, LinearPattern | PatternError>();
const MAX_COMPILED = 2000;

/**
 * Compiles `source` (ECMAScript syntax, as JSON Schema patterns are written) for linear-time
 * matching. Throws a `PatternError` naming what RE2 cannot do when the pattern needs
 * backtracking, or when it is not a valid regular expression.
 */
export function linearPattern(source: string): LinearPattern {
  let pattern = compiled.get(source);
  if (pattern === undefined) {
    try {
      pattern = compile(source);
    } catch (error) {
      if (!(error instanceof PatternError)) throw error;
      pattern = error;
    }
    if (compiled.size >= MAX_COMPILED) compiled.clear();
    compiled.set(source, pattern);
  }
  if (pattern instanceof PatternError) throw pattern;
  return pattern;
}

function compile(source: string): LinearPattern {
  try {
    new RegExp(source, "u");
  } catch {
    throw new PatternError(`the pattern ${JSON.stringify(source)} is not a valid regular expression`);
  }
  if (NAMED_BACKREFERENCE.test(source)) throw unsupported(source, "a backreference (\\k<name>)");
  let re2: RE2JS;
  try {
    re2 = RE2JS.compile(RE2JS.translateRegExp(source));
  } catch (error) {
    throw refusal(source, error);
  }
  return {
    source,
    lastIndex: 0,
    test: (text) => re2.test(text),
    exec: (text) => re2.exec(text) as RegExpExecArray | null,
    toString: () => `/${source}/`,
  };
}

function unsupported(source: string, what: string): PatternError {
  return new PatternError(
    `the pattern ${JSON.stringify(source)} uses ${what}, which cannot be matched in time linear in the input; ` +
      "patterns are matched by RE2, without lookaround or backreferences: rewrite the pattern without it, or remove it",
  );
}

/** RE2's parse error in words: `invalid or unsupported Perl syntax: \`(?=\`` becomes "a lookahead". */
function refusal(source: string, error: unknown): PatternError {
  const message = error instanceof Error ? error.message : String(error);
  if (/`\(\?[=!]/.test(message)) return unsupported(source, "a lookahead ((?= or (?!)");
  if (/`\(\?<[=!]/.test(message)) return unsupported(source, "a lookbehind ((?<= or (?<!)");
  if (/escape sequence: `\\[1-9]/.test(message)) return unsupported(source, "a backreference (\\1 to \\9)");
  return new PatternError(
    `the pattern ${JSON.stringify(source)} cannot be compiled by RE2, the linear-time matcher patterns run on ` +
      `(${message.replace(/^error parsing regexp: /, "")}; RE2 repeats at most 1000 times): simplify it, or remove it`,
  );
}
