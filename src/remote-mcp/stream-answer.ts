import { ToolRunError } from "../core/tool-error.js";

const decoder = new TextDecoder();

/**
 * Checks an SSE answer to a POST, read whole: each request the POST carried must have a JSON-RPC
 * response (a `result` or an `error` with its id) among the events' data. Otherwise the request
 * would wait for an answer that will never come; it fails now, as an answer that is not JSON-RPC.
 */
export function checkedStreamAnswer(bytes: Uint8Array, sent: unknown): void {
  const ids = requestIds(sent);
  if (ids.size === 0) return;
  for (const event of decoder.decode(bytes).split(/\r\n\r\n|\n\n|\r\r/)) {
    const data = event
      .split(/\r\n|\n|\r/)
      .filter((line) => line.startsWith("data:"))
      .map((line) => line.slice(line.startsWith("data: ") ? 6 : 5))
      .join("\n");
    if (!data) continue;
    try {
      const message = JSON.parse(data) as { id?: unknown; result?: unknown; error?: unknown };
      if ((message.result !== undefined || message.error !== undefined) && ids.has(message.id as string | number))
        ids.delete(message.id as string | number);
    } catch {}
  }
  if (ids.size > 0) {
    throw new ToolRunError("The MCP server answered with a stream that holds no valid JSON-RPC response.", { code: "upstream_error" });
  }
}

/** The ids of the JSON-RPC requests in a POST's body (a message or a batch), as the transport serialised it. */
function requestIds(body: unknown): Set<string | number> {
  if (typeof body !== "string") return new Set();
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    return new Set();
  }
  const ids = new Set<string | number>();
  for (const message of [parsed].flat() as Array<{ method?: unknown; id?: unknown }>) {
    if (typeof message?.method === "string" && (typeof message.id === "string" || typeof message.id === "number")) ids.add(message.id);
  }
  return ids;
}

/**
 * `body`, a stream of server-sent events, cut with an error when one event (the bytes since the
 * last blank line) grows past `maxBytes`: the parser keeps an event whole until it ends, so an
 * event that never ends would otherwise grow memory without bound.
 */
export function eventsCapped(body: ReadableStream<Uint8Array>, maxBytes: number): ReadableStream<Uint8Array> {
  let inEvent = 0;
  // The last two bytes seen: a line end right after a line end ("\n\n", "\r\r", "\n\r\n") ends an event.
  let previous = 0;
  let last = 0;
  return body.pipeThrough(
    new TransformStream<Uint8Array, Uint8Array>({
      transform(chunk, controller) {
        for (const byte of chunk) {
          const ends = (byte === LF && (last === LF || (last === CR && previous === LF))) || (byte === CR && last === CR);
          inEvent = ends ? 0 : inEvent + 1;
          previous = last;
          last = byte;
          if (inEvent > maxBytes) {
            controller.error(
              new ToolRunError(`The MCP server sent a message larger than ${maxBytes} bytes on its stream.`, {
                code: "response_too_large",
              }),
            );
            return;
          }
        }
        controller.enqueue(chunk);
      },
    }),
  );
}

const LF = 0x0a;
const CR = 0x0d;
