/**
 * OpenAPI 3 parameter serialisation: the `style` and `explode` of a path, query, header or cookie
 * parameter turned into text for the wire. The oracle is the "Style Examples" table of OpenAPI
 * 3.1.1 (https://spec.openapis.org/oas/v3.1.1.html#style-examples), which follows RFC 6570 and
 * percent-encodes delimiters that RFC 3986 does not allow in a query (`|` as %7C, `[` `]` as %5B
 * %5D). Combinations the table leaves undefined are sent as `form` would send them, so a value is
 * never lost. Inside arrays and objects, a nested array or object is sent as JSON text, except in
 * `deepObject`, where nested objects nest their brackets (`a[b][c]=1`) and arrays repeat the key.
 */

/** Where a parameter goes, its wire name and how it is written. */
export interface ParameterStyle {
  in: "path" | "query" | "header" | "cookie";
  name: string;
  style?: "form" | "spaceDelimited" | "pipeDelimited" | "deepObject" | "simple" | "label" | "matrix";
  explode?: boolean;
  allowReserved?: boolean;
}

type Pair = [string, string];

const UNRESERVED = /[A-Za-z0-9\-._~]/;
// RFC 3986 reserved characters that may stay as they are in a query value with `allowReserved`:
// OpenAPI still wants `[`, `]`, `#` (not allowed in a query) and `&`, `=`, `+` (form syntax) encoded.
const RESERVED_KEPT = /[:/?@!$'()*,;]/;

/** Percent-encodes all but RFC 3986's unreserved characters (and, with `allowReserved`, the reserved ones a query may carry). */
export function encode(text: string, allowReserved = false): string {
  let out = "";
  for (const char of text) {
    if (UNRESERVED.test(char) || (allowReserved && RESERVED_KEPT.test(char))) out += char;
    else out += encodeURIComponent(char).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
  }
  // A percent-encoded triple the caller wrote passes through unchanged under reserved expansion.
  return allowReserved ? out.replace(/%25([0-9A-Fa-f]{2})/g, "%$1") : out;
}

/** A scalar as text; a nested array or object as JSON text. */
function scalar(value: unknown): string {
  return value !== null && typeof value === "object" ? JSON.stringify(value) : String(value);
}

/** The present entries of an array or object value, as [key, text] pairs (null and undefined items left out). */
function entriesOf(value: unknown[] | Record<string, unknown>): Array<[string, unknown]> {
  const entries = Array.isArray(value) ? value.map((item, i): [string, unknown] => [String(i), item]) : Object.entries(value);
  return entries.filter(([, item]) => item !== undefined && item !== null);
}

function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}

/**
 * The RFC 6570 expansion shared by path (`simple`, `label`, `matrix`) and header (`simple`) styles:
 * `prefix` starts the value and separates exploded items; `named` puts `name=` before values
 * (matrix). `enc` encodes names and values (identity for headers).
 */
function expand(name: string, value: unknown, explode: boolean, prefix: string, named: boolean, enc: (s: string) => string): string {
  const lead = named ? `${prefix}${enc(name)}` : prefix;
  if (Array.isArray(value) || isObject(value)) {
    const entries = entriesOf(value);
    const array = Array.isArray(value);
    if (!explode) {
      const items = array ? entries.map(([, item]) => enc(scalar(item))) : entries.flatMap(([key, item]) => [enc(key), enc(scalar(item))]);
      return named ? `${lead}=${items.join(",")}` : `${lead}${items.join(",")}`;
    }
    const separator = prefix === "" ? "," : prefix;
    const items = entries.map(([key, item]) =>
      array ? (named ? `${enc(name)}=${enc(scalar(item))}` : enc(scalar(item))) : `${enc(key)}=${enc(scalar(item))}`,
    );
    return `${prefix}${items.join(separator)}`;
  }
  const text = enc(scalar(value));
  return named ? (text === "" ? lead : `${lead}=${text}`) : `${lead}${text}`;
}

/** A path parameter's value as it replaces `{name}`: `simple` (default) `blue`, `label` `.blue`, `matrix` `;color=blue`. */
export function serializePath(param: ParameterStyle, value: unknown): string {
  const explode = param.explode ?? false;
  const enc = (s: string) => encode(s);
  if (param.style === "label") return expand(param.name, value, explode, ".", false, enc);
  if (param.style === "matrix") return expand(param.name, value, explode, ";", true, enc);
  return expand(param.name, value, explode, "", false, enc);
}

/** A header parameter's value (`simple`): arrays and objects joined with commas, nothing percent-encoded. */
export function serializeHeader(param: ParameterStyle, value: unknown): string {
  return expand(param.name, value, param.explode ?? false, "", false, (s) => s);
}

/**
 * A query parameter as encoded `name=value` pairs, in order: `form` (default; explode default
 * true), `spaceDelimited`, `pipeDelimited`, `deepObject`.
 */
export function serializeQuery(param: ParameterStyle, value: unknown): string[] {
  const enc = (s: string) => encode(s, param.allowReserved ?? false);
  const style = param.style ?? "form";
  const explode = param.explode ?? style === "form";
  const name = encode(param.name);
  if (style === "deepObject" && isObject(value)) return deepPairs(name, value).map(([key, text]) => `${key}=${enc(text)}`);
  // spaceDelimited and pipeDelimited are form, not exploded, with another delimiter.
  const delimiter = style === "spaceDelimited" ? "%20" : style === "pipeDelimited" ? "%7C" : ",";
  return formPairs(name, value, explode, enc, delimiter);
}

/**
 * `form` style: `color=blue`, `color=blue,black,brown` (the items joined by `delimiter`) or
 * repeated `color=` (explode), `R=100&G=200` (object, explode).
 */
function formPairs(name: string, value: unknown, explode: boolean, enc: (s: string) => string, delimiter = ","): string[] {
  if (!Array.isArray(value) && !isObject(value)) return [`${name}=${enc(scalar(value))}`];
  if (!explode) return [`${name}=${flatItems(value, enc).join(delimiter)}`];
  if (Array.isArray(value)) return entriesOf(value).map(([, item]) => `${name}=${enc(scalar(item))}`);
  return entriesOf(value).map(([key, item]) => `${encode(key)}=${enc(scalar(item))}`);
}

/** Array items, or an object's keys and values in turn, encoded. */
function flatItems(value: unknown[] | Record<string, unknown>, enc: (s: string) => string): string[] {
  const entries = entriesOf(value);
  return Array.isArray(value)
    ? entries.map(([, item]) => enc(scalar(item)))
    : entries.flatMap(([key, item]) => [encode(key), enc(scalar(item))]);
}

/** `deepObject`: `color%5BR%5D` keys (already encoded) with their unencoded values; nested objects nest, arrays repeat. */
function deepPairs(key: string, value: Record<string, unknown>): Pair[] {
  return entriesOf(value).flatMap(([property, item]): Pair[] => {
    const nested = `${key}%5B${encode(property)}%5D`;
    if (isObject(item)) return deepPairs(nested, item);
    if (Array.isArray(item)) return entriesOf(item).map(([, element]): Pair => [nested, scalar(element)]);
    return [[nested, scalar(item)]];
  });
}

/**
 * A cookie parameter as `name=value` pairs for one `Cookie` header (`form`, explode default true):
 * arrays repeat the name when exploded, objects give one pair per property; values are
 * percent-encoded, as RFC 6265 allows no comma, semicolon or space in a cookie value.
 */
export function serializeCookie(param: ParameterStyle, value: unknown): string[] {
  return formPairs(encode(param.name), value, param.explode ?? true, (s) => encode(s));
}
