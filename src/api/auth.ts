import { z } from "zod";
import { ConnectionSchema, cursorParam, idParam, limitParam, plainText } from "./common.js";

/** `POST /auth`, `GET /auth/:authorizationId` and the connection routes. */

/**
 * The values a person types to connect, by field name: the mode's `fields` in `GET /toolkit/{slug}`
 * (`{ apiKey }`, `{ token }`, `{ username, password }`, or a newer mode's own). Each mode checks its
 * own fields and their lengths.
 */
export const CredentialsSchema = z
  .record(z.string().regex(/^[A-Za-z][A-Za-z0-9_]{0,63}$/, "must be a field name of the mode"), z.string().max(65536))
  .refine((values) => Object.keys(values).length <= 16, "has more than 16 fields");

export const AuthBodySchema = z.object({
  toolkit: idParam,
  label: plainText(200).min(1).optional(),
  returnUrl: plainText(2048).url().optional(),
  credentials: CredentialsSchema.optional().meta({
    description:
      "The chosen way's fields (GET /toolkit/{slug} authModes[].fields): { apiKey }, { token }, { username, password }, or a newer way's own.",
  }),
  mode: z
    .string()
    .regex(/^[A-Za-z][A-Za-z0-9_-]{0,63}$/, "must be a mode id of the toolkit (GET /toolkit/{slug} authModes[].mode)")
    .optional()
    .meta({
      description:
        "How to connect, for a toolkit with several ways: a mode id of its authModes (GitHub: oauth2, or bearer with a personal token).",
    }),
  config: z
    .record(z.string().regex(/^[A-Za-z0-9_]{1,64}$/, "must be a name of letters, digits or _"), z.string().max(253))
    .optional()
    .meta({ description: "The connection's inputs, e.g. { shop: 'acme' } or { subdomain: 'acme' }: see the toolkit's inputs." }),
  params: z
    .record(z.string().regex(/^[A-Za-z0-9_]{1,64}$/, "must be a name of letters, digits or _"), z.string().max(253))
    .optional()
    .meta({ description: "Deprecated name of config.", deprecated: true }),
  remoteUser: plainText(256).optional().meta({ description: "The account on the external application, when the caller knows it." }),
});

export const AuthorizationStartedSchema = z
  .object({
    authorizationId: z.string(),
    authorizationUrl: z.string().meta({ description: "Open it in a browser to sign in and consent." }),
    expiresAt: z.string().meta({ format: "date-time" }),
  })
  .meta({ id: "AuthorizationStarted" });

export const ConnectionCreatedSchema = z.object({ connection: ConnectionSchema });

export const AuthorizationStatusSchema = z.object({
  status: z.enum(["pending", "connected", "failed", "expired"]),
  connectionId: z.string().optional(),
  error: z.string().optional(),
});

export const ConnectionsQuerySchema = z.object({ toolkit: idParam.optional(), limit: limitParam, cursor: cursorParam });

/**
 * One page of connections. `nextCursor` is there only when another page follows, so that a caller
 * with fewer connections than `limit` gets `{ connections }` alone, as the Tools API always answered.
 */
export const ConnectionListSchema = z.object({
  connections: z.array(ConnectionSchema),
  nextCursor: z.string().optional().meta({ description: "Present when more connections follow: pass it as cursor for the next page." }),
});
