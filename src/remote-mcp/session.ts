import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import type { Tool as McpListedTool } from "@modelcontextprotocol/sdk/types.js";
import type { HandlerContext } from "../context/context.js";
import { asUnreachable } from "../core/failure.js";
import { ToolRunError } from "../core/tool-error.js";
import { type ConnectionAccess, outboundFetchFor } from "../execution/access.js";
import { capResponseBody } from "../execution/upstream-result.js";
import type { ConnectionRecord } from "../store/types.js";
import type { Toolkit } from "../toolkits/define.js";
import { readBytes } from "../util/bytes.js";
import type { RemoteCallResult } from "./results.js";
import { checkedStreamAnswer, eventsCapped } from "./stream-answer.js";
import { postToolCall, RemoteHttpError, type ToolCallPost } from "./tool-call.js";
import { type RemoteTool, remoteTools } from "./tools.js";

/** Limits of a session and of the tool list it keeps. */
export interface SessionLimits {
  /** Deadline of one POST to the server (a message and its answer), in milliseconds. */
  requestMs: number;
  /** How long a tool list is kept before it is listed again, in milliseconds. */
  listTtlMs: number;
  /** Tools kept of one listing at most; past it, the rest are left out (and logged). */
  maxTools: number;
  /** `tools/list` pages read at most. */
  maxPages: number;
}

/** One listing of a connection's remote tools. A new listing is a new object, so what is built from one can be kept with it. */
export interface RemoteToolList {
  tools: RemoteTool[];
  bySlug: Map<string, RemoteTool>;
}

/** What the session sends with: the connection as the newest call resolved it, and that call's opened credential. */
interface Holder {
  connection: ConnectionRecord | null;
  access: ConnectionAccess;
}

/**
 * One MCP session with a remote server for one connection: the SDK's client over Streamable HTTP
 * (or HTTP+SSE), initialized once and kept by the pool so that calls do not initialize again. A
 * tool's call over Streamable HTTP is not the SDK's: it is one POST in the client's session, sent
 * with the call's own outbound fetch and read once (see `call`).
 *
 * Every request goes through the toolkit's outbound fetch: only the server's origin, the
 * connection's credential (the one the newest call opened, so a refreshed token is used; a 401
 * refreshes once), the handler's fetch. A POST (a message and its answer) has a deadline and its
 * answer is read whole, up to `maxResponseBytes`, before the SDK sees it, so that a huge or
 * malformed answer fails the request that caused it; the long-lived GET stream of server messages
 * has no deadline, and is cut when one of its events grows past `maxResponseBytes`. The tool list is kept for `listTtlMs` and dropped on `notifications/tools/list_changed`.
 */
export class RemoteSession {
  private holder: Holder;
  private readonly closing = new AbortController();
  private client: Promise<Client> | undefined;
  /** The client `client` resolved to, once it has. */
  private opened: Client | undefined;
  private list: { value: RemoteToolList; at: number } | undefined;
  private listing: Promise<RemoteToolList> | undefined;
  /** Bumped by every list_changed: a listing that started before one is not kept. */
  private generation = 0;
  /** Bytes of `tools/list` answers read by the listing in progress (one at a time: see `tools`). */
  private listedBytes = 0;
  /** Calls sent as their own POST, for their JSON-RPC ids (strings, which the SDK's client's numbers never equal). */
  private sent = 0;
  lastUsed = Date.now();

  constructor(
    private readonly ctx: HandlerContext,
    private readonly toolkit: Toolkit & { remote: NonNullable<Toolkit["remote"]> },
    connection: ConnectionRecord | null,
    access: ConnectionAccess,
    private readonly limits: SessionLimits,
  ) {
    this.holder = { connection, access };
  }

  /** Sends further requests with this connection record and opened credential (the newest call's). */
  use(connection: ConnectionRecord | null, access: ConnectionAccess): void {
    this.holder = { connection, access };
    this.lastUsed = Date.now();
  }

  /** The tool list known now, without asking the server; undefined when none is kept or it is past its TTL. */
  knownTools(): RemoteToolList | undefined {
    return this.list && Date.now() - this.list.at < this.limits.listTtlMs ? this.list.value : undefined;
  }

  /** The connection's tools: the list kept, or a new listing (every page), shared by concurrent callers. */
  async tools(signal: AbortSignal | undefined): Promise<RemoteToolList> {
    const known = this.knownTools();
    if (known) return known;
    if (!this.listing) {
      const listing = this.listTools().finally(() => {
        if (this.listing === listing) this.listing = undefined;
      });
      this.listing = listing;
    }
    return raced(this.listing, signal);
  }

  /**
   * Calls `tool` with `args`; the answer as the server gave it. Over Streamable HTTP the call is one
   * POST in the session (see `postToolCall`) sent with the call's own outbound fetch, whose
   * deadline is the call's; over HTTP+SSE, whose answers come on the session's stream, the SDK's
   * client sends it.
   */
  call(tool: RemoteTool, args: unknown, call: { signal: AbortSignal; fetch: ToolCallPost["fetch"] }): Promise<RemoteCallResult> {
    if (this.toolkit.remote.transport !== "sse") return this.withClient((client) => this.post(client, tool, args, call), call.signal);
    return this.withClient(
      async (client) =>
        (await client.callTool({ name: tool.remoteName, arguments: args as Record<string, unknown> }, undefined, {
          signal: call.signal,
          timeout: this.limits.requestMs,
        })) as RemoteCallResult,
      call.signal,
    );
  }

  /**
   * Runs `request` with the session's client. When the server forgot the session (a 404 to a
   * request that carried its id, as the spec says: nothing ran), it is run once more in a new one.
   */
  private async withClient<T>(request: (client: Client) => Promise<T>, signal: AbortSignal | undefined): Promise<T> {
    const attempt = async () => {
      const client = await raced(this.connect(), signal);
      try {
        return await request(client);
      } catch (error) {
        throw sessionGone(client, error) ? new SessionGone(client, error) : error;
      }
    };
    try {
      return await attempt();
    } catch (error) {
      if (!(error instanceof SessionGone)) throw error;
      this.restart(error.client);
      return attempt().catch((again: unknown) => Promise.reject(again instanceof SessionGone ? again.cause : again));
    }
  }

  /**
   * `tools/call` as one POST in `client`'s session. Notifications and requests of the server on its
   * answer go to the client, which handles them as its own (a changed tool list drops the list
   * kept, a ping is answered). An aborted call tells the server, as the SDK's client would.
   */
  private async post(client: Client, tool: RemoteTool, args: unknown, call: { signal: AbortSignal; fetch: ToolCallPost["fetch"] }) {
    const transport = client.transport as
      | { sessionId?: string; protocolVersion?: string; onmessage?: (message: never) => void }
      | undefined;
    const id = `tools-proxy-${++this.sent}`;
    try {
      return await postToolCall(
        {
          url: this.toolkit.remote.url,
          sessionId: transport?.sessionId,
          protocolVersion: transport?.protocolVersion,
          fetch: call.fetch,
          maxBytes: this.ctx.maxResponseBytes,
          deliver: (message) => transport?.onmessage?.(message as never),
        },
        id,
        tool.remoteName,
        args,
        tool.slug,
      );
    } catch (error) {
      if (call.signal.aborted) {
        const params = { requestId: id, reason: String(call.signal.reason) };
        void client.notification({ method: "notifications/cancelled", params }).catch(() => {});
      }
      throw asUnreachable(error);
    }
  }

  /** Closes `client` if it is still the session's, so that the next request opens a new MCP session. */
  private restart(client: Client): void {
    if (this.opened !== client) return;
    this.client = undefined;
    this.opened = undefined;
    void client.close().catch(() => {});
  }

  /** Drops the tool list (the server said it changed, or a call named a tool it no longer has). */
  dropTools(): void {
    this.generation++;
    this.list = undefined;
  }

  /**
   * Terminates the MCP session at the server, as the Streamable HTTP transport asks of a client
   * that no longer needs one (an HTTP DELETE with its session id, within the request deadline; a
   * server that refuses or does not answer is left to expire it), then closes it.
   */
  async terminate(): Promise<void> {
    const transport = this.opened?.transport as { terminateSession?: () => Promise<void> } | undefined;
    await transport?.terminateSession?.().catch(() => {});
    this.close();
  }

  /** Ends the session: the SDK's client closes (its GET stream and pending requests end). */
  close(): void {
    this.closing.abort();
    const client = this.client;
    this.client = undefined;
    void client?.then((c) => c.close()).catch(() => {});
  }

  get closed(): boolean {
    return this.closing.signal.aborted;
  }

  private async listTools(): Promise<RemoteToolList> {
    const generation = this.generation;
    const { listed, cursor } = await this.withClient((client) => this.listPages(client), undefined);
    if (listed.length > this.limits.maxTools || cursor) {
      this.ctx.logger.log("warn", "remote MCP tool list cut", {
        toolkit: this.toolkit.slug,
        kept: Math.min(listed.length, this.limits.maxTools),
      });
    }
    const tools = remoteTools(this.toolkit.slug, listed.slice(0, this.limits.maxTools));
    const value = { tools, bySlug: new Map(tools.map((tool) => [tool.slug, tool])) };
    if (generation === this.generation && !this.closed) this.list = { value, at: Date.now() };
    return value;
  }

  /**
   * Every page of `tools/list`, up to `maxPages` pages, `maxTools` tools, or `maxResponseBytes` of
   * answers in all (the list is kept for minutes: pages each as large as an answer may be would
   * hold that much memory per page); `cursor` is left when there were more.
   */
  private async listPages(client: Client): Promise<{ listed: McpListedTool[]; cursor: string | undefined }> {
    const listed: McpListedTool[] = [];
    let cursor: string | undefined;
    this.listedBytes = 0;
    for (let page = 0; page < this.limits.maxPages && this.listedBytes < this.ctx.maxResponseBytes; page++) {
      const answer = await client.listTools(cursor === undefined ? undefined : { cursor }, {
        signal: this.closing.signal,
        timeout: this.limits.requestMs,
      });
      listed.push(...answer.tools);
      cursor = answer.nextCursor;
      if (!cursor || listed.length >= this.limits.maxTools) break;
    }
    return { listed, cursor };
  }

  private connect(): Promise<Client> {
    if (this.closed)
      return Promise.reject(new ToolRunError("The MCP session was closed; retry the call.", { code: "aborted", retryable: true }));
    if (!this.client) {
      const client = this.open();
      this.client = client;
      // A failed start is tried again by the next call.
      client.catch(() => {
        if (this.client === client) this.client = undefined;
      });
    }
    return this.client;
  }

  private async open(): Promise<Client> {
    const [{ Client }, { ToolListChangedNotificationSchema }, transport] = await Promise.all([
      import("@modelcontextprotocol/sdk/client/index.js"),
      import("@modelcontextprotocol/sdk/types.js"),
      this.transport(),
    ]);
    const client = new Client({ name: "tools-proxy", version: "1.0.0" }, { capabilities: {} });
    client.setNotificationHandler(ToolListChangedNotificationSchema, () => this.dropTools());
    const opened = this.client;
    // A transport that closes (the server ended the session) is opened again by the next call.
    client.onclose = () => {
      if (this.client !== opened) return;
      this.client = undefined;
      this.opened = undefined;
    };
    try {
      await client.connect(transport, { timeout: this.limits.requestMs, signal: this.closing.signal });
    } catch (error) {
      await client.close().catch(() => {});
      throw error;
    }
    if (this.client === opened) this.opened = client;
    return client;
  }

  private async transport(): Promise<Transport> {
    const url = new URL(this.toolkit.remote.url);
    const fetch = (input: string | URL, init?: RequestInit) => this.send(input, init);
    if (this.toolkit.remote.transport === "sse") {
      const { SSEClientTransport } = await import("@modelcontextprotocol/sdk/client/sse.js");
      return new SSEClientTransport(url, { fetch });
    }
    const { StreamableHTTPClientTransport } = await import("@modelcontextprotocol/sdk/client/streamableHttp.js");
    return new StreamableHTTPClientTransport(url, { fetch });
  }

  /**
   * The transport's fetch: the toolkit's outbound fetch with the newest credential. A POST's answer
   * is read whole within the deadline and `maxResponseBytes`; a stream's answer must hold a
   * JSON-RPC response to each request sent (see `checkedStreamAnswer`).
   */
  private async send(input: string | URL, init: RequestInit = {}): Promise<Response> {
    const { connection, access } = this.holder;
    const stream = (init.method ?? "GET").toUpperCase() === "GET";
    const signals = [this.closing.signal, ...(init.signal ? [init.signal] : [])];
    if (!stream) signals.push(AbortSignal.timeout(this.limits.requestMs));
    const signal = AbortSignal.any(signals);
    const outbound = outboundFetchFor(this.ctx, this.toolkit, connection, access, {
      signal,
      deadline: performance.now() + this.limits.requestMs,
    });
    try {
      const response = await outbound(input, { ...init, signal });
      if (!response.body) return response;
      if (stream) return withBody(response, eventsCapped(response.body, this.ctx.maxResponseBytes));
      const bytes = await readBytes(capResponseBody(response, this.ctx.maxResponseBytes).body);
      if (sentMethod(init.body) === "tools/list") this.listedBytes += bytes.byteLength;
      if (response.ok && response.headers.get("content-type")?.toLowerCase().startsWith("text/event-stream")) {
        checkedStreamAnswer(bytes, init.body);
      }
      return withBody(response, bytes as Uint8Array<ArrayBuffer>);
    } catch (error) {
      throw asUnreachable(error);
    }
  }
}

/** The method of the JSON-RPC request a POST's body holds (as the transport serialised it), if it is one. */
function sentMethod(body: unknown): string | undefined {
  if (typeof body !== "string" || !body.includes('"tools/list"')) return undefined;
  try {
    const method = (JSON.parse(body) as { method?: unknown }).method;
    return typeof method === "string" ? method : undefined;
  } catch {
    return undefined;
  }
}

/** `response` with another body. */
function withBody(response: Response, body: BodyInit): Response {
  return new Response(body, { status: response.status, statusText: response.statusText, headers: response.headers });
}

/** `promise`, or the reason of `signal` when it aborts first. */
function raced<T>(promise: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (!signal) return promise;
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener("abort", onAbort, { once: true });
    promise.then(resolve, reject).finally(() => signal.removeEventListener("abort", onAbort));
  });
}

/** A call the server answered 404 in a session it no longer knows. */
class SessionGone extends Error {
  constructor(
    readonly client: Client,
    cause: unknown,
  ) {
    super("The MCP session expired.", { cause });
  }
}

function sessionGone(client: Client, error: unknown): boolean {
  const sessionId = (client.transport as { sessionId?: string } | undefined)?.sessionId;
  if (sessionId === undefined) return false;
  if (error instanceof RemoteHttpError) return error.status === 404;
  return error?.constructor?.name === "StreamableHTTPError" && (error as { code?: unknown }).code === 404;
}
