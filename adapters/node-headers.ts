/** HTTP whitespace, which `Headers` strips from both ends of a value (Fetch: "normalize"). */
const isHttpWhitespace = (code: number) => code === 0x20 || code === 0x09 || code === 0x0a || code === 0x0d;
/** 1 for the characters of an HTTP token, the header names `Headers` takes, by char code. */
const TOKEN_CHARS = new Uint8Array(128).map((_, code) => Number(/[!#$%&'*+\-.^_`|~0-9A-Za-z]/.test(String.fromCharCode(code))));
/** What no `Headers` value may hold once normalized. */
const FORBIDDEN_IN_VALUE = /[\0\r\n]/;
/**
 * Names asked for that are tokens, so that the few a route asks for (constants) are checked once:
 * a regular expression per `get` cost more than the lookup. Bounded, as code may ask any name.
 */
const ASKED = new Set<string>();
const ASKED_MAX = 256;

/**
 * The `Headers` of a request on Node, answered from Node's raw header list (`req.rawHeaders`:
 * names as sent, every line kept) rather than built: `get` and `has`, all a route reads of most
 * requests, scan the list, and a platform `Headers` is built from it only when something asks for
 * more (iteration, `getSetCookie`, a change). Either way the answers are those of
 * `new Headers(rawHeaders as pairs)`: names compared without case, values trimmed of HTTP
 * whitespace, repeated lines joined with ", " (`set-cookie` too, and the names Node's own
 * `req.headers` keeps only the first of, such as `authorization`), `cookie` lines with "; " (as
 * Node's `Headers` joins them); a list `Headers` would refuse (a name that is no token, a value
 * with a NUL, which Node's parser lets through with `insecureHTTPParser`) makes every call throw
 * as building it does. HTTP/2 pseudo-headers (`:path`) are left out. `host`, when given, replaces every Host line (the bridge
 * gives `localhost` for a Host that names no host). It passes for a `Headers` (`instanceof`).
 */
export class NodeHeaders {
  // Private, behind methods: the prototype chain ends in Headers.prototype, whose own methods need a real Headers.
  readonly #raw: readonly string[];
  readonly #host: string | undefined;
  /** Whether every line is one `Headers` takes; unknown (undefined) until first read. */
  #valid: boolean | undefined;
  #headers: Headers | undefined;

  constructor(rawHeaders: readonly string[], host?: string) {
    this.#raw = rawHeaders;
    this.#host = host;
  }

  get(name: string): string | null {
    const found = this.#lookup(name);
    return found === undefined ? this.standard().get(name) : found;
  }

  has(name: string): boolean {
    const found = this.#lookup(name);
    return found === undefined ? this.standard().has(name) : found !== null;
  }

  append(name: string, value: string): void {
    this.standard().append(name, value);
  }
  delete(name: string): void {
    this.standard().delete(name);
  }
  set(name: string, value: string): void {
    this.standard().set(name, value);
  }
  getSetCookie(): string[] {
    return this.standard().getSetCookie();
  }
  forEach(callback: (value: string, name: string, parent: Headers) => void, thisArg?: unknown): void {
    this.standard().forEach((value, name) => {
      callback.call(thisArg, value, name, this as unknown as Headers);
    });
  }
  keys(): HeadersIterator<string> {
    return this.standard().keys();
  }
  values(): HeadersIterator<string> {
    return this.standard().values();
  }
  entries(): HeadersIterator<[string, string]> {
    return this.standard().entries();
  }
  [Symbol.iterator](): HeadersIterator<[string, string]> {
    return this.standard().entries();
  }

  /** The platform `Headers` of the list, built once; it then answers everything, changes included. */
  standard(): Headers {
    if (this.#headers) return this.#headers;
    const headers = new Headers();
    const raw = this.#raw;
    for (let i = 0; i < raw.length; i += 2) {
      const name = raw[i]!;
      if (name.startsWith(":") || (this.#host !== undefined && name.length === 4 && name.toLowerCase() === "host")) continue;
      headers.append(name, raw[i + 1]!);
    }
    if (this.#host !== undefined) headers.append("host", this.#host);
    this.#headers = headers;
    return headers;
  }

  /**
   * The value of `name` read from the list: null when no line has it; undefined when the list
   * cannot answer, so that the platform `Headers` does (the name is not a token, which it
   * refuses; the list holds a line it would refuse to be built from; it was built already).
   */
  #lookup(name: string): string | null | undefined {
    if (this.#headers || typeof name !== "string" || !isAskable(name) || !this.#isValid()) return undefined;
    const lower = name.toLowerCase();
    if (this.#host !== undefined && lower === "host") return this.#host;
    const raw = this.#raw;
    const separator = lower === "cookie" ? "; " : ", ";
    let value: string | null = null;
    for (let i = 0; i < raw.length; i += 2) {
      const line = raw[i]!;
      if (line.length !== lower.length || (line !== lower && line.toLowerCase() !== lower)) continue;
      const found = normalize(raw[i + 1]!);
      value = value === null ? found : `${value}${separator}${found}`;
    }
    return value;
  }

  /** Whether `Headers` would take every line of the list (checked once; the values in one test). */
  #isValid(): boolean {
    if (this.#valid === undefined) {
      const raw = this.#raw;
      let valid = true;
      let values = "";
      for (let i = 0; valid && i < raw.length; i += 2) {
        const name = raw[i]!;
        if (name.startsWith(":")) continue;
        valid = isToken(name);
        values += raw[i + 1]!;
      }
      this.#valid = valid && !FORBIDDEN_IN_VALUE.test(values);
    }
    return this.#valid;
  }
}
// `instanceof Headers` holds, and `Object.prototype.toString` says "[object Headers]".
Object.setPrototypeOf(NodeHeaders.prototype, Headers.prototype);
Object.defineProperty(NodeHeaders.prototype, Symbol.for("nodejs.util.inspect.custom"), {
  value(this: NodeHeaders, _depth: number, options: object, inspect: (value: unknown, options: object) => string) {
    return inspect(this.standard(), options);
  },
});

/** Whether `name` is an HTTP token. */
function isToken(name: string): boolean {
  if (name.length === 0) return false;
  for (let i = 0; i < name.length; i++) {
    const code = name.charCodeAt(i);
    if (code > 127 || TOKEN_CHARS[code] === 0) return false;
  }
  return true;
}

/** Whether `name` is a token, remembered for the names asked most (`ASKED`). */
function isAskable(name: string): boolean {
  if (ASKED.has(name)) return true;
  if (!isToken(name)) return false;
  if (ASKED.size < ASKED_MAX) ASKED.add(name);
  return true;
}

/** `value` without HTTP whitespace at either end, as `Headers` stores it. */
function normalize(value: string): string {
  let start = 0;
  let end = value.length;
  while (start < end && isHttpWhitespace(value.charCodeAt(start))) start++;
  while (end > start && isHttpWhitespace(value.charCodeAt(end - 1))) end--;
  return start === 0 && end === value.length ? value : value.slice(start, end);
}
