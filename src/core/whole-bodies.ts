/**
 * Bodies known whole, passed between a server bridge and the handler without a stream; both sides
 * are declared here and recognised by a public member, never by `instanceof` or a table, so that a
 * handler and a bridge loaded from different copies of this package (one by `import`, one by
 * `require`) still meet.
 *
 * Answers: a JSON answer as the handler makes it is the status, a few headers and the body's
 * bytes, with a standard `Response` built from them only when something asks for more than the
 * status: building a `Response` (its `Headers`, its body stream) and reading the stream back cost a
 * Node server as much as the rest of a small route (docs/benchmarks.md). `ToolsHandler.answer`
 * gives such answers (`WholeAnswer`); the Node bridge writes their `wholeParts()` in one call.
 * Every other caller (Bun, Deno, Next.js, a test) calls the handler itself and gets a real
 * `Response`, built from the same parts.
 *
 * Requests: the Node bridge reads a small request body whole before the handler runs, as Node's
 * parser delivers exactly the Content-Length it declared, and hands it on as the request's
 * `wholeBody` (`WholeBodyRequest`), so that `readJson` takes the bytes rather than a stream built
 * around them.
 */

/**
 * Largest body read whole before it is handed on (a request body by the Node bridge, an answer by
 * `createUndiciFetch`); larger bodies, and those of unknown length, stream.
 */
export const WHOLE_BODY_BYTES = 64 * 1024;

/** Whether a declared Content-Length (a header value as Node gives it) is a length of at most `WHOLE_BODY_BYTES`. */
export function isWholeLength(length: string | string[] | undefined): boolean {
  return typeof length === "string" && /^\d{1,6}$/.test(length) && Number(length) <= WHOLE_BODY_BYTES;
}

/**
 * A request whose body a server already read whole (the Node bridge, for a body Node's parser
 * delimited by its Content-Length). `wholeBody` is exactly the bytes `request.body` would give; a
 * reader that takes it leaves `request.body` unread.
 */
export interface WholeBodyRequest extends Request {
  readonly wholeBody: Uint8Array;
}

/** `request`, declared to have the whole body `body` (which must be its body's bytes). */
export function withWholeBody(request: Request, body: Uint8Array): WholeBodyRequest {
  return Object.assign(request, { wholeBody: body });
}

/** The whole body of `request` when a server read it (`WholeBodyRequest`), else undefined: read `request.body`. */
export function wholeBodyOf(request: Request): Uint8Array | undefined {
  const { wholeBody } = request as Partial<WholeBodyRequest>;
  return wholeBody instanceof Uint8Array ? wholeBody : undefined;
}

/** What the Node bridge writes: a status, header names in lower case, and the whole body. */
export interface WholeParts {
  status: number;
  headers: Record<string, string>;
  body: Uint8Array;
}

/**
 * An answer whose body is known whole, as `ToolsHandler.answer` makes it. It passes for a
 * `Response` (`instanceof Response` holds, and every property and method of one works); a server
 * that writes responses itself may instead write `wholeParts()` when it gives them.
 */
export interface WholeAnswer extends Response {
  /**
   * The status, headers and bytes of the answer while they are still as the handler made them;
   * null once its `headers` or body were asked for (they may have changed): write the `Response`.
   */
  wholeParts(): WholeParts | null;
}

/** The parts of `response` when it is a `WholeAnswer` still unchanged, else null (any other `Response`). */
export function wholeParts(response: Response): WholeParts | null {
  const answer = response as Partial<WholeAnswer>;
  return typeof answer.wholeParts === "function" ? answer.wholeParts() : null;
}

/** The standard `Response` of an answer, for callers that are not the Node bridge. */
export function standardResponse(response: Response): Response {
  return response instanceof WholeResponse ? response.standard() : response;
}

/** How a whole answer is made: its status, headers (lower-case names, or a `Headers`) and, for an upstream answer, its URL. */
export interface WholeInit {
  status: number;
  statusText?: string;
  headers: Record<string, string> | Headers;
  url?: string;
}

/**
 * The body of a whole answer, taken as bytes (it then counts as read, as `bytes()` would), or
 * undefined for any other `Response` and for one whose body was read or asked for as a stream:
 * read `response.body` then.
 */
export function takeWholeBody(response: Response): Uint8Array | undefined {
  return response instanceof WholeResponse ? response.take() : undefined;
}

/** Whether `response` is a whole answer whose body, still unread, has at most `maxBytes` bytes. */
export function isWholeWithin(response: Response, maxBytes: number): boolean {
  return response instanceof WholeResponse && response.unreadSize() <= maxBytes;
}

/** UTF-8 as `Response.text()` decodes it: invalid bytes replaced, a leading BOM dropped. */
const utf8 = new TextDecoder();

/**
 * An answer whose body is known whole. It passes for a `Response` (`instanceof Response`, and
 * every property and method of one): its status, headers and body reads (`text()`, `json()`,
 * `bytes()`, `arrayBuffer()`, `blob()`, `clone()`) come from the parts; a real `Response` is
 * built only for `body` (a stream) or `formData()`, and then answers everything.
 */
class WholeResponse {
  readonly #body: Uint8Array;
  readonly #init: WholeInit;
  #headers: Headers | undefined;
  #used = false;
  #standard: Response | undefined;

  constructor(body: Uint8Array, init: WholeInit) {
    this.#body = body;
    this.#init = init;
    if (init.headers instanceof Headers) this.#headers = init.headers;
  }

  /** The real `Response`, built once (its body already read if the parts' was taken); it then answers everything. */
  standard(): Response {
    if (this.#standard) return this.#standard;
    const { status, statusText, url } = this.#init;
    const standard = new Response(this.#body as Uint8Array<ArrayBuffer>, { status, statusText, headers: this.headers });
    if (url) Object.defineProperty(standard, "url", { value: url });
    if (this.#used) void standard.arrayBuffer(); // read already: as disturbed as the original
    this.#standard = standard;
    return standard;
  }

  /** The parts, while nothing could have changed them: no `Headers` handed out, no body read, no `Response` built. */
  wholeParts(): WholeParts | null {
    const { status, headers } = this.#init;
    if (this.#standard || this.#used || this.#headers || headers instanceof Headers) return null;
    return { status, headers, body: this.#body };
  }

  /** The body's bytes, once (`takeWholeBody`); undefined when it was read or a `Response` was built. */
  take(): Uint8Array | undefined {
    if (this.#standard || this.#used) return undefined;
    this.#used = true;
    return this.#body;
  }

  /** The body's size while it can still be taken, else Infinity. */
  unreadSize(): number {
    return this.#standard || this.#used ? Number.POSITIVE_INFINITY : this.#body.byteLength;
  }

  /** The bytes for a read method: the same errors as a `Response` whose body was read already. */
  #read(): Uint8Array {
    const body = this.take();
    if (!body) throw new TypeError("Body is unusable: Body has already been read");
    return body;
  }

  get status(): number {
    return this.#init.status;
  }
  get ok(): boolean {
    return this.status >= 200 && this.status < 300;
  }
  get statusText(): string {
    return this.#init.statusText ?? "";
  }
  get headers(): Headers {
    if (this.#standard) return this.#standard.headers;
    this.#headers ??= new Headers(this.#init.headers);
    return this.#headers;
  }
  get bodyUsed(): boolean {
    return this.#standard?.bodyUsed ?? this.#used;
  }
  get body(): ReadableStream<Uint8Array> | null {
    return this.standard().body;
  }
  get type(): ResponseType {
    return "default";
  }
  get url(): string {
    return this.#init.url ?? "";
  }
  get redirected(): boolean {
    return false;
  }
  async arrayBuffer(): Promise<ArrayBuffer> {
    if (this.#standard) return this.#standard.arrayBuffer();
    return this.#read().slice().buffer as ArrayBuffer;
  }
  async bytes(): Promise<Uint8Array<ArrayBuffer>> {
    if (this.#standard) return this.#standard.bytes();
    return this.#read().slice() as Uint8Array<ArrayBuffer>;
  }
  async blob(): Promise<Blob> {
    if (this.#standard) return this.#standard.blob();
    return new Blob([this.#read() as Uint8Array<ArrayBuffer>], { type: this.headers.get("content-type") ?? "" });
  }
  async text(): Promise<string> {
    if (this.#standard) return this.#standard.text();
    return utf8.decode(this.#read());
  }
  async json(): Promise<unknown> {
    if (this.#standard) return this.#standard.json();
    return JSON.parse(utf8.decode(this.#read()));
  }
  formData(): Promise<FormData> {
    return this.standard().formData();
  }
  clone(): Response {
    if (this.#standard || this.#used) return this.standard().clone(); // throws as a Response would once read
    return new WholeResponse(this.#body, { ...this.#init, headers: new Headers(this.headers) }) as unknown as Response;
  }
}
// `instanceof Response` holds, and anything not defined above is found on Response.prototype.
Object.setPrototypeOf(WholeResponse.prototype, Response.prototype);

/** An answer of `status` with `headers` (lower-case names) and the whole `body`, as a `Response`. */
export function wholeResponse(body: Uint8Array, status: number, headers: Record<string, string>): Response;
/** An answer with the whole `body`, made as `init` says, as a `Response`. */
export function wholeResponse(body: Uint8Array, init: WholeInit): Response;
export function wholeResponse(body: Uint8Array, init: number | WholeInit, headers?: Record<string, string>): Response {
  return new WholeResponse(body, typeof init === "number" ? { status: init, headers: headers! } : init) as unknown as Response;
}
