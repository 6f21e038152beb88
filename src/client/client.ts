import { type DownloadedFile, downloadFile } from "./download.js";
import { createTransport, type FetchFunction } from "./transport.js";
import type * as T from "./types.js";
import { type UploadOptions, type UploadSource, uploadFile } from "./upload.js";
import { type WaitOptions, waitForAuthorization } from "./wait.js";

/** Options of `createToolsClient`. */
export interface ToolsClientOptions {
  /** The Tools API's URL with its mount path, e.g. `http://localhost:8787/proxy/tools`. */
  baseUrl: string;
  /** An agent key (`pak_...`), or a workspace service key (`psk_...`) with `agentId`. Sent as `Authorization: Bearer`. */
  apiKey: string;
  /** The agent a service key acts for, sent as `x-agent-id`. */
  agentId?: string;
  /** The fetch to use. Default: the global fetch. */
  fetch?: FetchFunction;
  /** Extra headers sent with every request (the API key and `x-agent-id` are set by the client). */
  headers?: Record<string, string>;
}

/**
 * A typed client of the Tools API, one method per route. Each resolves with the route's JSON
 * answer, typed from the server's schemas and not re-validated. Every failure rejects with a
 * ToolsClientError carrying `code`, `status` and the server's message, except an aborted
 * `signal`, which rejects with the signal's reason.
 */
export interface ToolsClient {
  readonly baseUrl: string;
  /** A client with the same options acting for `agentId` (for a service key). */
  forAgent(agentId: string): ToolsClient;
  /**
   * Checks the key with the cheapest authenticated call (`GET /search?limit=1`; the API has no
   * "who am I" route). Resolves when the server accepts it; a bad key rejects with `unauthorized`.
   */
  verifyKey(options?: T.CallOptions): Promise<void>;
  /** `GET /search`: toolkits by keyword, most relevant first. */
  search(query?: T.SearchOptions, options?: T.CallOptions): Promise<T.SearchResult>;
  /** `GET /toolkit/{toolkit}`: a toolkit with one page of its tools. */
  getToolkit(toolkit: string, query?: T.ToolkitOptions, options?: T.CallOptions): Promise<T.ToolkitDetails>;
  /** `GET /toolkit/{toolkit}/search`: the toolkit's tools matching `query.query`. */
  searchTools(toolkit: string, query?: T.ToolSearchOptions, options?: T.CallOptions): Promise<T.ToolSearchResult>;
  /** `POST /auth` for an OAuth 2 toolkit: open `authorizationUrl`, then `waitForAuthorization(authorizationId)`. */
  startAuthorization(request: T.StartAuthorizationRequest, options?: T.CallOptions): Promise<T.AuthorizationStarted>;
  /** `POST /auth` with credentials, for an apiKey, bearer or basic toolkit: the connection is made at once. */
  connect(request: T.ConnectRequest, options?: T.CallOptions): Promise<T.ConnectionCreated>;
  /** `GET /auth/{authorizationId}`: where an OAuth authorization stands. */
  getAuthorization(authorizationId: string, options?: T.CallOptions): Promise<T.AuthorizationStatus>;
  /**
   * Polls `GET /auth/{authorizationId}` every `intervalMs` (default 1000) until the authorization
   * is over, and resolves with `connected` (and `connectionId`), `failed` (and `error`) or
   * `expired`; a failed authorization resolves, it does not reject. Up to five transient failures
   * in a row (no answer, 429, 503) are retried; `signal` stops the wait.
   */
  waitForAuthorization(authorizationId: string, options?: WaitOptions): Promise<T.FinishedAuthorization>;
  /**
   * `GET /connections`: one page of the caller's connections, oldest first (`limit`, default 50),
   * with `nextCursor` when more follow: pass it as `cursor` for the next page.
   */
  listConnections(query?: T.ConnectionsOptions, options?: T.CallOptions): Promise<T.ConnectionList>;
  /**
   * Every page of `GET /connections`, following `nextCursor`: `for await (const page of
   * client.connectionPages())`. One page is held at a time; stopping the loop stops the requests.
   */
  connectionPages(query?: Omit<T.ConnectionsOptions, "cursor">, options?: T.CallOptions): AsyncGenerator<T.ConnectionList>;
  /** `DELETE /connections/{id}`: revokes the token at the provider where possible, then deletes it. */
  deleteConnection(connectionId: string, options?: T.CallOptions): Promise<void>;
  /** `POST /execute`. A tool that failed resolves with `successful: false`; it does not reject. */
  execute(request: T.ExecuteRequest, options?: T.CallOptions): Promise<T.ExecutionResult>;
  /** `POST /proxy`: a request to the toolkit's own API with the connection's credential added. */
  proxy(request: T.ProxyRequest, options?: T.CallOptions): Promise<T.ProxyResult>;
  /**
   * `POST /upload`: stages a Blob, File or stream of bytes (for a path, see `fileFromPath` in
   * `tools-proxy/client/node`). The body streams from the source as it is sent, never held whole;
   * `onProgress` reports `{ loaded, total }` in bytes of the file. In a browser a Blob goes through
   * XMLHttpRequest (browsers cannot stream a request body over HTTP/1.1).
   */
  upload(source: UploadSource, options?: UploadOptions): Promise<T.StagedUpload>;
  /** `GET /files/{stagingKey}`: a staged file's bytes as a stream, with its name, type and size. */
  downloadFile(stagingKey: string, options?: T.CallOptions): Promise<DownloadedFile>;
  /** `GET /openapi.json`: the OpenAPI 3.1 document of the API. */
  openapi(options?: T.CallOptions): Promise<Record<string, unknown>>;
}

/**
 * Creates a client of the Tools API at `baseUrl`. Uses only web standards (fetch, streams), so it
 * runs in Node, Bun, Deno and browsers. Throws a TypeError naming the option when `baseUrl` or
 * `apiKey` is unusable.
 */
export function createToolsClient(options: ToolsClientOptions): ToolsClient {
  const t = createTransport(options);
  const seg = encodeURIComponent;
  const getAuthorization = (id: string, o?: T.CallOptions) =>
    t.json<T.AuthorizationStatus>("GET", `/auth/${seg(id)}`, { signal: o?.signal });
  return {
    baseUrl: t.baseUrl,
    forAgent: (agentId) => createToolsClient({ ...options, agentId }),
    async verifyKey(o) {
      await t.json("GET", "/search", { query: { limit: 1 }, signal: o?.signal });
    },
    search: (query = {}, o) => t.json("GET", "/search", { query, signal: o?.signal }),
    getToolkit: (toolkit, query = {}, o) => t.json("GET", `/toolkit/${seg(toolkit)}`, { query, signal: o?.signal }),
    searchTools: (toolkit, query = {}, o) => t.json("GET", `/toolkit/${seg(toolkit)}/search`, { query, signal: o?.signal }),
    startAuthorization: (request, o) => t.json("POST", "/auth", { json: request, signal: o?.signal }),
    connect: (request, o) => t.json("POST", "/auth", { json: request, signal: o?.signal }),
    getAuthorization,
    waitForAuthorization: (id, o) => waitForAuthorization((signal) => getAuthorization(id, { signal }), o),
    listConnections: (query = {}, o) => t.json("GET", "/connections", { query, signal: o?.signal }),
    async *connectionPages(query = {}, o) {
      let cursor: string | undefined;
      do {
        const page: T.ConnectionList = await t.json("GET", "/connections", { query: { ...query, cursor }, signal: o?.signal });
        yield page;
        cursor = page.nextCursor;
      } while (cursor);
    },
    async deleteConnection(id, o) {
      const response = await t.send("DELETE", `/connections/${seg(id)}`, { signal: o?.signal });
      await response.body?.cancel();
    },
    execute: (request, o) => t.json("POST", "/execute", { json: request, signal: o?.signal }),
    proxy: (request, o) => t.json("POST", "/proxy", { json: request, signal: o?.signal }),
    upload: (source, o) => uploadFile(t, source, o),
    downloadFile: (key, o) => downloadFile(t, key, o),
    openapi: (o) => t.json("GET", "/openapi.json", { signal: o?.signal }),
  };
}
