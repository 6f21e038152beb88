import { ToolRunError } from "../core/tool-error.js";
import { takeWholeBody } from "../core/whole-bodies.js";
import { BodyTooLargeError, readBytes } from "../util/bytes.js";
import type { RemoteCallResult } from "./results.js";

/** An HTTP status other than 2xx that the server answered a `tools/call` POST with. */
export class RemoteHttpError extends Error {
  override readonly name = "RemoteHttpError";
  constructor(readonly status: number) {
    super(`The MCP server answered HTTP ${status}.`);
  }
}

/** A JSON-RPC error the server answered a `tools/call` with: `message` is the server's. */
export class RemoteRpcError extends Error {
  override readonly name = "RemoteRpcError";
  constructor(
    readonly code: number,
    message: string,
  ) {
    super(message);
  }
}

/** Where and how one `tools/call` POST goes, in a session the SDK's client opened. */
export interface ToolCallPost {
  /** The server's MCP endpoint. */
  url: string;
  /** The session's `Mcp-Session-Id` and negotiated protocol version, when the server gave them. */
  sessionId: string | undefined;
  protocolVersion: string | undefined;
  /** The call's outbound fetch: the toolkit's URL policy, the connection's credential, the call's deadline. */
  fetch(url: string, init: RequestInit): Promise<Response>;
  /** Bytes of the answer read at most. */
  maxBytes: number;
  /** Gets every message of the answer that is not the response to this call (a notification, a request of the server). */
  deliver(message: Record<string, unknown>): void;
}

/** How long the rest of a stream is read, after the response came, before it is cut (the server should have ended it). */
const DRAIN_MS = 5_000;

/**
 * Sends `tools/call` for `name` with `args` as one POST in the session, and reads its answer once:
 * a JSON body (a message or a batch), or an SSE stream read until the event that holds the response
 * to `id`. Every other message on the way (a notification, a request of the server) goes to
 * `deliver`, so that the SDK's client handles it as if it had read it itself; responses to other
 * ids are skipped. The answer is read up to `maxBytes`. A status other than 2xx is a
 * `RemoteHttpError`, a JSON-RPC error a `RemoteRpcError`, anything that is not a response to the
 * call an `upstream_error` that says so (`slug` names the tool).
 */
export async function postToolCall(post: ToolCallPost, id: string, name: string, args: unknown, slug: string): Promise<RemoteCallResult> {
  const headers: Record<string, string> = { "content-type": "application/json", accept: "application/json, text/event-stream" };
  if (post.sessionId !== undefined) headers["mcp-session-id"] = post.sessionId;
  if (post.protocolVersion !== undefined) headers["mcp-protocol-version"] = post.protocolVersion;
  const body = JSON.stringify({ jsonrpc: "2.0", id, method: "tools/call", params: { name, arguments: args } });
  const response = await post.fetch(post.url, { method: "POST", headers, body });
  if (response.status < 200 || response.status > 299 || response.status === 202 || response.status === 204) {
    discard(response);
    if (response.status >= 200 && response.status <= 299) throw malformed(slug);
    throw new RemoteHttpError(response.status);
  }
  const type = (response.headers.get("content-type") ?? "").split(";")[0]!.trim().toLowerCase();
  const taken = { found: false, message: undefined as unknown };
  const take = (message: unknown) => {
    if (taken.found || !isRecord(message)) return;
    if (message.id === id && (message.result !== undefined || message.error !== undefined)) {
      taken.found = true;
      taken.message = message;
    } else if (typeof message.method === "string") post.deliver(message);
  };
  if (type === "text/event-stream") {
    // An event that is not JSON is skipped, as the SDK's client skips it: only the response to the call is needed.
    await readEvents(response, post.maxBytes, (data) => {
      take(parseOrUndefined(data));
      return taken.found;
    });
  } else if (type === "application/json") {
    const message = parseOrUndefined(new TextDecoder().decode(await readWhole(response, post.maxBytes)));
    if (message === undefined) throw malformed(slug);
    for (const one of Array.isArray(message) ? message : [message]) take(one);
  } else {
    discard(response);
  }
  if (!taken.found) throw malformed(slug);
  return resultOf(taken.message as { result?: unknown; error?: unknown }, slug);
}

/** The call's result from its JSON-RPC response, checked as far as it is read (see `remoteResultData`). */
function resultOf(message: { result?: unknown; error?: unknown }, slug: string): RemoteCallResult {
  if (message.error !== undefined) {
    const error = message.error as { code?: unknown; message?: unknown };
    if (!isRecord(error) || typeof error.code !== "number") throw malformed(slug);
    throw new RemoteRpcError(error.code, typeof error.message === "string" ? error.message : "");
  }
  const result = message.result;
  if (
    !isRecord(result) ||
    (result.content !== undefined && !Array.isArray(result.content)) ||
    (result.structuredContent !== undefined && !isRecord(result.structuredContent)) ||
    (result.isError !== undefined && typeof result.isError !== "boolean")
  ) {
    throw malformed(slug);
  }
  return result;
}

/**
 * Reads an SSE body, giving the data of each event of type `message` to `onData` until it answers
 * true; the rest of the stream is then read in the background (for the connection to be reused)
 * and cut after `DRAIN_MS`. Past `maxBytes` read, the answer is too large.
 */
async function readEvents(response: Response, maxBytes: number, onData: (data: string) => boolean): Promise<void> {
  const whole = takeWholeBody(response);
  if (whole) {
    if (whole.byteLength > maxBytes) throw tooLarge(maxBytes, response.status);
    const events = new SseEvents();
    events.push(new TextDecoder().decode(whole), true, onData);
    return;
  }
  if (!response.body) return;
  const reader = response.body.getReader();
  const decoder = new TextDecoder();
  const events = new SseEvents();
  let size = 0;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) {
        events.push(decoder.decode(), true, onData);
        return;
      }
      size += value.byteLength;
      if (size > maxBytes) throw tooLarge(maxBytes, response.status);
      if (events.push(decoder.decode(value, { stream: true }), false, onData)) {
        drain(reader, maxBytes - size);
        return;
      }
    }
  } catch (error) {
    reader.cancel().catch(() => {});
    throw error;
  }
}

/**
 * An SSE parser (the WHATWG rules: lines end with CRLF, LF or CR; `data:` lines joined by new
 * lines; a blank line ends an event; other fields and comments are skipped, and so is an event of
 * a type other than `message`).
 */
class SseEvents {
  private rest = "";
  private data: string[] = [];
  private type = "";

  /** Parses `text` (with what was left from before); true once `onData` answered true. At the `end`, an unfinished event is dropped. */
  push(text: string, end: boolean, onData: (data: string) => boolean): boolean {
    const buffer = this.rest + text;
    let start = 0;
    for (;;) {
      const lf = buffer.indexOf("\n", start);
      const cr = buffer.indexOf("\r", start);
      const at = cr === -1 ? lf : lf === -1 ? cr : Math.min(cr, lf);
      // A CR at the end may be the first half of a CRLF: wait for what follows, unless nothing does.
      if (at === -1 || (at === buffer.length - 1 && buffer[at] === "\r" && !end)) break;
      const line = buffer.slice(start, at);
      start = at + (buffer[at] === "\r" && buffer[at + 1] === "\n" ? 2 : 1);
      if (this.line(line, onData)) return true;
    }
    this.rest = buffer.slice(start);
    return false;
  }

  private line(line: string, onData: (data: string) => boolean): boolean {
    if (line === "") {
      const data = this.data;
      const type = this.type;
      this.data = [];
      this.type = "";
      return data.length > 0 && (type === "" || type === "message") && onData(data.join("\n"));
    }
    const colon = line.indexOf(":");
    const field = colon === -1 ? line : line.slice(0, colon);
    let value = colon === -1 ? "" : line.slice(colon + 1);
    if (value.startsWith(" ")) value = value.slice(1);
    if (field === "data") this.data.push(value);
    else if (field === "event") this.type = value;
    return false;
  }
}

/** Reads what is left of a stream and drops it, at most `bytes` of it and for `DRAIN_MS`; past either it is cancelled. */
function drain(reader: ReadableStreamDefaultReader<Uint8Array>, bytes: number): void {
  const timer = setTimeout(() => reader.cancel().catch(() => {}), DRAIN_MS);
  (timer as { unref?: () => void }).unref?.();
  void (async () => {
    try {
      for (let left = bytes; ; ) {
        const { done, value } = await reader.read();
        if (done) return;
        left -= value.byteLength;
        if (left < 0) return void (await reader.cancel());
      }
    } catch {
      // Cancelled, or the connection broke: nothing is waiting for it.
    } finally {
      clearTimeout(timer);
    }
  })();
}

/** A JSON body read whole, up to `maxBytes`. */
async function readWhole(response: Response, maxBytes: number): Promise<Uint8Array> {
  const whole = takeWholeBody(response);
  if (whole) {
    if (whole.byteLength > maxBytes) throw tooLarge(maxBytes, response.status);
    return whole;
  }
  if (!response.body) return new Uint8Array(0);
  if (Number(response.headers.get("content-length")) > maxBytes) {
    response.body.cancel().catch(() => {});
    throw tooLarge(maxBytes, response.status);
  }
  try {
    return await readBytes(response.body, maxBytes);
  } catch (error) {
    throw error instanceof BodyTooLargeError ? tooLarge(maxBytes, response.status) : error;
  }
}

/** Drops a body that is not read. */
function discard(response: Response): void {
  if (takeWholeBody(response) === undefined) response.body?.cancel().catch(() => {});
}

function parseOrUndefined(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

function tooLarge(maxBytes: number, status: number): ToolRunError {
  return new ToolRunError(`The upstream response is larger than ${maxBytes} bytes.`, {
    code: "response_too_large",
    upstreamStatus: status,
  });
}

function malformed(slug: string): ToolRunError {
  return new ToolRunError(`The MCP server answered the tool ${slug} with something that is not valid JSON-RPC.`, {
    code: "upstream_error",
  });
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
