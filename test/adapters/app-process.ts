/**
 * One example app running as a real process on a loopback port: started with the runtime's
 * command, found by the URL it prints, and stopped with SIGTERM (SIGKILL if it does not go).
 */
import { type ChildProcess, spawn } from "node:child_process";
import { readFileSync } from "node:fs";

export interface AppProcess {
  /** Origin the app listens on, e.g. `http://127.0.0.1:41234`. */
  origin: string;
  pid: number;
  /** Everything the process printed so far (stdout and stderr). */
  output(): string;
  /** Waits until the output matches `pattern` and returns the match. */
  waitFor(pattern: RegExp, what: string, timeoutMs?: number): Promise<RegExpMatchArray>;
  /** Resident memory of the process now, in bytes (Linux), or null where /proc is missing. */
  rss(): number | null;
  /**
   * Bytes the process has read and written through system calls so far (files and sockets alike;
   * Linux `/proc/PID/io`), or null where that is missing.
   */
  io(): { read: number; written: number } | null;
  stop(): Promise<void>;
}

export interface StartOptions {
  command: string;
  args: string[];
  cwd: string;
  env: Record<string, string>;
  /** The printed line that carries the origin, in its first group. */
  listening: RegExp;
  timeoutMs?: number;
}

/** Starts the app and resolves once it printed its address; rejects with its output if it exits or takes too long. */
export async function startApp(options: StartOptions): Promise<AppProcess> {
  const child: ChildProcess = spawn(options.command, options.args, {
    cwd: options.cwd,
    env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "", TMPDIR: process.env.TMPDIR ?? "/tmp", ...options.env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  let exited: string | null = null;
  const waiters = new Set<() => void>();
  const changed = () => {
    for (const notify of waiters) notify();
  };
  child.stdout!.on("data", (chunk: Buffer) => ((output += chunk.toString("utf8")), changed()));
  child.stderr!.on("data", (chunk: Buffer) => ((output += chunk.toString("utf8")), changed()));
  child.on("exit", (code, signal) => ((exited = `exited with ${signal ?? code}`), changed()));

  const waitFor = (pattern: RegExp, what: string, timeoutMs = options.timeoutMs ?? 30_000) =>
    new Promise<RegExpMatchArray>((resolve, reject) => {
      const check = () => {
        const match = output.match(pattern);
        if (match || exited) {
          waiters.delete(check);
          clearTimeout(timer);
          if (match) resolve(match);
          else reject(new Error(`${options.command} ${options.args.join(" ")} ${exited} before printing ${what}. Output:\n${output}`));
        }
      };
      const timer = setTimeout(() => {
        waiters.delete(check);
        reject(new Error(`no ${what} within ${timeoutMs} ms from ${options.args.join(" ")}. Output:\n${output}`));
      }, timeoutMs);
      waiters.add(check);
      check();
    });

  const stop = async () => {
    if (exited) return;
    const gone = new Promise<void>((resolve) => child.once("exit", () => resolve()));
    child.kill("SIGTERM");
    const timer = setTimeout(() => child.kill("SIGKILL"), 5_000);
    await gone;
    clearTimeout(timer);
  };

  try {
    const [, origin] = await waitFor(options.listening, "its address");
    return {
      origin: origin!,
      pid: child.pid!,
      output: () => output,
      waitFor,
      rss: () => rssOf(child.pid!),
      io: () => ioOf(child.pid!),
      stop,
    };
  } catch (error) {
    await stop();
    throw error;
  }
}

function rssOf(pid: number): number | null {
  try {
    const kb = /^VmRSS:\s+(\d+) kB$/m.exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1];
    return kb ? Number(kb) * 1024 : null;
  } catch {
    return null;
  }
}

function ioOf(pid: number): { read: number; written: number } | null {
  try {
    const text = readFileSync(`/proc/${pid}/io`, "utf8");
    const read = /^rchar: (\d+)$/m.exec(text)?.[1];
    const written = /^wchar: (\d+)$/m.exec(text)?.[1];
    return read && written ? { read: Number(read), written: Number(written) } : null;
  } catch {
    return null;
  }
}
