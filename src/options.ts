import { z } from "zod";
import type { BlobStore } from "./blob/types.js";
import type { CorsOptions } from "./core/cors.js";
import type { ToolsHooks } from "./context/context.js";
import type { LimitsHook } from "./limits/types.js";
import type { Logger } from "./core/logger.js";
import type { LeaseStore } from "./store/leases.js";
import { retriesSchema, type RetryOptions } from "./outbound/retry.js";
import type { ToolsStore } from "./store/types.js";
import type { Toolkit, ToolkitDefinition } from "./toolkits/define.js";
import type { ToolkitRegistry } from "./toolkits/registry.js";

/** Options of `createToolsHandler`. Only `toolkits` is usually needed to start. */
export interface ToolsHandlerOptions {
  /** API keys, connections, authorizations, leases. Default: in-memory (`memoryStore()`). */
  store?: ToolsStore;
  /** The toolkits served: a registry, or an array wrapped in the built-in registry. */
  toolkits?: ToolkitRegistry | Array<Toolkit | ToolkitDefinition>;
  /** Staged files. Default: in-memory (`memoryBlobStore()`). */
  blobStore?: BlobStore;
  /**
   * At least 32 bytes. Encrypts credentials at rest. A list rotates secrets: the first encrypts,
   * all decrypt. Required unless both stores are in-memory, when a random one is generated.
   */
  secret?: string | string[];
  /** Public origin of the app, e.g. `https://app.example.com`; builds the OAuth redirect_uri. */
  publicUrl?: string;
  /** Where the routes live. Default `/proxy/tools`. */
  basePath?: string;
  /** Origins an OAuth `returnUrl` may point to. The `publicUrl` origin is always allowed. */
  allowedReturnOrigins?: string[];
  /** Rate-limit and credit check, called for every authenticated request. */
  limits?: LimitsHook;
  /**
   * Where the OAuth refresh takes its per-connection lease, e.g. `redisLeaseStore(url)` from
   * `tools-proxy/redis` when several instances share a store without leases of its own.
   * Default: the store's `acquireLease`/`releaseLease`.
   */
  leases?: LeaseStore;
  /** Event callbacks (tool executed, connection created, ...). */
  hooks?: ToolsHooks;
  /** The fetch used for outbound calls. Default: the global fetch. */
  fetch?: typeof fetch;
  /** Where log lines go. Default: nowhere. Secrets are redacted before the logger sees them. */
  logger?: Logger;
  /** Default timeouts in milliseconds: one tool run, one proxied call. Toolkits may set their own. */
  timeouts?: { toolMs?: number; proxyMs?: number };
  /**
   * Staged files: largest upload (`maxBytes`, default 100 MiB), lifetime (`ttlMs`, default one
   * hour), accepted media types (`allowedContentTypes`, `type/*` wildcards), and how often expired
   * files are deleted (`sweepIntervalMs`, default 60 000; 0 turns the timer off: call `sweep()`).
   */
  uploads?: { maxBytes?: number; ttlMs?: number; allowedContentTypes?: string[]; sweepIntervalMs?: number };
  /**
   * Largest upstream response body, in bytes, the proxy reads and a tool can read through
   * `ctx.fetch`; past it the call fails with code `response_too_large`. Default 10 MiB.
   */
  maxResponseBytes?: number;
  /**
   * Retries of outbound calls (the proxy and tools' `ctx.fetch`). Off by default. Only GET, HEAD,
   * PUT, DELETE and OPTIONS without a stream body are retried, after a network error or a 408,
   * 425, 429, 500, 502, 503 or 504, waiting for the upstream's Retry-After or else a full-jitter
   * exponential backoff (`baseDelayMs` default 200, doubling, at most `maxDelayMs`, default 5000).
   * A Retry-After above `maxDelayMs`, or a wait past the call's timeout, ends the retries with that
   * answer. A toolkit's own `retries` replaces this.
   */
  retries?: RetryOptions;
  /**
   * How long an OAuth token refresh holds its per-connection lease at most, in milliseconds
   * (default 60 000). A holder that crashes mid-refresh blocks the connection's refresh until
   * this runs out; the token request itself is cut off at three quarters of it (at most 20 s).
   */
  refreshLeaseMs?: number;
  /**
   * Lets browser code on other origins call the API (preflight answers and
   * `Access-Control-Allow-Origin` on every answer). Off by default: only the app's own origin can.
   * API keys travel in headers, so no cookies or credentialed CORS are involved.
   */
  cors?: CorsOptions;
}

/** Media types accepted by `POST /upload` unless `uploads.allowedContentTypes` says otherwise. */
export const DEFAULT_ALLOWED_CONTENT_TYPES = [
  "image/*",
  "video/*",
  "audio/*",
  "text/*",
  "application/pdf",
  "application/json",
  "application/zip",
  "application/octet-stream",
  "application/vnd.openxmlformats-officedocument.*",
  "application/msword",
  "application/vnd.ms-excel",
  "application/vnd.ms-powerpoint",
];

const fn = (what: string) => z.custom<(...args: never[]) => unknown>((v) => typeof v === "function", `must be ${what}`);
const object = (methods: string[], what: string) =>
  z.custom<object>(
    (v) => typeof v === "object" && v !== null && methods.every((m) => typeof (v as Record<string, unknown>)[m] === "function"),
    `must be ${what} with the methods ${methods.join(", ")}`,
  );

const secretString = z
  .string()
  .refine((s) => new TextEncoder().encode(s).length >= 32, "must be at least 32 bytes; generate one with `openssl rand -base64 32`");

const optionsSchema = z.object({
  store: object(["createApiKey", "getApiKeyByHash", "createConnection", "getConnection", "listConnections", "acquireLease"], "a ToolsStore").optional(),
  toolkits: z.union([z.array(z.object({ slug: z.string() }).passthrough()), object(["list", "get", "getTool"], "a ToolkitRegistry")]).optional(),
  blobStore: object(["put", "get", "head", "delete", "deleteExpired"], "a BlobStore").optional(),
  secret: z.union([secretString, z.array(secretString).min(1, "must hold at least one secret")]).optional(),
  publicUrl: z
    .string()
    .url("must be an absolute URL such as https://app.example.com")
    .refine((u) => !URL.canParse(u) || /^https?:$/.test(new URL(u).protocol), "must use http or https")
    .optional(),
  basePath: z
    .string()
    .regex(/^(\/[A-Za-z0-9._~-]+)*$/, 'must be a path such as "/proxy/tools": segments of letters, digits, ".", "_", "~" or "-", no trailing slash')
    .optional(),
  allowedReturnOrigins: z.array(z.string().url("must be an origin such as https://app.example.com")).optional(),
  limits: fn("a function").optional(),
  leases: object(["acquire", "release"], "a LeaseStore").optional(),
  hooks: z.record(z.string(), fn("a function")).optional(),
  fetch: fn("a fetch function").optional(),
  logger: z.object({}).passthrough().optional(),
  timeouts: z.object({ toolMs: z.number().int().positive().optional(), proxyMs: z.number().int().positive().optional() }).strict().optional(),
  uploads: z
    .object({
      maxBytes: z.number().int().positive().optional(),
      ttlMs: z.number().int().positive().optional(),
      allowedContentTypes: z.array(z.string().regex(/^[a-z0-9!#$&^_.+-]+\/([a-z0-9!#$&^_.+-]+\*?|\*)$/i, "must be a media type like image/png or image/*")).optional(),
      sweepIntervalMs: z.number().int("must be a whole number of milliseconds").min(0, "must be 0 (off) or more").max(2 ** 31 - 1, "must fit a timer (at most about 24 days)").optional(),
    })
    .strict()
    .optional(),
  maxResponseBytes: z.number().int().positive().optional(),
  retries: retriesSchema.optional(),
  refreshLeaseMs: z.number().int("must be a whole number of milliseconds").min(100, "must be at least 100").max(2 ** 31 - 1, "must fit a timer (at most about 24 days)").optional(),
  cors: z
    .object({
      origins: z.union([
        z.literal("*"),
        z.array(z.string().refine((o) => URL.canParse(o) && new URL(o).origin === o.replace(/\/$/, ""), "must be origins such as https://app.example.com (scheme, host and port only)")),
      ]),
      maxAgeSeconds: z.number().int().min(0).max(86_400).optional(),
    })
    .strict()
    .optional(),
});

/**
 * Validates the options once, at startup. Throws a TypeError that names each wrong option and
 * says how to fix it.
 */
export function validateOptions(options: ToolsHandlerOptions): void {
  const result = optionsSchema.strict().safeParse(options ?? {});
  if (result.success) return;
  const lines = result.error.issues.map((issue) => {
    const path = issue.path.join(".") || "(options)";
    if (issue.code === "unrecognized_keys") return `unknown option ${issue.keys.map((k) => `"${[...issue.path, k].join(".")}"`).join(", ")}; check the spelling`;
    return `option "${path}" ${issue.message}`;
  });
  throw new TypeError(`createToolsHandler: ${lines.join("; ")}.`);
}
