/**
 * `tools-proxy/client`: a typed client of the Tools API for Node, Bun, Deno and browsers.
 *
 * ```ts
 * import { createToolsClient } from "tools-proxy/client";
 * const tools = createToolsClient({ baseUrl: "http://localhost:8787/proxy/tools", apiKey: process.env.KEY! });
 * const { toolkits } = await tools.search({ keywords: "notes" });
 * ```
 */
export { createToolsClient, type ToolsClient, type ToolsClientOptions } from "./client.js";
export type { DownloadedFile } from "./download.js";
export { isToolsClientError, ToolsClientError, type ToolsClientErrorCode } from "./errors.js";
export type { UploadProgress } from "./multipart.js";
export type { FetchFunction } from "./transport.js";
export type * from "./types.js";
export type { UploadOptions, UploadSource } from "./upload.js";
export type { WaitOptions } from "./wait.js";
