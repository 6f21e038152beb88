import { memoryBlobStore } from "../blob/memory.js";
import type { BlobStore } from "../blob/types.js";
import { createSafeLogger, type Logger, type SafeLogger } from "../core/logger.js";
import { createCredentialCipher } from "../credentials/cipher.js";
import { createCursors } from "../credentials/cursors.js";
import { type ApiKeyCacheSettings, createApiKeyCache } from "../credentials/key-cache.js";
import { createSigner } from "../credentials/signer.js";
import { type AddressLookup, createGuardedFetch, systemLookup } from "../outbound/guarded-fetch.js";
import { type RetryOptions, resolveRetryPolicy } from "../outbound/retry.js";
import { storeLeases } from "../store/leases.js";
import { memoryStore } from "../store/memory.js";
import type { ToolsStore } from "../store/types.js";
import type { Toolkit, ToolkitDefinition } from "../toolkits/define.js";
import { createToolkitRegistry, type ToolkitRegistry } from "../toolkits/registry.js";
import { randomBytes, toBase64Url } from "../util/encoding.js";
import { connectPageSettings } from "./connect-page.js";
import type { HandlerContext, ToolsEvents, ToolsHooks } from "./context.js";

/**
 * What a context is made from: the handler's options, validated and with their defaults filled in
 * (`ResolvedOptions` is one), as far as the context reads them.
 */
export interface ContextOptions
  extends Pick<HandlerContext, "basePath" | "timeouts" | "uploads" | "maxResponseBytes" | "refreshLeaseMs" | "allowedReturnOrigins"> {
  store?: ToolsStore | undefined;
  blobStore?: BlobStore | undefined;
  toolkits?: Array<Toolkit | ToolkitDefinition> | ToolkitRegistry | undefined;
  logger?: Logger | undefined;
  secret?: string | string[] | undefined;
  hooks: ToolsHooks;
  apiKeyCache: ApiKeyCacheSettings;
  connectPage: Parameters<typeof connectPageSettings>[0];
  publicUrl?: string | undefined;
  cors?: { origins: "*" | string[] } | undefined;
  fetch?: typeof fetch | undefined;
  allowPrivateNetworks?: boolean | undefined;
  lookup?: AddressLookup | undefined;
  retries?: RetryOptions | undefined;
  leases?: HandlerContext["leases"] | undefined;
  limits?: HandlerContext["limits"];
}

/**
 * The context a handler shares with its routes, made once: the in-memory stores when none is
 * given, the toolkits as a registry, the cipher, cursors and form signer keyed by `secret`.
 * Throws a TypeError when `secret` is missing and a store outlives the process.
 */
export function createHandlerContext(options: ContextOptions): HandlerContext {
  const store = options.store ?? memoryStore();
  const blobStore = options.blobStore ?? memoryBlobStore();
  const logger = createSafeLogger(options.logger);
  const registry: ToolkitRegistry = Array.isArray(options.toolkits)
    ? createToolkitRegistry(options.toolkits)
    : (options.toolkits ?? createToolkitRegistry([]));
  const secret =
    options.secret ?? ephemeralSecret(store.persistent === false && blobStore.persistent === false, options.logger?.warn ? logger : null);
  const hooks = options.hooks;
  const apiKeys = options.apiKeyCache.ttlMs > 0 ? createApiKeyCache(store, options.apiKeyCache) : null;
  return {
    store,
    sharedStore: store,
    registry,
    blobStore,
    cipher: createCredentialCipher(secret),
    cursors: createCursors(createSigner(secret, "cursor")),
    forms: createSigner(secret, "connect-form"),
    connectPage: connectPageSettings(options.connectPage),
    basePath: options.basePath,
    publicUrl: options.publicUrl ? new URL(options.publicUrl) : null,
    allowedReturnOrigins: options.allowedReturnOrigins.map((o) => new URL(o).origin),
    browserOrigins:
      options.cors?.origins === "*"
        ? "*"
        : [
            ...(options.publicUrl ? [new URL(options.publicUrl).origin] : []),
            ...(options.cors?.origins ?? []).map((o) => new URL(o).origin),
          ],
    logger,
    fetch: options.fetch ?? ((input, init) => fetch(input, init)),
    origins: {
      allowPrivateNetworks: options.allowPrivateNetworks === true,
      lookup: options.lookup ?? systemLookup,
      originFetch: createGuardedFetch(options.lookup ?? systemLookup),
    },
    timeouts: options.timeouts,
    uploads: options.uploads,
    maxResponseBytes: options.maxResponseBytes,
    retries: resolveRetryPolicy(options.retries),
    limits: options.limits,
    leases: options.leases ?? storeLeases(store),
    refreshLeaseMs: options.refreshLeaseMs,
    refreshes: new Map(),
    apiKeys,
    findApiKey: apiKeys
      ? (hash, from) => apiKeys.lookup(hash, async () => from.getApiKeyByHash(hash))
      : async (hash, from) => from.getApiKeyByHash(hash),
    emit<E extends keyof ToolsEvents>(event: E, payload: ToolsEvents[E]) {
      const hook = hooks[event] as ((p: ToolsEvents[E]) => unknown) | undefined;
      if (!hook) return;
      Promise.resolve()
        .then(() => hook(payload))
        .catch((error: unknown) => logger.log("warn", `hook ${event} failed`, { error }));
    },
  };
}

/**
 * The secret of a handler given none: allowed only when nothing it encrypts outlives the process
 * (both stores declare `persistent: false`), with a warning.
 */
function ephemeralSecret(inMemory: boolean, logger: SafeLogger | null): string {
  if (!inMemory) {
    throw new TypeError(
      'createToolsHandler: option "secret" is required with a persistent store: ' +
        "pass at least 32 random bytes, e.g. from `openssl rand -base64 32`, kept outside the code.",
    );
  }
  const message =
    "tools-proxy: no secret given; using a random one, so stored credentials are unreadable after a restart. Pass `secret` in production.";
  if (logger) logger.log("warn", message);
  else console.warn(message);
  return toBase64Url(randomBytes(32));
}
