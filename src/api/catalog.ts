import { z } from "zod";
import { cursorParam, idParam, limitParam, ToolSchema } from "./common.js";

/** `GET /search`, `GET /toolkit/:toolkit` and `GET /toolkit/:toolkit/search`. */

/** Every type of auth scheme, token grants included. */
const AUTH_TYPES = [
  "oauth2",
  "apiKey",
  "bearer",
  "basic",
  "none",
  "clientCredentials",
  "tokenExchange",
  "jwtBearer",
  "appInstallation",
] as const;

export const ToolkitSummarySchema = z
  .object({
    slug: z.string(),
    name: z.string(),
    description: z.string(),
    icon: z.string(),
    authScheme: z.enum(AUTH_TYPES),
    authSchemes: z
      .array(z.enum(AUTH_TYPES))
      .meta({ description: "Every way to connect, the first being authScheme; choose one with POST /auth { mode }." }),
    toolCount: z.number().int(),
    connected: z.boolean().meta({ description: "Whether the caller has an active connection to this toolkit." }),
    configured: z.boolean().meta({
      description: "False when the server's operator has not yet set this provider's OAuth client: POST /auth with OAuth then fails.",
    }),
  })
  .meta({ id: "ToolkitSummary" });

export const SearchQuerySchema = z.object({ keywords: z.string().max(200).optional(), limit: limitParam, cursor: cursorParam });

export const SearchResultSchema = z.object({ toolkits: z.array(ToolkitSummarySchema), nextCursor: z.string().nullable() });

/** How a toolkit's connections authenticate, without anything secret. */
export const ToolkitAuthSchema = z
  .object({
    type: z.enum(AUTH_TYPES),
    in: z.enum(["header", "query"]).optional().meta({ description: "apiKey: where the key goes." }),
    name: z.string().optional().meta({ description: "apiKey: the header or query parameter that carries the key." }),
    scopes: z.array(z.string()).optional().meta({ description: "oauth2: the scopes a connection asks for." }),
    label: z.string().optional().meta({ description: "What this way of connecting is called, e.g. Personal access token." }),
    helpUrl: z.string().optional().meta({ description: "Where the provider explains or shows this credential." }),
    configured: z.boolean().optional().meta({ description: "oauth2: false until the server's operator sets the OAuth client." }),
  })
  .meta({ id: "ToolkitAuth" });

/** A value a connection needs, sent as POST /auth { config }. */
export const ToolkitInputSchema = z
  .object({
    name: z.string(),
    label: z.string(),
    description: z.string().optional(),
    pattern: z.string().optional().meta({ description: "A regular expression the value must match; it is also one DNS label." }),
    example: z.string().optional(),
    type: z.enum(["label", "host"]).meta({
      description: "label: one DNS label. host: a whole host name, one of hosts (a * label stands for one DNS label).",
    }),
    hosts: z.array(z.string()).optional().meta({ description: "The hosts a host input may name, e.g. *.my.salesforce.com." }),
    optional: z.boolean().meta({ description: "Whether POST /auth may leave it out: it then takes default." }),
    default: z.string().optional().meta({ description: "The value of an input left out." }),
  })
  .meta({ id: "ToolkitInput" });

const toolListQuery = { limit: limitParam, cursor: cursorParam, connection_id: idParam.optional() };

export const ToolkitQuerySchema = z.object(toolListQuery);

export const ToolkitDetailsSchema = z
  .object({
    slug: z.string(),
    name: z.string(),
    description: z.string(),
    icon: z.string(),
    authScheme: z.string(),
    auth: ToolkitAuthSchema,
    authModes: z.array(ToolkitAuthSchema).meta({ description: "Every way to connect, the first being auth." }),
    inputs: z.array(ToolkitInputSchema).meta({ description: "Values a connection needs, sent as POST /auth { config }." }),
    categories: z.array(z.string()),
    docsUrl: z.string().optional(),
    baseUrls: z.array(z.string()).meta({
      description:
        "Where POST /proxy may send requests: every URL must fall under one of these. `{name}` is filled from the connection's config.",
    }),
    tools: z.array(ToolSchema),
    nextCursor: z.string().nullable(),
  })
  .meta({ id: "Toolkit" });

export const ToolSearchQuerySchema = z.object({ query: z.string().max(200).optional(), ...toolListQuery });

export const ToolSearchResultSchema = z.object({ tools: z.array(ToolSchema), nextCursor: z.string().nullable() });
