import { z } from "zod";
import { ExecutionResultSchema, idParam } from "./common.js";
import { STAGED_FILE_FORMAT } from "./staged-file.js";

/** `POST /execute` and `POST /proxy`. */

export const ExecuteBodySchema = z.object({
  tool: idParam.meta({ description: "Tool slug." }),
  arguments: z
    .record(z.string(), z.unknown())
    .default({})
    .meta({ description: "The tool's arguments, checked against its inputParameters." }),
  connection_id: idParam.optional().meta({ description: "Connection to use; required when the agent has several." }),
});

export const ProxyBodySchema = z.object({
  toolkit: idParam,
  method: z.enum(["GET", "POST", "PUT", "PATCH", "DELETE"]),
  url: z
    .string()
    .max(8192)
    .refine(
      (url) => url === url.trim() && !/[\u0000-\u001f\u007f]/.test(url),
      "must not contain whitespace at either end, line breaks or control characters",
    )
    .refine((url) => URL.canParse(url), "must be a full URL such as https://api.example.com/v1/items")
    .meta({ description: "Full URL; must fall under one of the toolkit's base URLs." }),
  headers: z.record(z.string().max(256), z.string().max(8192)).optional(),
  body: z
    .unknown()
    .optional()
    .meta({ description: "JSON value sent as the body (POST, PUT, PATCH). A string is sent as text unless Content-Type says JSON." }),
  bodyFile: z
    .string()
    .max(160)
    .optional()
    .meta({
      description:
        "Staging key of a file the agent uploaded (POST /upload), sent as the raw body (POST, PUT, PATCH) " +
        "with its stored content type unless headers set Content-Type. Not with body.",
      format: STAGED_FILE_FORMAT,
    }),
  connection_id: idParam.optional(),
});

export const ProxyResultSchema = ExecutionResultSchema.extend({
  status: z.number().nullable().meta({ description: "Upstream HTTP status; null when no answer came." }),
  headers: z.record(z.string(), z.string()).meta({ description: "A filtered set of upstream response headers." }),
}).meta({ id: "ProxyResult" });
