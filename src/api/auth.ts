import { z } from "zod";
import { ConnectionSchema, cursorParam, idParam, limitParam, plainText } from "./common.js";

/** `POST /auth`, `GET /auth/:authorizationId` and the connection routes. */

/** A record of fields is never one of the fixed shapes that failed its own rule (an empty key, an extra field). */
const fixedShapeFailed = (fields: Record<string, string>) =>
  Object.hasOwn(fields, "apiKey") || Object.hasOwn(fields, "token") || Object.keys(fields).sort().join(",") === "password,username";

export const CredentialsSchema = z.union([
  z.object({ apiKey: z.string().min(1).max(4096) }).strict(),
  z.object({ token: z.string().min(1).max(8192) }).strict(),
  z.object({ username: z.string().max(1024), password: z.string().max(4096) }).strict(),
  // The fields of a token grant's mode (client credentials: clientId and clientSecret; a two-step
  // exchange: its own), never one of the shapes above that failed its own rule.
  z
    .record(z.string().regex(/^[A-Za-z][A-Za-z0-9_]{0,63}$/, "must be a field name"), z.string().max(16_384))
    .refine((fields) => !fixedShapeFailed(fields), {
      message: "must be { apiKey }, { token }, { username, password } or the fields of the toolkit's mode, none empty",
    }),
]);

export const AuthBodySchema = z.object({
  toolkit: idParam,
  label: plainText(200).min(1).optional(),
  returnUrl: plainText(2048).url().optional(),
  credentials: CredentialsSchema.optional().meta({
    description:
      "For apiKey, bearer and basic toolkits: { apiKey }, { token } or { username, password }; for client credentials { clientId, clientSecret }; else the mode's fields (GET /toolkit/{slug}).",
  }),
  mode: z
    .enum(["oauth2", "apiKey", "bearer", "basic", "clientCredentials", "tokenExchange", "jwtBearer", "appInstallation"])
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
