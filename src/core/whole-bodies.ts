/**
 * Bodies known whole, passed between the Node bridge and the handler without a stream.
 *
 * Answers: a JSON answer as the handler makes it is the status, a few headers and the body's
 * bytes, with a standard `Response` built from them only when something asks for more than the
 * status. Building a `Response` (its `Headers`, its body stream) and reading the stream back cost
 * a Node server about 8 µs per request, as much as the rest of a small route (`npm run bench`).
 * The Node bridge asks the answer for its parts (`wholeParts`) and writes them in one call; every
 * other caller (Bun, Deno, Next.js, a test) gets a real `Response`, built from the same parts.
 *
 * Requests: the Node bridge reads a small request body whole before the handler runs, as Node's
 * parser delivers exactly the Content-Length it declared, and leaves it here (`rememberBody`), so
 * that `readJson` takes the bytes (`knownBody`) rather than a stream built around them.
 */

/** Request bodies the Node bridge read whole, by request. */
const bodiesByRequest = new WeakMap<Request, Uint8Array>();

/** Records that `request`'s whole body is `body` (the Node bridge, for a body Node's parser delimited). */
export function rememberBody(request: Request, body: Uint8Array): void {
  bodiesByRequest.set(request, body);
}

/** The whole body of `request` when the Node bridge read it, else undefined: read `request.body`. */
export function knownBody(request: Request): Uint8Array | undefined {
  return bodiesByRequest.get(request);
}

/**
 * The answers of each handler as made (before they become standard `Response`s), by handler.
 * Only the Node bridge asks for them. One table per copy of this module: a handler and a bridge
 * loaded from different copies (one by `import`, one by `require`) find nothing here, and the
 * bridge reads the handler's standard `Response`s instead, only slower.
 */
const answersByHandler = new WeakMap<object, (request: Request) => Promise<Response>>();

/** What the Node bridge writes: a status, header names in lower case, and the whole body. */
export interface WholeParts {
  status: number;
  headers: Record<string, string>;
  body: Uint8Array;
}

/**
 * The parts of an answer still unchanged since the handler made it, or null for any other
 * `Response` and for an answer whose headers or body were asked for (they may have changed).
 */
export function wholeParts(response: Response): WholeParts | null {
  return response instanceof WholeResponse ? response.parts() : null;
}

/**
 * Records that `handler` (whose every answer is a standard `Response`) makes its answers with
 * `answers`, some of them whole, for the Node bridge; returns `handler`.
 */
export function answering<H extends object>(handler: H, answers: (request: Request) => Promise<Response>): H {
  answersByHandler.set(handler, answers);
  return handler;
}

/** The function that gives `handler`'s answers as made, or the handler itself when none was recorded. */
export function answersOf(handler: (request: Request) => Promise<Response>): (request: Request) => Promise<Response> {
  return answersByHandler.get(handler) ?? handler;
}

/** The standard `Response` of an answer, for callers that are not the Node bridge. */
export function standardResponse(response: Response): Response {
  return response instanceof WholeResponse ? response.standard() : response;
}

/**
 * An answer whose body is known whole. It passes for a `Response` (`instanceof Response`, and
 * every property and method of one), delegating to a real `Response` it builds on first use;
 * only `status`, `ok`, `bodyUsed` and the parts are answered without building one.
 */
class WholeResponse {
  readonly #status: number;
  readonly #headers: Record<string, string>;
  readonly #body: Uint8Array;
  #standard: Response | undefined;

  constructor(body: Uint8Array, status: number, headers: Record<string, string>) {
    this.#body = body;
    this.#status = status;
    this.#headers = headers;
  }

  /** The real `Response`, built once; after that the parts are no longer given out. */
  standard(): Response {
    this.#standard ??= new Response(this.#body as Uint8Array<ArrayBuffer>, { status: this.#status, headers: this.#headers });
    return this.#standard;
  }

  /** The parts, while no `Response` was built (its headers or body may have been changed or read since). */
  parts(): WholeParts | null {
    return this.#standard ? null : { status: this.#status, headers: this.#headers, body: this.#body };
  }

  get status(): number {
    return this.#status;
  }
  get ok(): boolean {
    return this.#status >= 200 && this.#status < 300;
  }
  get bodyUsed(): boolean {
    return this.#standard?.bodyUsed ?? false;
  }
  get statusText(): string {
    return this.standard().statusText;
  }
  get headers(): Headers {
    return this.standard().headers;
  }
  get body(): ReadableStream<Uint8Array> | null {
    return this.standard().body;
  }
  get type(): ResponseType {
    return this.standard().type;
  }
  get url(): string {
    return this.standard().url;
  }
  get redirected(): boolean {
    return this.standard().redirected;
  }
  arrayBuffer(): Promise<ArrayBuffer> {
    return this.standard().arrayBuffer();
  }
  blob(): Promise<Blob> {
    return this.standard().blob();
  }
  bytes(): Promise<Uint8Array<ArrayBuffer>> {
    return this.standard().bytes();
  }
  formData(): Promise<FormData> {
    return this.standard().formData();
  }
  json(): Promise<unknown> {
    return this.standard().json();
  }
  text(): Promise<string> {
    return this.standard().text();
  }
  clone(): Response {
    return this.standard().clone();
  }
}
// `instanceof Response` holds, and anything not defined above is found on Response.prototype.
Object.setPrototypeOf(WholeResponse.prototype, Response.prototype);

/** An answer of `status` with `headers` (lower-case names) and the whole `body`, as a `Response`. */
export function wholeResponse(body: Uint8Array, status: number, headers: Record<string, string>): Response {
  return new WholeResponse(body, status, headers) as unknown as Response;
}
