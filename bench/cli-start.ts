/**
 * The start of the `tools-proxy` bin, side by side with a baseline build (BENCH_BASELINE, a git
 * commit, else the last release): CPU time (user + system) and wall time of help, a usage error,
 * client commands, `keys list` on SQLite, and `serve --memory` until it prints that it listens.
 * Every command once per round, baseline and working tree in alternating order; medians with the
 * quartiles. BENCH_RUNS sets the rounds (default 21). Run with `npx tsx bench/cli-start.ts` after
 * `npm run build`.
 */
import { spawn, spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { prepareBaseline } from "./baseline.js";
import { positive, printTable, progress, report } from "./report.js";

interface Run {
  cpu: number;
  wall: number;
}

const CLIENT = ["--url", "http://127.0.0.1:9", "--workspace", "w", "--api-key", "pak_x"];
const home = mkdtempSync(join(tmpdir(), "tools-proxy-cli-start-"));
const COMMANDS: Array<[string, string[] | "serve"]> = [
  ["node -e 0 (Node alone)", ["-e", "0"]],
  ["--help", ["--help"]],
  ["an unknown option", ["--bogus"]],
  ["keys --help", ["keys", "--help"]],
  ["whoami --no-check", ["whoami", "--no-check", ...CLIENT]],
  ["search (no server)", ["search", ...CLIENT]],
  ["keys list (SQLite)", ["keys", "list", "--data-dir", join(home, "data")]],
  ["serve --memory, to listening", "serve"],
];

/** A command to its end, timed by bash's `time` (the child's own CPU time, to the millisecond). */
function runToEnd(root: string, args: string[]): Run {
  const bin = args[0] === "-e" ? [] : [join(root, "dist", "cli", "main.js")];
  const quoted = [process.execPath, ...bin, ...args].map((word) => `'${word}'`).join(" ");
  const timed = spawnSync("bash", ["-c", `TIMEFORMAT="%3R %3U %3S"; { time ${quoted} >/dev/null 2>&1; } 2>&1`], {
    encoding: "utf8",
    env: { ...process.env, XDG_CONFIG_HOME: home },
  });
  const [wall = Number.NaN, user = Number.NaN, system = Number.NaN] = timed.stdout.trim().split(/\s+/).map(Number);
  return { cpu: (user + system) * 1000, wall: wall * 1000 };
}

/** `serve --memory` until it prints that it listens; its CPU time read from /proc (10 ms ticks). */
function serveToListening(root: string): Promise<Run> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(process.execPath, [join(root, "dist", "cli", "main.js"), "serve", "--port", "0", "--memory", "--quiet"]);
    let output = "";
    const onData = (chunk: Buffer) => {
      output += chunk;
      if (!output.includes("listening on")) return;
      const wall = performance.now() - started;
      const fields = readFileSync(`/proc/${child.pid}/stat`, "utf8").split(") ")[1]!.split(" ");
      child.stdout.off("data", onData);
      child.stderr.off("data", onData);
      child.kill("SIGTERM");
      child.once("close", () => resolve({ cpu: (Number(fields[11]) + Number(fields[12])) * 10, wall }));
    };
    child.stdout.on("data", onData);
    child.stderr.on("data", onData);
    child.once("error", reject);
  });
}

/** "48 (47-51)": the median and the quartiles. */
function spread(values: number[]): string {
  const sorted = [...values].sort((a, b) => a - b);
  const at = (q: number) => sorted[Math.round((sorted.length - 1) * q)]!.toFixed(0);
  return `${at(0.5)} (${at(0.25)}-${at(0.75)})`;
}

report(async () => {
  const baseline = prepareBaseline();
  const roots = { baseline: baseline.root, now: fileURLToPath(new URL("..", import.meta.url)) };
  const rounds = positive("BENCH_RUNS", 21);
  const runs = new Map(COMMANDS.map(([name]) => [name, { baseline: [] as Run[], now: [] as Run[] }]));
  for (let round = 0; round < rounds; round++) {
    progress(`round ${round + 1} of ${rounds}`);
    for (const [name, args] of COMMANDS) {
      for (const side of round % 2 ? (["now", "baseline"] as const) : (["baseline", "now"] as const)) {
        const run = args === "serve" ? await serveToListening(roots[side]) : runToEnd(roots[side], args);
        runs.get(name)![side].push(run);
      }
    }
  }
  progress("");
  console.log(`tools-proxy bin start, ${rounds} rounds: median ms (quartiles); baseline ${baseline.commit}`);
  const rows = [["command", "CPU baseline", "CPU now", "wall baseline", "wall now"]];
  for (const [name, { baseline: before, now }] of runs)
    rows.push([
      name,
      spread(before.map((r) => r.cpu)),
      spread(now.map((r) => r.cpu)),
      spread(before.map((r) => r.wall)),
      spread(now.map((r) => r.wall)),
    ]);
  printTable(rows, 1);
});
