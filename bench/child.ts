import { type ChildProcess, fork } from "node:child_process";
import { fileURLToPath } from "node:url";
import type { ServerConfig, ServerReady } from "./servers.js";

/** Of `process.memoryUsage()`: resident set, V8 heap in use and committed, memory outside the heap. */
export interface Memory {
  rss: number;
  heapUsed: number;
  heapTotal: number;
  external: number;
}

/** A server of `bench/servers.ts` running in its own Node process (its own event loop). */
export interface ChildServer extends ServerReady {
  origin: string;
  pid: number;
  /** Asks the child to exit (writing any --cpu-prof profile) and waits for it. */
  stop(): Promise<void>;
  /** The child's memory (bytes), after a full garbage collection when it runs with --expose-gc. */
  memory(): Promise<Memory>;
  /** The CPU time (user + system) the child has used so far, in microseconds. */
  cpu(): Promise<number>;
}

const SERVERS = fileURLToPath(new URL("./servers.ts", import.meta.url));
const ROOT = fileURLToPath(new URL("..", import.meta.url));

/**
 * Forks `script` (default `bench/servers.ts`) under tsx with `execArgv` (e.g. --cpu-prof) and
 * sends it `config`.
 */
export async function startChild(config: ServerConfig | { role: string }, execArgv: string[] = [], script = SERVERS): Promise<ChildServer> {
  const child: ChildProcess = fork(script, [], {
    cwd: ROOT,
    execArgv: ["--import", "tsx", ...execArgv],
    stdio: ["ignore", "inherit", "inherit", "ipc"],
  });
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  const ready = await new Promise<ServerReady>((resolve, reject) => {
    child.once("message", (message) => resolve(message as ServerReady));
    child.once("exit", (code) => reject(new Error(`bench server "${config.role}" exited with code ${code} before listening`)));
    child.send(config);
  });
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      child.send("exit");
      const timer = setTimeout(() => child.kill("SIGKILL"), 5_000);
      await exited;
      clearTimeout(timer);
    }
  };
  const memory = () =>
    new Promise<Memory>((resolve) => {
      child.once("message", (message) => resolve(message as Memory));
      child.send("memory");
    });
  const cpu = () =>
    new Promise<number>((resolve) => {
      child.once("message", (message) => resolve((message as { cpuMicros: number }).cpuMicros));
      child.send("cpu");
    });
  if (ready.error) {
    await stop();
    return { ...ready, origin: "", pid: child.pid!, stop, memory, cpu };
  }
  return { ...ready, origin: `http://127.0.0.1:${ready.port}`, pid: child.pid!, stop, memory, cpu };
}
