import { ToolsError } from "../core/errors.js";
import { asUnreachable } from "../core/failure.js";
import { isRetryableStatus, ToolRunError } from "../core/tool-error.js";
import { RemoteHttpError, RemoteRpcError } from "./tool-call.js";
import type { RemoteTool } from "./tools.js";

/** What `tools/call` answers (the 2025-11-25 `CallToolResult`), as far as it is read here. */
export interface RemoteCallResult {
  content?: unknown;
  structuredContent?: unknown;
  isError?: unknown;
}

/**
 * The data of a remote tool's answer: its `structuredContent` when it has one, else its content:
 * the text of text blocks joined by new lines when every block is text, else the blocks as they
 * are. An answer with `isError` throws a `ToolRunError` (`tool_failed`) whose sentence is the
 * text the tool gave.
 */
export function remoteResultData(tool: RemoteTool, result: RemoteCallResult): unknown {
  const blocks = Array.isArray(result.content) ? (result.content as unknown[]) : [];
  const text = textOf(blocks);
  if (result.isError === true) {
    const said = text?.trim() ? text.trim() : "it gave no reason";
    throw new ToolRunError(`The tool ${tool.slug} failed: ${said}`, { code: "tool_failed" });
  }
  if (result.structuredContent !== undefined && result.structuredContent !== null) return result.structuredContent;
  return text ?? blocks;
}

/** The text of content blocks that are all text, joined by new lines; undefined when any is not. */
function textOf(blocks: unknown[]): string | undefined {
  if (blocks.length === 0) return undefined;
  const texts: string[] = [];
  for (const block of blocks) {
    const { type, text } = (block ?? {}) as { type?: unknown; text?: unknown };
    if (type !== "text" || typeof text !== "string") return undefined;
    texts.push(text);
  }
  return texts.join("\n");
}

/** JSON-RPC and MCP error codes this mapping tells apart. */
const REQUEST_TIMEOUT = -32001;
const CONNECTION_CLOSED = -32000;

/**
 * A failure of a call to a remote MCP server as the ExecutionResult reports it. Already ours (a
 * refused URL, a refused credential, a too-large answer, a timeout) stays as it is; an HTTP status
 * is an `upstream_error` with `upstreamStatus`, retryable when the status says so and the call is
 * safe to send again (429 and 503, where the server did not run it, or a read-only or idempotent
 * tool); a JSON-RPC error is an `upstream_error` with the server's message; an answer that is not
 * JSON-RPC is an `upstream_error`; a network failure is `upstream_unreachable`.
 */
export function remoteFailure(error: unknown, tool: RemoteTool | undefined): unknown {
  if (error instanceof ToolRunError || error instanceof ToolsError) return error;
  const unreachable = asUnreachable(error);
  if (unreachable !== error) return unreachable;
  const named = error as { name?: unknown; code?: unknown; message?: unknown };
  const message = typeof named.message === "string" ? named.message : "";
  const what = tool ? `the tool ${tool.slug}` : "its tools";
  const kind = typeof error === "object" && error !== null ? error.constructor?.name : undefined;
  const posted = /^Error POSTing to endpoint \(HTTP (\d{3})\)/.exec(message);
  const http = error instanceof RemoteHttpError;
  if (http || kind === "StreamableHTTPError" || kind === "SseError" || kind === "UnauthorizedError" || posted) {
    const code = http ? error.status : posted ? Number(posted[1]) : kind === "UnauthorizedError" ? 401 : named.code;
    const status = typeof code === "number" && code >= 100 ? code : undefined;
    if (status === undefined) return malformed(what, error);
    const safe = status === 429 || status === 503 || tool?.annotations?.readOnly === true || tool?.annotations?.idempotent === true;
    return new ToolRunError(statusSentence(status, what), {
      code: "upstream_error",
      upstreamStatus: status,
      retryable: safe && isRetryableStatus(status),
      cause: error,
    });
  }
  // The server's own error: its codes never mean the SDK's local timeout or closed session.
  if (error instanceof RemoteRpcError) return new ToolRunError(`The MCP server refused ${what}: ${message}`, { code: "upstream_error" });
  if (named.name === "McpError" && typeof named.code === "number") {
    if (named.code === REQUEST_TIMEOUT)
      return new ToolRunError(`The MCP server did not answer ${what} in time.`, { code: "timeout", retryable: true });
    if (named.code === CONNECTION_CLOSED) {
      return new ToolRunError(`The MCP server closed the session while calling ${what}.`, {
        code: "upstream_unreachable",
        retryable: false,
      });
    }
    return new ToolRunError(`The MCP server refused ${what}: ${message.replace(/^MCP error -?\d+: /, "")}`, { code: "upstream_error" });
  }
  if (named.name === "SyntaxError" || named.name === "ZodError" || named.name === "$ZodError") return malformed(what, error);
  if (named.name === "AbortError" || named.name === "TimeoutError") return error;
  return new ToolRunError(`The MCP server's answer for ${what} could not be used.`, { code: "upstream_error", cause: error });
}

function malformed(what: string, cause: unknown): ToolRunError {
  return new ToolRunError(`The MCP server answered ${what} with something that is not valid JSON-RPC.`, { code: "upstream_error", cause });
}

function statusSentence(status: number, what: string): string {
  if (status === 401 || status === 403) {
    return `The MCP server refused the connection's credential (HTTP ${status}) for ${what}; reconnect the toolkit, or check the access the credential grants.`;
  }
  if (status === 404) return `The MCP server answered HTTP 404 for ${what}: its URL may have changed.`;
  return `The MCP server answered HTTP ${status} for ${what}.`;
}
