import { parseAnswerJson } from "../core/json-depth.js";
import { ToolRunError } from "../core/tool-error.js";
import type { StagedFileReference, ToolContext } from "./define.js";
import { buildRequest, type RequestSpec } from "./http-request.js";
import { upstreamError } from "./provider-requests.js";

const PLACEHOLDER = /\{([A-Za-z0-9_]+)\}/g;

/** An HTTP tool of a JSON toolkit: one request to `baseUrl` + `path`. */
export interface HttpTool {
  method: "GET" | "POST" | "PUT" | "PATCH" | "DELETE" | "HEAD" | "OPTIONS";
  path: string;
  baseUrl: string;
  /** The declared request (parameters, body, answer); without it, the request is inferred from the arguments. */
  request?: RequestSpec;
  /** Headers (lowercase) the toolkit's credential may go in: no header argument may set them. */
  credentialHeaders?: readonly string[];
}

/**
 * Runs an HTTP tool through `ctx.fetch` (which adds the credential and enforces the URL policy).
 * A tool with `request` sends exactly what it declares (see `buildRequest`) and reads the answer
 * as `request.response` says (see `readAnswer`). Without it: `{placeholders}` in the path are
 * filled from the arguments (URL-encoded), the other arguments go as the query string for GET and
 * DELETE and as a JSON body otherwise, and the upstream JSON (or text) is returned. A non-2xx
 * answer throws a ToolRunError carrying the upstream status.
 */
export async function runHttpTool(tool: HttpTool, args: unknown, ctx: ToolContext): Promise<unknown> {
  const given = (args !== null && typeof args === "object" ? args : {}) as Record<string, unknown>;
  // The tool path is appended to the base path, never resolved against it, so "/v1" is kept.
  const base = tool.baseUrl.replace(/\/+$/, "");
  if (tool.request) {
    const built = buildRequest(tool.path, tool.request, given, tool.credentialHeaders ?? []);
    const mode = tool.request.response ?? "auto";
    const response = await ctx.fetch(base + built.pathAndQuery, {
      method: tool.method,
      headers: { accept: ACCEPT[mode], ...built.headers },
      body: built.body,
      contentLength: built.contentLength,
      cookie: built.cookie,
      signal: ctx.signal,
    });
    if (!response.ok) throw await upstreamError(response, undefined, ctx.rateLimit);
    return readAnswer(response, mode, tool.method, ctx);
  }
  const rest = { ...given };
  const path = tool.path.replace(PLACEHOLDER, (_, name: string) => {
    delete rest[name];
    return pathSegment(name, given[name]);
  });
  let url = base + path;
  const headers: Record<string, string> = { accept: "application/json" };
  const init: RequestInit = { method: tool.method, headers, signal: ctx.signal };
  if (tool.method === "GET" || tool.method === "DELETE" || tool.method === "HEAD" || tool.method === "OPTIONS") {
    const query = toQuery(rest);
    if (query) url += `?${query}`;
  } else {
    headers["content-type"] = "application/json";
    init.body = JSON.stringify(rest);
  }
  const response = await ctx.fetch(url, init);
  if (!response.ok) throw await upstreamError(response, undefined, ctx.rateLimit);
  return readData(response);
}

const ACCEPT: Record<NonNullable<RequestSpec["response"]>, string> = {
  auto: "application/json, */*;q=0.8",
  json: "application/json",
  text: "text/*, */*;q=0.8",
  file: "*/*",
};

/**
 * The answer of a declared tool. HEAD: `{ status, headers }` (no Set-Cookie). Otherwise by `mode`:
 * `json` parses (text when it is not JSON), `text` reads text, `file` stages the body with
 * `ctx.files.stage` and returns the staged file's reference; `auto` reads JSON types as JSON,
 * `text/*`, XML and form types as text, a body without a type as JSON or text, and stages
 * anything else (images, PDF, archives, octet-stream). An empty body is null, never a file.
 */
async function readAnswer(response: Response, mode: NonNullable<RequestSpec["response"]>, method: string, ctx: ToolContext) {
  if (method === "HEAD") {
    await response.body?.cancel().catch(() => {});
    return { status: response.status, headers: Object.fromEntries([...response.headers].filter(([name]) => name !== "set-cookie")) };
  }
  const type = response.headers.get("content-type") ?? "";
  const kind =
    mode !== "auto" ? mode : /^application\/([^;]+\+)?json\b/i.test(type) || type === "" ? "json" : TEXT_TYPE.test(type) ? "text" : "file";
  if (kind !== "file") {
    const text = await response.text();
    if (text === "" || kind === "text") return text === "" ? null : text;
    return parseAnswerJson(text);
  }
  return stageAnswer(response, type, ctx);
}

const TEXT_TYPE = /^(text\/|application\/([^;]+\+)?xml\b|application\/(javascript|x-www-form-urlencoded)\b)/i;

async function stageAnswer(response: Response, type: string, ctx: ToolContext): Promise<StagedFileReference | null> {
  if (!response.body || response.headers.get("content-length") === "0") {
    await response.body?.cancel().catch(() => {});
    return null;
  }
  const filename = filenameOf(response.headers.get("content-disposition"));
  return ctx.files.stage(response.body, { contentType: type || "application/octet-stream", ...(filename ? { filename } : {}) });
}

/** The file name of a Content-Disposition header (`filename*=UTF-8''...` first, then `filename=`), or undefined. */
export function filenameOf(disposition: string | null): string | undefined {
  if (!disposition) return undefined;
  const extended = /filename\*\s*=\s*UTF-8''([^;]+)/i.exec(disposition)?.[1];
  if (extended) {
    try {
      return decodeURIComponent(extended.trim());
    } catch {
      // A malformed extended value falls back to the plain one.
    }
  }
  const plain = /filename\s*=\s*("([^"]*)"|[^;]+)/i.exec(disposition);
  const name = (plain?.[2] ?? plain?.[1])?.trim();
  return name || undefined;
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
  return type === "" || /^application\/(.+\+)?json\b/i.test(type) ? parseAnswerJson(body) : body;
}
