import { z } from "zod";
import { rateLimitHeadersSchema } from "../core/rate-limit-headers.js";
import { inputSchema, oauth2Fields, otherSchemes } from "../toolkits/json.js";

const text = z.string().min(1, "must not be empty");
const https = z.string().refine((value) => URL.canParse(value) && new URL(value).protocol === "https:", "must be an absolute https URL");

/** An https URL without userinfo, query or fragment: where a remote MCP server answers. */
const serverUrl = https.refine((value) => {
  const url = new URL(value);
  return !url.username && !url.password && !url.search && !url.hash && !value.includes("#") && !value.includes("?");
}, "must have no credentials, query or fragment");

/** An https origin (`https://github.com`), nothing after it. */
const httpsOrigin = https.refine((value) => new URL(value).origin === value, "must be an https origin, with no path");

/**
 * The provider's own remote MCP server, as the vendor's documentation (`source`) gives it.
 * `auth` says how it is connected: `discovery`, the MCP authorization spec (protected resource
 * metadata, then dynamic registration unless the deployer configures a client); `provider`, the
 * provider's own ways to connect (GitHub's tokens work on its MCP server too).
 */
export const mcpServerSchema = z.strictObject({
  url: serverUrl,
  transport: z.enum(["streamable-http", "sse"]).optional(),
  auth: z.enum(["discovery", "provider"]),
  /** Authorization server origins besides the MCP server's own, when the vendor's docs put it elsewhere. */
  authorizationServers: z.array(httpsOrigin).min(1).optional(),
  /** False when the vendor's authorization server takes no dynamic registration: a configured client is needed. */
  dynamicRegistration: z.boolean().optional(),
  /** The vendor's documentation page that gives the URL. */
  source: https,
  /** What a deployer must know before serving it (a client to register, an allowlist). */
  limitation: text.optional(),
});

export type McpServerDefinition = z.output<typeof mcpServerSchema>;

/**
 * One provider of the catalog, as its data file holds it: what a toolkit needs, without the
 * deployer's client credentials, plus what people search and read (categories, aliases, docs).
 * `sources` cites the provider's own pages that each fact comes from; `unconfirmed` lists the
 * facts those pages did not confirm.
 */
export const providerSchema = z.strictObject({
  $schema: z.string().optional(),
  slug: z.string().regex(/^[a-z0-9][a-z0-9-]{0,63}$/, "must be lowercase letters, digits and -"),
  name: text,
  description: text,
  categories: z.array(text).min(1),
  aliases: z.array(text).default([]),
  docsUrl: https,
  /** A simple-icons slug; left out, the handler draws a monogram. */
  icon: z
    .string()
    .regex(/^[a-z0-9]+$/)
    .optional(),
  /** The brand colour (hex, no #) of the monogram. */
  color: z
    .string()
    .regex(/^[0-9A-Fa-f]{6}$/)
    .optional(),
  baseUrl: z.union([https.or(text), z.array(text).min(1)]),
  headers: z.record(text, z.string()).optional(),
  inputs: z.array(inputSchema).optional(),
  /**
   * Whose OAuth client this provider uses, when several share one (Gmail, Calendar and Drive
   * share Google's): its environment variables are read when the provider's own are unset.
   */
  clientOf: z
    .string()
    .regex(/^[a-z0-9-]+$/)
    .optional(),
  auth: z.array(z.discriminatedUnion("type", [z.strictObject(oauth2Fields), ...otherSchemes])).min(1),
  /** The provider's own rate-limit headers, as its documentation (cited in `sources`) gives them. */
  rateLimit: rateLimitHeadersSchema.optional(),
  sources: z.array(https).min(1),
  unconfirmed: z.array(text).optional(),
  /**
   * What stops connections from working as the provider is listed, until the engine can do it
   * (Trello's second query parameter, the app key). The catalog page shows it beside the provider.
   */
  limitation: text.optional(),
  /** The vendor's own remote MCP server, served beside the REST API as the `<slug>-mcp` toolkit. */
  mcp: mcpServerSchema.optional(),
});

export type ProviderDefinition = z.output<typeof providerSchema>;
