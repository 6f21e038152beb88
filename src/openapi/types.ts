/**
 * The JSON toolkit an import produces: the format `serve --toolkits` loads (see the JSON toolkit
 * schema in toolkits/json.ts), with each tool's `request` saying where every argument goes.
 */
import type { JsonSchema } from "../toolkits/define.js";

/** Where one argument goes in the request (OpenAPI's parameter, by its wire name). */
export interface RequestParameter {
  in: "path" | "query" | "header" | "cookie";
  /** The name on the wire. */
  name: string;
  /** The argument that holds the value, when it is not `name`. */
  arg?: string;
  style?: string;
  explode?: boolean;
  allowReserved?: boolean;
}

/** The request body: one argument (`arg`), or an object assembled from several (`fields`: body property → argument). */
export interface RequestBody {
  contentType: string;
  arg?: string;
  fields?: Record<string, string>;
}

/** How an imported tool builds its request. */
export interface ToolRequest {
  parameters: RequestParameter[];
  body?: RequestBody;
}

export type HttpMethod = "GET" | "POST" | "PUT" | "PATCH" | "DELETE" | "HEAD" | "OPTIONS";

/** One tool of the imported toolkit, as the JSON toolkit format writes it. */
export interface ImportedTool {
  slug: string;
  name: string;
  description: string;
  method: HttpMethod;
  path: string;
  inputParameters: JsonSchema & { type: "object" };
  annotations: { readOnly: boolean; destructive: boolean; idempotent: boolean; openWorld: boolean };
  scopes?: string[];
  /** The operation's own server, one of the toolkit's base URLs (absent: the toolkit's first). */
  baseUrl?: string;
  request: ToolRequest;
}

/** An auth scheme of the JSON toolkit format. */
export type ImportedAuth =
  | {
      type: "oauth2";
      authorizationUrl: string;
      tokenUrl: string;
      refreshUrl?: string;
      clientId: string;
      clientSecret: string;
      scopes: string[];
    }
  | { type: "apiKey"; in: "header" | "query"; name: string }
  | { type: "bearer" }
  | { type: "basic" }
  | { type: "none" };

/** A connection input (a server variable): the value a connection gives for `{name}` in the base URL. */
export interface ImportedInput {
  name: string;
  label: string;
  description?: string;
  pattern?: string;
  example?: string;
}

/** The imported toolkit: a JSON toolkit, ready to be written to a file or given to `defineJsonToolkit`. */
export interface ImportedToolkit {
  slug: string;
  name: string;
  description: string;
  icon?: string;
  docsUrl?: string;
  /** The document's server first, then the other servers some operations name. */
  baseUrl: string | string[];
  auth: ImportedAuth[];
  inputs?: ImportedInput[];
  tools: ImportedTool[];
}
