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
import { randomBytes } from "node:crypto";
import { chmodSync, closeSync, existsSync, mkdirSync, openSync, readFileSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { filesystemBlobStore } from "../blob/fs.js";
import { memoryBlobStore } from "../blob/memory.js";
import type { BlobStore } from "../blob/types.js";
import { StoreUnavailableError } from "../core/errors.js";
import type { RateLimitStore } from "../limits/types.js";
import { connectRedis, type RedisConnection } from "../redis/connection.js";
import { redisLeaseStore } from "../redis/lease-store.js";
import { redisRateLimitStore } from "../redis/rate-limit-store.js";
import type { LeaseStore } from "../store/leases.js";
import { memoryStore } from "../store/memory.js";
import { type SqlToolsStore, sqlStore } from "../store/sql/store.js";
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
const SECRET_FILE = "secret";

/**
 * Resolves the flags (over the environment) into opened stores. Nothing connects to the database
 * before the first query; Redis is connected when `options.redis` (default: for serve).
 */
export function openStorage(
  flags: StorageFlags,
  env: NodeJS.ProcessEnv = process.env,
  options: { forServe?: boolean; redis?: boolean } = {},
): Storage {
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

  const dataDir = resolve(flags.dataDir ?? (env.TOOLS_PROXY_DATA_DIR || DEFAULT_DATA_DIR));
  ensureDirectory(dataDir);
  // The data dir's generated secret: made when there is no TOOLS_PROXY_SECRET, and kept decrypting
  // what it encrypted after one is set. A shared database needs the same secret everywhere: the env's.
  const fileSecret = databaseUrl || !forServe ? undefined : dataDirSecret(dataDir, envSecret === undefined);
  const secrets = [envSecret, fileSecret].filter((s): s is string => s !== undefined);
  if (!databaseUrl) createPrivately(join(dataDir, "tools-proxy.db"));
  const store = sqlStore({ url: databaseUrl ?? `sqlite:${join(dataDir, "tools-proxy.db")}` });
  const blobStore = filesystemBlobStore({ directory: join(dataDir, "files") });
  // One connection for the stores and the revocations, made for serve and keys revoke: the other commands use none.
  const redis = redisUrl && (options.redis ?? forServe) ? connectRedisOrExplain(redisUrl, redisFrom) : undefined;
  const leases = redis ? redisLeaseStore(redis) : undefined;
  const data = databaseUrl
    ? `${store.dialect === "postgres" ? "PostgreSQL" : "MySQL"} at ${hostOf(databaseUrl)}`
    : join(dataDir, "tools-proxy.db");
  return {
    store,
    sql: store,
    blobStore,
    secret: secrets.length > 1 ? secrets : secrets[0],
    leases,
    rateLimitStore: redis ? redisRateLimitStore(redis) : undefined,
    redisHost: redisUrl ? hostOf(redisUrl) : undefined,
    redis,
    describe: [
      `data: ${data}`,
      `staged files: ${join(dataDir, "files")}${databaseUrl ? " (this instance's own: give every instance the same directory)" : ""}`,
      ...(redisUrl ? [`refresh leases and API key revocations: Redis at ${hostOf(redisUrl)}`] : []),
    ],
    migrate: async () => (await store.migrate()).applied,
    close: async () => {
      await Promise.allSettled([store.close(), redis?.close(), blobStore.close?.()]);
    },
  };
}

function ensureDirectory(dir: string): void {
  try {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
  } catch (error) {
    throw new SettingsError(
      `cannot create the data directory ${dir} (${(error as NodeJS.ErrnoException).code ?? "error"}); pick another with --data-dir.`,
    );
  }
}

/** Creates an empty file readable by the owner alone, if missing: SQLite then keeps its mode. */
function createPrivately(file: string): void {
  try {
    closeSync(openSync(file, "a", 0o600));
  } catch (error) {
    throw new SettingsError(`cannot create ${file} (${(error as NodeJS.ErrnoException).code ?? "error"}); pick another --data-dir.`);
  }
}

/** The data dir's secret; when `create`, generated (256 random bits, mode 0600) if missing. */
function dataDirSecret(dataDir: string, create: boolean): string | undefined {
  const file = join(dataDir, SECRET_FILE);
  if (!create && !existsSync(file)) return undefined;
  try {
    writeFileSync(file, `${randomBytes(32).toString("base64url")}\n`, { flag: "wx", mode: 0o600 });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "EEXIST")
      throw new SettingsError(`cannot write ${file} (${(error as NodeJS.ErrnoException).code ?? "error"}).`);
  }
  chmodSync(file, 0o600);
  const secret = readFileSync(file, "utf8").trim();
  if (Buffer.byteLength(secret) < 32)
    throw new SettingsError(`${file} holds a secret shorter than 32 bytes; restore it, or set TOOLS_PROXY_SECRET.`);
  return secret;
}

/** `host:port/db` of a URL, without user or password. */
function hostOf(url: string): string {
  try {
    const parsed = new URL(url);
    return `${parsed.host}${parsed.pathname === "/" ? "" : parsed.pathname}`;
  } catch {
    return "(unparsable URL)";
  }
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

/** `connectRedis`, with a URL it cannot use reported as a settings error (its message never quotes the URL). */
function connectRedisOrExplain(url: string, from: "--redis-url" | "TOOLS_PROXY_REDIS_URL"): ReturnType<typeof connectRedis> {
  try {
    return connectRedis(url);
  } catch (error) {
    throw new SettingsError(`${from}: ${(error as Error).message.replace(/^connectRedis: /, "")}`, from === "--redis-url");
  }
}
