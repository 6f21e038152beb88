/**
 * The storage that persists, for settings.ts once the flags are checked: the SQLite file in the
 * data dir or the --database-url database, staged files in the data dir, and Redis with
 * --redis-url. A module of its own so that `serve --memory` and the commands that open no storage
 * load neither the SQL store nor Redis.
 */
import { randomBytes } from "node:crypto";
import { chmodSync, closeSync, existsSync, mkdirSync, openSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { filesystemBlobStore } from "../blob/fs.js";
import { connectRedis } from "../redis/connection.js";
import { redisLeaseStore } from "../redis/lease-store.js";
import { redisRateLimitStore } from "../redis/rate-limit-store.js";
import { sqlStore } from "../store/sql/store.js";
import { SettingsError, type Storage } from "./settings.js";

const SECRET_FILE = "secret";

/** The checked settings of a storage that persists. */
export interface PersistentSettings {
  /** The data dir, absolute. */
  dataDir: string;
  databaseUrl: string | undefined;
  redisUrl: string | undefined;
  /** Where the Redis URL came from, for the sentence that refuses it. */
  redisFrom: "--redis-url" | "TOOLS_PROXY_REDIS_URL";
  /** Whether to connect to Redis (serve and keys revoke); it is described either way. */
  connectRedis: boolean;
  envSecret: string | undefined;
  forServe: boolean;
}

/** Opens the SQL store, the file blob store and (when asked) Redis; a problem with the data dir is a SettingsError. */
export function openPersistentStorage(settings: PersistentSettings): Storage {
  const { dataDir, databaseUrl, redisUrl, envSecret, forServe } = settings;
  ensureDirectory(dataDir);
  // The data dir's generated secret: made when there is no TOOLS_PROXY_SECRET, and kept decrypting
  // what it encrypted after one is set. A shared database needs the same secret everywhere: the env's.
  const fileSecret = databaseUrl || !forServe ? undefined : dataDirSecret(dataDir, envSecret === undefined);
  const secrets = [envSecret, fileSecret].filter((s): s is string => s !== undefined);
  if (!databaseUrl) createPrivately(join(dataDir, "tools-proxy.db"));
  const store = sqlStore({ url: databaseUrl ?? `sqlite:${join(dataDir, "tools-proxy.db")}` });
  const blobStore = filesystemBlobStore({ directory: join(dataDir, "files") });
  // One connection for the stores and the revocations, made for serve and keys revoke: the other commands use none.
  const redis = redisUrl && settings.connectRedis ? connectRedisOrExplain(redisUrl, settings.redisFrom) : undefined;
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

/** `connectRedis`, with a URL it cannot use reported as a settings error (its message never quotes the URL). */
function connectRedisOrExplain(url: string, from: "--redis-url" | "TOOLS_PROXY_REDIS_URL"): ReturnType<typeof connectRedis> {
  try {
    return connectRedis(url);
  } catch (error) {
    throw new SettingsError(`${from}: ${(error as Error).message.replace(/^connectRedis: /, "")}`, from === "--redis-url");
  }
}
