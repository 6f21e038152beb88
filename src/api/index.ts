/**
 * The wire format of the Tools API: the zod schema of every route's query, request body and
 * response. The routes validate with them and build the OpenAPI document from them; the client
 * (`tools-proxy/client`) takes its types from them. Modules here import nothing but zod and the
 * error-code table, so importing a schema never pulls in server code.
 */

export * from "./auth.js";
export * from "./catalog.js";
export * from "./common.js";
export * from "./execution.js";
export * from "./files.js";
export * from "./staged-file.js";
