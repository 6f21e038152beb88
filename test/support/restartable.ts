/**
 * A server of a test's own in a child process on a fixed loopback port, to kill (SIGKILL) and
 * start again: a private Redis, S3 server or the like, so stopping it never disturbs shared ones.
 */
import type { ChildProcess } from "node:child_process";
import { createServer } from "node:net";

export interface Restartable {
  /** Spawns the process and waits until `ready` says it answers. */
  start(): Promise<void>;
  /** Kills it and waits for it to exit; nothing when it is not running. */
  stop(): Promise<void>;
}

/**
 * `spawn` starts the process; `ready` polls it every 50 ms, at most `attempts` times, and is given
 * the child so that it can check that the server answering is this child (a process id it reports).
 */
export function restartable(
  what: string,
  spawn: () => ChildProcess,
  ready: (child: ChildProcess) => Promise<boolean>,
  attempts = 200,
): Restartable {
  let child: ChildProcess | null = null;
  return {
    async start() {
      const started = spawn();
      child = started;
      for (let i = 0; i < attempts; i++) {
        // A child that exited cannot be what answers: another process (a parallel test file's own
        // server) took the port between freePort and the spawn.
        if (started.exitCode !== null || started.signalCode !== null) throw new PortTakenError(what);
        if (await ready(started)) {
          if (started.exitCode !== null || started.signalCode !== null) throw new PortTakenError(what);
          return;
        }
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      throw new Error(`${what} did not start`);
    },
    async stop() {
      const running = child;
      child = null;
      if (!running || running.exitCode !== null) return;
      await new Promise<void>((resolve) => {
        running.once("exit", () => resolve());
        running.kill("SIGKILL");
      });
    },
  };
}

/** The process exited at start: its port was taken by another process after freePort chose it. */
export class PortTakenError extends Error {
  constructor(what: string) {
    super(`${what} exited at start: another process took its port`);
  }
}

/** A loopback port that was free a moment ago. */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}
