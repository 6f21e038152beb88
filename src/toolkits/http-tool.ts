import { ToolRunError, upstreamError } from "../core/tool-error.js";
import type { ToolContext } from "./define.js";

const PLACEHOLDER = /\{([A-Za-z0-9_]+)\}/g;

/** An HTTP tool of a JSON toolkit: one request to `baseUrl` + `path`. */
export interface HttpTool {
  method: "GET" | "POST" | "PUT" | "PATCH" | "DELETE";
  path: string;
  baseUrl: string;
}

/**
 * Runs an HTTP tool: fills `{placeholders}` in the path from the arguments (URL-encoded), sends the
 * other arguments as the query string for GET and DELETE and as a JSON body otherwise, through
 * `ctx.fetch` (which adds the credential and enforces the URL policy), and returns the upstream
 * JSON (or text). A non-2xx answer throws a ToolRunError carrying the upstream status.
 */
export async function runHttpTool(tool: HttpTool, args: unknown, ctx: ToolContext): Promise<unknown> {
  const given = (args !== null && typeof args === "object" ? args : {}) as Record<string, unknown>;
  const rest = { ...given };
  const path = tool.path.replace(PLACEHOLDER, (_, name: string) => {
    delete rest[name];
    return pathSegment(name, given[name]);
  });
  // The tool path is appended to the base path, never resolved against it, so "/v1" is kept.
  let url = tool.baseUrl.replace(/\/+$/, "") + path;
  const headers: Record<string, string> = { accept: "application/json" };
  const init: RequestInit = { method: tool.method, headers, signal: ctx.signal };
  if (tool.method === "GET" || tool.method === "DELETE") {
    const query = toQuery(rest);
    if (query) url += `?${query}`;
  } else {
    headers["content-type"] = "application/json";
    init.body = JSON.stringify(rest);
  }
  const response = await ctx.fetch(url, init);
  if (!response.ok) throw await upstreamError(response);
  return readData(response);
}

function pathSegment(name: string, value: unknown): string {
  if (value === undefined || value === null || value === "") {
    throw new ToolRunError(`Argument "${name}" is required: it fills {${name}} in the request path.`, { code: "invalid_arguments" });
  }
  if (typeof value !== "string" && typeof value !== "number" && typeof value !== "boolean") {
    throw new ToolRunError(`Argument "${name}" must be a string or a number: it fills {${name}} in the request path.`, {
      code: "invalid_arguments",
    });
  }
  const text = String(value);
  // encodeURIComponent leaves "." alone, and a whole "." or ".." segment would climb out of the path.
  if (text === "." || text === "..") {
    throw new ToolRunError(`Argument "${name}" must not be "." or "..".`, { code: "invalid_arguments" });
  }
  return encodeURIComponent(text);
}

/** Arrays repeat the parameter; objects are sent as JSON text; null and undefined are left out. */
function toQuery(args: Record<string, unknown>): string {
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(args)) {
    for (const item of Array.isArray(value) ? value : [value]) {
      if (item === undefined || item === null) continue;
      params.append(key, typeof item === "object" ? JSON.stringify(item) : String(item));
    }
  }
  return params.toString();
}

async function readData(response: Response): Promise<unknown> {
  const body = await response.text();
  if (body === "") return null;
  const type = response.headers.get("content-type") ?? "";
  if (type === "" || /^application\/(.+\+)?json\b/i.test(type)) {
    try {
      return JSON.parse(body);
    } catch {
      return body;
    }
  }
  return body;
}
