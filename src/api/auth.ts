import { z } from "zod";
import { ConnectionSchema, cursorParam, idParam, limitParam, plainText } from "./common.js";

/** `POST /auth`, `GET /auth/:authorizationId` and the connection routes. */

// Beside its own keys, a mode may take further secrets it declares (Datadog's `applicationKey`):
// their names are checked against the mode when the connection is made.
const extraField = z.string().max(4096);
export const CredentialsSchema = z.union([
  z.object({ apiKey: z.string().min(1).max(4096) }).catchall(extraField),
  z.object({ token: z.string().min(1).max(8192) }).catchall(extraField),
  z.object({ username: z.string().max(1024), password: z.string().max(4096) }).catchall(extraField),
]);

export const AuthBodySchema = z.object({
  toolkit: idParam,
  label: plainText(200).min(1).optional(),
  returnUrl: plainText(2048).url().optional(),
  credentials: CredentialsSchema.optional().meta({
    description: "For apiKey, bearer and basic toolkits: { apiKey }, { token } or { username, password }.",
  }),
  mode: z
    .enum(["oauth2", "apiKey", "bearer", "basic"])
    .optional()
    .meta({ description: "How to connect, for a toolkit with several ways (GitHub: oauth2, or bearer with a personal token)." }),
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
