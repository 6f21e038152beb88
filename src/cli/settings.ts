/**
 * Where `serve`, `keys create` and `migrate` keep their data, from the same flags and environment:
 *
 * - `--data-dir DIR` (default `./.tools-proxy`, env TOOLS_PROXY_DATA_DIR): the SQLite database
 *   `tools-proxy.db`, staged files under `files/`, and the generated `secret`;
 * - `--database-url URL` (env TOOLS_PROXY_DATABASE_URL): `postgres://` or `mysql://` instead of the
 *   SQLite file, to share data between instances (the env keeps a password out of `ps`);
 * - `--redis-url URL` (env TOOLS_PROXY_REDIS_URL): for `serve`, one Redis connection that holds the
 *   OAuth refresh leases and, with `--rate-limit`, the rate limit's counts, shared by instances,
 *   and carries the news of a revoked API key (which `keys revoke` publishes there too);
 * - `--memory`: nothing persisted (the handler's in-memory stores).
 */
import { resolve } from "node:path";
import { memoryBlobStore } from "../blob/memory.js";
import type { BlobStore } from "../blob/types.js";
import { StoreUnavailableError } from "../core/errors.js";
import type { RateLimitStore } from "../limits/types.js";
import type { RedisConnection } from "../redis/connection.js";
import type { LeaseStore } from "../store/leases.js";
import { memoryStore } from "../store/memory.js";
import type { SqlToolsStore } from "../store/sql/store.js";
import type { ToolsStore } from "../store/types.js";

/** The storage flags, as parsed. */
export interface StorageFlags {
  dataDir?: string;
  databaseUrl?: string;
  redisUrl?: string;
  memory?: boolean;
}

/** Stores opened from the flags; `close()` ends their pools and connections. */
export interface Storage {
  store: ToolsStore;
  /** The same store when it is SQL (every storage but --memory), for the admin commands that read its tables. */
  sql: SqlToolsStore | null;
  blobStore: BlobStore;
  /** The handler's `secret`: TOOLS_PROXY_SECRET, then the data dir's generated one (still decrypting). */
  secret: string | string[] | undefined;
  leases: LeaseStore | undefined;
  /** Where a rate limit counts, when it is to be shared: Redis with --redis-url (serve only), else undefined. */
  rateLimitStore: RateLimitStore | undefined;
  /** `host:port` of the Redis in use, without user or password; undefined without one. */
  redisHost: string | undefined;
  /** The Redis connection, with --redis-url for the commands that use it (serve, keys revoke); closed by `close()`. */
  redis: RedisConnection | undefined;
  /** Lines for the start banner: where the data is, with no password. */
  describe: string[];
  /** Creates or upgrades the database tables; the names of the migrations applied. */
  migrate(): Promise<string[]>;
  close(): Promise<void>;
}

/**
 * A mistake in the settings, reported without a stack: a usage error (exit 2) when a command-line
 * flag is wrong (`usage`), else a failure to start (exit 1), as for a wrong environment variable.
 */
export class SettingsError extends Error {
  constructor(
    message: string,
    readonly usage = false,
  ) {
    super(message);
  }
}

/** What each storage flag does, for the sentence that refuses it beside --memory. */
const KEEPS = {
  "--data-dir": "keeps the data in a directory",
  "--database-url": "keeps it in a database",
  "--redis-url": "shares state between instances through Redis",
} as const;

export const DEFAULT_DATA_DIR = ".tools-proxy";

/**
 * Resolves the flags (over the environment) into opened stores. Nothing connects to the database
 * before the first query; Redis is connected when `options.redis` (default: for serve). The SQL
 * store, the file blob store and Redis are loaded only for storage that persists: `--memory`
 * starts without them.
 */
export async function openStorage(
  flags: StorageFlags,
  env: NodeJS.ProcessEnv = process.env,
  options: { forServe?: boolean; redis?: boolean } = {},
): Promise<Storage> {
  const forServe = options.forServe ?? true;
  const databaseUrl = flags.databaseUrl ?? (env.TOOLS_PROXY_DATABASE_URL || undefined);
  const redisUrl = flags.redisUrl ?? (env.TOOLS_PROXY_REDIS_URL || undefined);
  const envSecret = env.TOOLS_PROXY_SECRET || undefined;
  const databaseFrom = flags.databaseUrl !== undefined ? "--database-url" : "TOOLS_PROXY_DATABASE_URL";
  const redisFrom = flags.redisUrl !== undefined ? "--redis-url" : "TOOLS_PROXY_REDIS_URL";
  // Contradicting flags first: a wrong command line is reported before anything in the environment.
  const given = { "--data-dir": flags.dataDir, "--database-url": flags.databaseUrl, "--redis-url": flags.redisUrl };
  const other = flags.memory ? (Object.keys(given) as Array<keyof typeof given>).find((flag) => given[flag] !== undefined) : undefined;
  if (other)
    throw new SettingsError(
      `--memory and ${other} contradict each other: --memory keeps nothing, ${other} ${KEEPS[other]}. Leave out one of them.`,
      true,
    );
  if (envSecret !== undefined && Buffer.byteLength(envSecret) < 32) {
    throw new SettingsError("TOOLS_PROXY_SECRET must be at least 32 bytes; generate one with `openssl rand -base64 32`.");
  }
  if (flags.memory) {
    const fromEnv = [databaseUrl && databaseFrom, redisUrl && redisFrom].filter(Boolean);
    if (fromEnv.length)
      throw new SettingsError(
        `--memory keeps everything in memory, but ${fromEnv.join(" and ")} ${fromEnv.length > 1 ? "are" : "is"} set: ` +
          "unset it, or leave out --memory.",
      );
    return {
      store: memoryStore(),
      sql: null,
      blobStore: memoryBlobStore(),
      secret: envSecret,
      leases: undefined,
      rateLimitStore: undefined,
      redisHost: undefined,
      redis: undefined,
      describe: ["data: in memory (lost at exit)"],
      migrate: async () => [],
      close: async () => {},
    };
  }
  if (databaseUrl && !/^(postgres|postgresql|mysql|mariadb):\/\//i.test(databaseUrl)) {
    throw new SettingsError(
      `${databaseFrom} must start with postgres://, postgresql://, mysql:// or mariadb://.`,
      flags.databaseUrl !== undefined,
    );
  }
  if (redisUrl && !/^rediss?:\/\//i.test(redisUrl))
    throw new SettingsError(`${redisFrom} must start with redis:// or rediss://.`, flags.redisUrl !== undefined);
  // Keys are stored hashed and migrations touch no credential: only `serve` needs the secret.
  if (databaseUrl && !envSecret && forServe) {
    throw new SettingsError(
      `${databaseFrom} needs TOOLS_PROXY_SECRET (at least 32 bytes, the same on every instance) to encrypt the stored credentials.`,
    );
  }

  const { openPersistentStorage } = await import("./persistent-storage.js");
  return openPersistentStorage({
    dataDir: resolve(flags.dataDir ?? (env.TOOLS_PROXY_DATA_DIR || DEFAULT_DATA_DIR)),
    databaseUrl,
    redisUrl,
    redisFrom,
    connectRedis: options.redis ?? forServe,
    envSecret,
    forServe,
  });
}

/** A sentence for a storage failure at start: the driver's reason, never a URL with its password. */
export function storageFailure(error: unknown): string {
  const reason =
    error instanceof StoreUnavailableError
      ? `${error.message}${describeCause(error.cause)}`
      : error instanceof Error
        ? error.message
        : String(error);
  const sentence = reason
    .replace(/^tools-proxy: /, "")
    .replace(/\/\/[^@/\s]*@/g, "//***@")
    .replace(/([^.])$/, "$1.");
  return (
    `the database could not be used: ${sentence} ` +
    "Check the storage options (--data-dir, --database-url) and that the database is running."
  );
}

function describeCause(cause: unknown): string {
  const code = (cause as { code?: unknown } | undefined)?.code;
  return typeof code === "string" ? ` (${code})` : "";
}
