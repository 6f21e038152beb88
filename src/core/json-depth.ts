/**
 * How deep JSON may nest. `JSON.parse` itself copes with any depth, but what comes after it does
 * not: zod's checks, the redaction walk and `JSON.stringify` recurse, and a body of 10 KB nested
 * 5,000 deep overflows the stack (a `RangeError`, which was a 500). So depth is counted on the text
 * before parsing, in one pass without recursion, and refused (request bodies) or kept as text
 * (upstream answers) past the limit.
 */

/**
 * Deepest nesting of a JSON request body (objects and arrays), as System.Text.Json's default
 * `MaxDepth`: tool arguments rarely pass 10, and the envelope of `/execute` or an MCP call adds 3.
 */
export const MAX_JSON_DEPTH = 64;

/**
 * Deepest nesting of an upstream JSON answer parsed into a result. Deeper answers are given as
 * text. Well under what the redaction walk and `JSON.stringify` survive (about 3,000 levels on
 * Node's default stack), well over what APIs send.
 */
export const MAX_UPSTREAM_JSON_DEPTH = 512;

const OPEN_BRACE = 0x7b;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACE = 0x7d;
const CLOSE_BRACKET = 0x5d;
const QUOTE = 0x22;
const BACKSLASH = 0x5c;

/**
 * Whether `text`, read as JSON, nests objects and arrays more than `max` deep. Brackets inside
 * strings do not count. The text need not be valid JSON: this only counts, in time linear in its
 * length, and `JSON.parse` judges the rest.
 */
export function nestsDeeperThan(text: string, max: number): boolean {
  // Nesting deeper than `max` takes more than `max` opening brackets.
  if (text.length <= max) return false;
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (inString) {
      if (code === BACKSLASH) i++;
      else if (code === QUOTE) inString = false;
    } else if (code === QUOTE) inString = true;
    else if (code === OPEN_BRACE || code === OPEN_BRACKET) {
      if (++depth > max) return true;
    } else if (code === CLOSE_BRACE || code === CLOSE_BRACKET) depth--;
  }
  return false;
}

/**
 * An upstream answer's JSON text as result data: parsed, or the text itself when it is not JSON
 * or nests deeper than `MAX_UPSTREAM_JSON_DEPTH` (an agent still reads it; nothing recurses on it).
 */
export function parseAnswerJson(text: string): unknown {
  if (nestsDeeperThan(text, MAX_UPSTREAM_JSON_DEPTH)) return text;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}
