/**
 * A PostgreSQL server of the test's own (initdb + pg_ctl in a temp dir, on a free loopback port,
 * as the `postgres` user), so a test can stop and start it without disturbing the shared server
 * the other tests use. Needs Debian's PostgreSQL binaries and root (to act as `postgres`).
 */
import { execFileSync } from "node:child_process";
import { chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";

export interface PrivatePostgres {
  url: string;
  stop(): void;
  start(): void;
  /** Stops it (if running) and deletes its data. */
  destroy(): void;
}

/** The binaries directory, or why a private server cannot be started here. */
export function privatePostgresUnavailable(): string | null {
  if (process.getuid?.() !== 0) return "starting a private PostgreSQL needs root (to run initdb as the postgres user)";
  if (!binDir()) return "no PostgreSQL server binaries in /usr/lib/postgresql/*/bin";
  try {
    execFileSync("id", ["-u", "postgres"], { stdio: "pipe" });
  } catch {
    return "there is no postgres user";
  }
  return null;
}

export async function startPrivatePostgres(): Promise<PrivatePostgres> {
  const bin = binDir()!;
  const uid = Number(execFileSync("id", ["-u", "postgres"], { encoding: "utf8" }).trim());
  const gid = Number(execFileSync("id", ["-g", "postgres"], { encoding: "utf8" }).trim());
  const dir = mkdtempSync(join(tmpdir(), "tools-proxy-pg-"));
  chownSync(dir, uid, gid);
  const data = join(dir, "data");
  const port = await freePort();
  const asPostgres = (command: string, args: string[]) =>
    execFileSync("runuser", ["-u", "postgres", "--", join(bin, command), ...args], { stdio: "pipe", timeout: 60_000 });
  asPostgres("initdb", ["-D", data, "-A", "trust", "-U", "postgres", "--no-sync", "--no-instructions"]);
  const options = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off -c synchronous_commit=off -c full_page_writes=off`;
  const start = () => void asPostgres("pg_ctl", ["-D", data, "-o", options, "-l", join(dir, "log"), "-w", "-t", "30", "start"]);
  const stop = () => void asPostgres("pg_ctl", ["-D", data, "-m", "fast", "-w", "-t", "30", "stop"]);
  start();
  return {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    start,
    stop,
    destroy: () => {
      if (existsSync(join(data, "postmaster.pid"))) {
        try {
          stop();
        } catch {
          // already stopped
        }
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

function binDir(): string | null {
  const root = "/usr/lib/postgresql";
  if (!existsSync(root)) return null;
  const version = readdirSync(root)
    .sort((x, y) => Number(y) - Number(x))
    .find((v) => existsSync(join(root, v, "bin", "pg_ctl")));
  return version ? join(root, version, "bin") : null;
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}
