import { z } from "zod";
import { BLOB_STORE_METHODS, type BlobStore } from "./blob/types.js";
import { type ConnectTextName, DEFAULT_CONNECT_TEXTS } from "./context/connect-page.js";
import type { ToolsHooks } from "./context/context.js";
import type { Logger } from "./core/logger.js";
import type { ApiKeyRevocations } from "./credentials/revocations.js";
import type { LimitsHook } from "./limits/types.js";
import { retriesSchema } from "./outbound/retry.js";
import type { LeaseStore } from "./store/leases.js";
import { TOOLS_STORE_METHODS, type ToolsStore } from "./store/types.js";
import type { Toolkit, ToolkitDefinition } from "./toolkits/define.js";
import type { ToolkitRegistry } from "./toolkits/registry.js";

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

const fn = <F extends (...args: never[]) => unknown>(what: string) => z.custom<F>((v) => typeof v === "function", `must be ${what}`);
const withMethods = <T>(methods: readonly string[], what: string) =>
  z.custom<T>(
    (v) => typeof v === "object" && v !== null && methods.every((m) => typeof (v as Record<string, unknown>)[m] === "function"),
    `must be ${what} with the methods ${methods.join(", ")}`,
  );
const timer = (what: string) =>
  z
    .number()
    .int(`must be a whole number of ${what}`)
    .max(2 ** 31 - 1, "must fit a timer (at most about 24 days)");
const secretString = z
  .string()
  .refine((s) => new TextEncoder().encode(s).length >= 32, "must be at least 32 bytes; generate one with `openssl rand -base64 32`");
const origin = (example: string) =>
  z
    .string()
    .refine(
      (o) => URL.canParse(o) && new URL(o).origin === o.replace(/\/$/, ""),
      `must be origins such as ${example} (scheme, host and port only)`,
    );

// The shape is its own declaration so that each option's doc comment reaches the published types.
const optionsShape = {
  /** API keys, connections, authorizations, leases. Default: in-memory (`memoryStore()`). */
  store: withMethods<ToolsStore>(TOOLS_STORE_METHODS, "a ToolsStore").optional(),
  /** The toolkits served: a registry, or an array wrapped in the built-in registry. Default: none. */
  toolkits: z
    .union([
      z.array(
        z.custom<Toolkit | ToolkitDefinition>(
          (v) => typeof v === "object" && v !== null && typeof (v as { slug?: unknown }).slug === "string",
          "must be toolkits (each with a slug)",
        ),
      ),
      withMethods<ToolkitRegistry>(["list", "get", "getTool"], "a ToolkitRegistry"),
    ])
    .optional(),
  /** Staged files. Default: in-memory (`memoryBlobStore()`). */
  blobStore: withMethods<BlobStore>(BLOB_STORE_METHODS, "a BlobStore").optional(),
  /**
   * At least 32 bytes. Encrypts credentials at rest and signs cursors. A list rotates secrets: the
   * first encrypts, all decrypt. Required unless both stores are in-memory, when a random one is made.
   */
  secret: z.union([secretString, z.array(secretString).min(1, "must hold at least one secret")]).optional(),
  /** Public origin of the app, e.g. `https://app.example.com`; builds the OAuth redirect_uri (never taken from Host). */
  publicUrl: z
    .string()
    .url("must be an absolute URL such as https://app.example.com")
    .refine((u) => !URL.canParse(u) || /^https?:$/.test(new URL(u).protocol), "must use http or https")
    .optional(),
  /** Where the routes live. Default `/proxy/tools`. */
  basePath: z
    .string()
    .regex(
      /^(\/[A-Za-z0-9._~-]+)*$/,
      'must be a path such as "/proxy/tools": segments of letters, digits, ".", "_", "~" or "-", no trailing slash',
    )
    .default("/proxy/tools"),
  /** Origins an OAuth `returnUrl` may point to, besides the `publicUrl` origin. Default: none. */
  allowedReturnOrigins: z.array(origin("https://app.example.com")).default([]),
  /** Rate-limit and credit check, called for every authenticated request. Default: none. */
  limits: fn<LimitsHook>("a function").optional(),
  /**
   * Where the OAuth refresh takes its per-connection lease, e.g. `redisLeaseStore(url)` from
   * `tools-proxy/redis` when several instances share a store without leases of its own.
   * Default: the store's `acquireLease`/`releaseLease`.
   */
  leases: withMethods<LeaseStore>(["acquire", "release"], "a LeaseStore").optional(),
  /** Event callbacks (tool executed, connection created, ...). Default: none. */
  hooks: z
    .custom<ToolsHooks>((v) => typeof v === "object" && v !== null && !Array.isArray(v), "must map event names to functions")
    .superRefine((hooks, ctx) => {
      for (const [event, hook] of Object.entries(hooks))
        if (typeof hook !== "function") ctx.addIssue({ code: "custom", path: [event], message: "must be a function" });
    })
    .default({}),
  /**
   * The fetch used for outbound calls. Default: the global fetch (on Node, prefer `createUndiciFetch()`).
   * Not used for toolkits whose origin a connection names (an `origin` input) unless
   * `allowPrivateNetworks` is on: those go through an address-checking fetch of their own.
   */
  fetch: fn<typeof fetch>("a fetch function").optional(),
  /**
   * Lifts the address check of origin inputs: a connection may then name an `http:` origin, an IP
   * address or a host on a private network (on-premises instances, tests). Default false: an
   * origin must be a public `https:` host, checked when the connection is made and again at every
   * outbound connection.
   */
  allowPrivateNetworks: z.boolean().default(false),
  /**
   * How host names of origin inputs are resolved, to every address each has:
   * `(hostname) => Promise<Array<{ address, family }>>`. Default: the system resolver
   * (`dns.promises.lookup` with `all: true`). For tests or a resolver of your own.
   */
  lookup: fn<(hostname: string) => Promise<Array<{ address: string; family: number }>>>(
    "a function (hostname) => Promise<addresses>",
  ).optional(),
  /** Where log lines go. Default: nowhere. Secrets are redacted before the logger sees them. */
  logger: z
    .custom<Logger>((v) => typeof v === "object" && v !== null, "must be an object with debug, info, warn or error methods")
    .optional(),
  /** Timeouts in milliseconds of one tool run and one proxied call (default 30 000 each). Toolkits may set their own. */
  timeouts: z
    .strictObject({
      toolMs: z.number().int().positive().default(30_000),
      proxyMs: z.number().int().positive().default(30_000),
    })
    .prefault({}),
  /**
   * Staged files: largest upload (`maxBytes`, default 100 MiB), lifetime (`ttlMs`, default one
   * hour), and accepted media types (`allowedContentTypes`, `type/*` wildcards).
   */
  uploads: z
    .strictObject({
      maxBytes: z
        .number()
        .int()
        .positive()
        .default(100 * 1024 * 1024),
      ttlMs: z
        .number()
        .int()
        .positive()
        .default(60 * 60 * 1000),
      allowedContentTypes: z
        .array(z.string().regex(/^[a-z0-9!#$&^_.+-]+\/([a-z0-9!#$&^_.+-]+\*?|\*)$/i, "must be a media type like image/png or image/*"))
        .default(DEFAULT_ALLOWED_CONTENT_TYPES),
    })
    .prefault({}),
  /**
   * How often, in milliseconds, the handler deletes what expired: staged files, and OAuth
   * authorizations and leases when the store has `sweep()`. Default 60 000; 0 turns the timer off
   * (call `tools.sweep()` yourself, e.g. from a cron job). The timer starts with the first request.
   */
  sweepIntervalMs: timer("milliseconds").min(0, "must be 0 (off) or more").default(60_000),
  /**
   * Largest upstream response body, in bytes, the proxy reads and a tool can read through
   * `ctx.fetch`; past it the call fails with code `response_too_large`. Default 10 MiB.
   */
  maxResponseBytes: z
    .number()
    .int()
    .positive()
    .default(10 * 1024 * 1024),
  /**
   * Retries of outbound calls (the proxy and tools' `ctx.fetch`). Off by default. Only GET, HEAD,
   * PUT, DELETE and OPTIONS without a stream body are retried, after a network error or a 408,
   * 425, 429, 500, 502, 503 or 504, waiting for the upstream's Retry-After or else a full-jitter
   * exponential backoff (`baseDelayMs` default 200, doubling, at most `maxDelayMs`, default 5000).
   * A Retry-After above `maxDelayMs`, or a wait past the call's timeout, ends the retries with that
   * answer. A toolkit's own `retries` replaces this.
   */
  retries: retriesSchema.optional(),
  /**
   * How long an OAuth token refresh holds its per-connection lease at most, in milliseconds
   * (default 60 000). A holder that crashes mid-refresh blocks the connection's refresh until
   * this runs out; the token request itself is cut off at three quarters of it (at most 20 s).
   */
  refreshLeaseMs: timer("milliseconds").min(100, "must be at least 100").default(60_000),
  /**
   * Keeps API keys looked up recently in this process, so that a request with a key seen in the
   * last `ttlMs` (default 5000) skips the store; at most `maxEntries` keys (default 10 000).
   * `revokeApiKey()` empties the caches of this process at once. Another process (a second
   * instance, or `tools-proxy keys revoke`) refuses a revoked key as soon as `apiKeyRevocations`
   * tells it, and without that option when its entry expires, `ttlMs` at most. `ttlMs: 0` turns
   * the cache off: every request asks the store.
   */
  apiKeyCache: z
    .strictObject({
      ttlMs: timer("milliseconds").min(0, "must be 0 (off) or more").default(5_000),
      maxEntries: z.number().int().positive().default(10_000),
    })
    .prefault({}),
  /**
   * Tells the other instances when a key is revoked, and hears of theirs, so that every instance
   * refuses a revoked key within a message's delay rather than `apiKeyCache.ttlMs`:
   * `redisApiKeyRevocations(redis)` from `tools-proxy/redis`. `revokeApiKey(store, id)` in this
   * process then publishes there too. While the bus is down, the cache's `ttlMs` bounds the delay
   * again, and the cache is emptied when the bus comes back.
   */
  apiKeyRevocations: withMethods<ApiKeyRevocations>(["publish", "subscribe"], "an ApiKeyRevocations").optional(),
  /**
   * Lets browser code on other origins call the API (preflight answers and
   * `Access-Control-Allow-Origin` on every answer). Off by default: only the app's own origin can.
   * API keys travel in headers, so no cookies or credentialed CORS are involved.
   */
  cors: z
    .strictObject({
      /** Origins allowed to call the API from a browser, e.g. `["https://app.example.com"]`, or `"*"` for any. */
      origins: z.union([z.literal("*"), z.array(origin("https://app.example.com"))]),
      /** How long a browser may cache a preflight answer, in seconds. Default 600. */
      maxAgeSeconds: z.number().int().min(0).max(86_400).default(600),
    })
    .optional(),
  /**
   * The connect page a person opens from a connect link (`POST /auth` without credentials): the
   * app's name shown on it (`appName`, default "This app"), the colour of its button and links
   * (`accentColor`, `#rrggbb`), and any of its `texts` replaced (see docs/guide/connect-link.md in the
   * repository).
   */
  connectPage: z
    .strictObject({
      appName: z.string().min(1).max(100).default("This app"),
      accentColor: z
        .string()
        .regex(/^#[0-9a-fA-F]{6}$/, "must be a colour such as #1d4ed8")
        .default("#1d4ed8"),
      texts: z
        .strictObject(
          Object.fromEntries(Object.keys(DEFAULT_CONNECT_TEXTS).map((name) => [name, z.string().min(1).max(1000).optional()])) as Record<
            ConnectTextName,
            z.ZodOptional<z.ZodString>
          >,
        )
        .optional(),
    })
    .prefault({}),
};

/** The options of `createToolsHandler`, with their defaults: the one definition of each. */
export const optionsSchema = z.strictObject(optionsShape);

/** Options of `createToolsHandler`. Only `toolkits` is usually needed to start. */
export type ToolsHandlerOptions = z.input<z.ZodObject<typeof optionsShape, z.core.$strict>>;

/** The options with every default filled in. */
export type ResolvedOptions = z.output<typeof optionsSchema>;

/** Cross-origin access for browser clients: see the `cors` option. */
export type CorsOptions = NonNullable<ToolsHandlerOptions["cors"]>;

/**
 * Validates the options once, at startup, and fills in the defaults. Throws a TypeError that names
 * each wrong option and says how to fix it.
 */
export function resolveOptions(options: ToolsHandlerOptions | undefined): ResolvedOptions {
  const result = optionsSchema.safeParse(options ?? {});
  if (result.success) return result.data;
  const lines = result.error.issues.map((issue) => {
    const path = issue.path.join(".") || "(options)";
    if (issue.code === "unrecognized_keys")
      return `unknown option ${issue.keys.map((k) => `"${[...issue.path, k].join(".")}"`).join(", ")}; check the spelling`;
    return `option "${path}" ${issue.message}`;
  });
  throw new TypeError(`createToolsHandler: ${lines.join("; ")}.`);
}
