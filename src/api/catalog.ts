import { z } from "zod";
import { cursorParam, idParam, limitParam, ToolSchema } from "./common.js";

/** `GET /search`, `GET /toolkit/:toolkit` and `GET /toolkit/:toolkit/search`. */

/** Every scheme type, as the wire names it. */
const authType = z.enum(["oauth2", "apiKey", "bearer", "basic", "none"]);

export const ToolkitSummarySchema = z
  .object({
    slug: z.string(),
    name: z.string(),
    description: z.string(),
    icon: z.string(),
    authScheme: authType,
    authSchemes: z
      .array(authType)
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

/** One value a person types to connect with a mode: a key of POST /auth { credentials }. */
export const CredentialFieldSchema = z
  .object({
    name: z.string().meta({ description: "The key in POST /auth { credentials }, e.g. apiKey." }),
    label: z.string().meta({ description: "What a person is asked, e.g. API key." }),
    secret: z.boolean().meta({ description: "Whether it is a secret (never shown again)." }),
    optional: z.boolean().meta({ description: "Whether it may be left out." }),
  })
  .meta({ id: "CredentialField" });

/** How a toolkit's connections authenticate, without anything secret. */
export const ToolkitAuthSchema = z
  .object({
    mode: z.string().meta({ description: "This way's id, unique within the toolkit: what POST /auth { mode } takes." }),
    type: authType,
    in: z.enum(["header", "query"]).optional().meta({ description: "apiKey: where the key goes." }),
    name: z.string().optional().meta({ description: "apiKey: the header or query parameter that carries the key." }),
    scopes: z.array(z.string()).optional().meta({ description: "oauth2: the scopes a connection asks for." }),
    label: z.string().meta({ description: "What this way of connecting is called, e.g. Personal access token." }),
    helpUrl: z.string().optional().meta({ description: "Where the provider explains or shows this credential." }),
    configured: z.boolean().optional().meta({ description: "oauth2: false until the server's operator sets the OAuth client." }),
    fields: z
      .array(CredentialFieldSchema)
      .meta({ description: "The keys POST /auth { credentials } takes for this way (none for OAuth 2 sign-in)." }),
  })
  .meta({ id: "ToolkitAuth" });

/** A value a connection needs, sent as POST /auth { config }. */
export const ToolkitInputSchema = z
  .object({
    name: z.string(),
    label: z.string(),
    description: z.string().optional(),
    pattern: z.string().optional().meta({ description: "A regular expression the value must match." }),
    example: z.string().optional(),
    type: z.enum(["label", "host", "origin", "enum", "text"]).meta({
      description:
        "label: one DNS label. host: a whole host name, one of hosts (a * label stands for one DNS label). " +
        "origin: a whole https://host[:port] origin. enum: one of values. text: free text on one line (at most maxLength characters).",
    }),
    hosts: z.array(z.string()).optional().meta({ description: "The hosts a host input may name, e.g. *.my.salesforce.com." }),
    values: z.array(z.string()).optional().meta({ description: "enum: the values it may take." }),
    maxLength: z.number().int().optional().meta({ description: "text: the longest value, in characters." }),
    optional: z.boolean().meta({ description: "Whether POST /auth may leave it out: it then takes default, if any." }),
    default: z.string().optional().meta({ description: "The value of an input left out." }),
    filled: z.boolean().meta({
      description:
        "Whether the provider fills it (from its token answer or an account lookup) with every way to connect: it is never asked for.",
    }),
    from: z.enum(["token", "lookup"]).optional().meta({
      description:
        "Where a filled input's value comes from: token (the token answer or the sign-in's redirect) or lookup (an account lookup).",
    }),
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
