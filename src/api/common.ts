import { z } from "zod";

/** Schemas several routes share. Each with an `id` is also a component of the OpenAPI document. */

export { ErrorBodySchema } from "../core/errors.js";
export { ExecutionResultSchema } from "../core/results.js";

export const ConnectionSchema = z
  .object({
    id: z.string(),
    toolkit: z.string(),
    agentId: z.string().meta({ description: "The agent the connection belongs to (useful in a service key's workspace listing)." }),
    createdAt: z.string().meta({ format: "date-time" }),
    remoteUser: z.string(),
    label: z.string(),
    status: z.enum(["active", "expired", "revoked"]),
    statusReason: z.string().nullable(),
    config: z.record(z.string(), z.string()).meta({
      description: "The connection's non-secret values: its inputs (a shop, a subdomain) and those the provider named (a Slack team id).",
    }),
  })
  .meta({ id: "Connection" });

export const ToolSchema = z
  .object({
    slug: z.string(),
    name: z.string(),
    description: z.string(),
    inputParameters: z.record(z.string(), z.unknown()).meta({ description: "JSON Schema (draft 2020-12) of the arguments." }),
    annotations: z.record(z.string(), z.boolean()).optional(),
    scopes: z.array(z.string()).optional(),
  })
  .meta({ id: "Tool" });

/**
 * `limit` of list routes: default 50, at most 200, written as a plain decimal integer (not `0x10`,
 * `01`, `1e1` or ` 1`, which a numeric coercion would accept).
 */
export const limitParam = z
  .preprocess(
    (value) => (typeof value === "string" && /^[1-9][0-9]{0,8}$/.test(value) ? Number(value) : value),
    z
      .number({ message: "must be a whole number from 1 to 200, written in decimal digits" })
      .int("must be a whole number")
      .min(1, "must be at least 1")
      .max(200, "must be at most 200"),
  )
  .default(50);

export const cursorParam = z.string().max(512).optional();

/** A slug or id taken from a query string or body. */
export const idParam = z.string().min(1).max(128);

/**
 * Free text the caller names something with (a label, an account name), at most `max` characters
 * and without control characters (NUL, line breaks, tabs, escapes, C1 codes), Unicode line and
 * paragraph separators, or bidirectional controls (U+202E and its kin, which make a listing show
 * text in another order than it is): PostgreSQL cannot store NUL, and such text is shown in lists
 * and on terminals.
 */
export const plainText = (max: number) =>
  z
    .string()
    .max(max)
    .regex(
      /^[^\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]*$/,
      "must not contain control characters (NUL, line breaks, tabs, escapes) or bidirectional controls",
    );
