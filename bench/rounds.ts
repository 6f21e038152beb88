/**
 * What the throughput benchmarks share: their settings, scenarios, interleaved rounds (every
 * scenario once per round, back to back, so that a noisy neighbour slows all scenarios of a round
 * alike), the table of medians, ratios as medians of per-round ratios, and the setup line that
 * names the machine.
 */
import { readFileSync } from "node:fs";
import { cpus, loadavg } from "node:os";
import { runLoad, type Sample, type Target } from "./load.js";
import { median, positive, printTable as printRows, progress } from "./report.js";

export { verdict } from "./report.js";

export interface Scenario<S extends Sample = Sample> {
  id: string;
  label: string;
  target: Target;
  samples: Map<number, S[]>;
}

export interface RoundSettings {
  connections: number[];
  seconds: number;
  runs: number;
  /** Seconds of load per scenario before the rounds. */
  warmup: number;
  /**
   * Every other round runs the scenarios in reverse order (A B, then B A), so that of two
   * scenarios side by side neither always runs first, on a machine warmer or busier than before.
   */
  alternate?: boolean;
}

/**
 * The settings from the environment: BENCH_SECONDS (per sample, default 3), BENCH_RUNS (rounds,
 * default 3), BENCH_WARMUP (seconds per scenario, default 2), BENCH_CONNECTIONS (default "1,10").
 */
export function roundSettingsFromEnv(): RoundSettings {
  return {
    seconds: positive("BENCH_SECONDS", 3),
    runs: positive("BENCH_RUNS", 3),
    warmup: positive("BENCH_WARMUP", 2),
    connections: (process.env.BENCH_CONNECTIONS ?? "1,10")
      .split(",")
      .map(Number)
      .filter((n) => Number.isInteger(n) && n > 0),
  };
}

export function scenario<S extends Sample = Sample>(id: string, label: string, target: Target, connections: number[]): Scenario<S> {
  return { id, label, target, samples: new Map(connections.map((c) => [c, []])) };
}

/**
 * One request per scenario before timing anything, so that a 401 or a failed call does not bench
 * the error path: each must answer 2xx, and `tool` scenarios (by id) a body with `successful: true`.
 */
export async function checkAnswers(scenarios: Scenario[], tool: (id: string) => boolean = () => false): Promise<void> {
  for (const s of scenarios) {
    const response = await fetch(s.target.url, { method: s.target.method ?? "GET", headers: s.target.headers, body: s.target.body });
    const text = await response.text();
    const failed = !response.ok || (tool(s.id) && (JSON.parse(text) as { successful?: boolean }).successful !== true);
    if (failed) throw new Error(`scenario ${s.id} does not answer as expected: ${response.status} ${text.slice(0, 300)}`);
  }
}

/** One timed sample of a scenario at a connection count; by default the load run alone. */
export type Measure<S extends Sample> = (s: Scenario<S>, connections: number, seconds: number) => Promise<S>;

/**
 * Warms every scenario up, then runs `settings.runs` interleaved rounds, filling each scenario's
 * samples with what `measure` returns (a runner that also reads the server's CPU time, say).
 */
export async function runRounds(scenarios: Scenario[], settings: RoundSettings): Promise<void>;
export async function runRounds<S extends Sample>(scenarios: Scenario<S>[], settings: RoundSettings, measure: Measure<S>): Promise<void>;
export async function runRounds(scenarios: Scenario[], settings: RoundSettings, measure: Measure<Sample> = load): Promise<void> {
  for (const s of scenarios) {
    progress(`warm-up ${s.id} (${settings.warmup}s)`);
    await runLoad(s.target, Math.max(...settings.connections), settings.warmup);
  }
  for (let round = 1; round <= settings.runs; round++) {
    for (const s of settings.alternate && round % 2 === 0 ? [...scenarios].reverse() : scenarios) {
      for (const connections of settings.connections) {
        progress(`round ${round}/${settings.runs}: ${s.id} at ${connections} connection(s)`);
        s.samples.get(connections)!.push(await measure(s, connections, settings.seconds));
      }
    }
  }
  progress("");
}

const load: Measure<Sample> = (s, connections, seconds) => runLoad(s.target, connections, seconds);

/** Median req/s and its (min-max) over rounds, as two table cells. */
export function rpsCells(samples: Sample[]): string[] {
  const rps = samples.map((x) => x.rps);
  return [median(rps).toFixed(0), `${Math.min(...rps).toFixed(0)}-${Math.max(...rps).toFixed(0)}`];
}

/** One line per scenario and connection count: median req/s (min-max), p50, p99, failures. */
export function printTable(scenarios: Scenario[], connectionCounts: number[]): void {
  const rows = [["scenario", "", "conns", "req/s", "(min-max)", "p50 ms", "p99 ms", "failures"]];
  for (const s of scenarios) {
    for (const connections of connectionCounts) {
      const samples = s.samples.get(connections)!;
      rows.push([
        s.id,
        s.label,
        String(connections),
        ...rpsCells(samples),
        median(samples.map((x) => x.p50)).toFixed(3),
        median(samples.map((x) => x.p99)).toFixed(3),
        failures(samples),
      ]);
    }
  }
  printRows(rows, 2);
}

/** The failures of all rounds, as a table cell. */
export function failures(samples: Sample[]): string {
  return String(samples.reduce((n, x) => n + x.failures, 0));
}

/** Median over rounds of f(round's sample of x, round's sample of y), at `connections`. */
export function paired<S extends Sample>(
  scenarios: Scenario<S>[],
  x: string,
  y: string,
  connections: number,
  f: (a: S, b: S) => number,
): number {
  const find = (id: string) => scenarios.find((s) => s.id === id)!.samples.get(connections)!;
  const ys = find(y);
  return median(find(x).map((sample, i) => f(sample, ys[i]!)));
}

export const throughput = (a: Sample, b: Sample) => a.rps / b.rps;
export const addedP50 = (a: Sample, b: Sample) => a.p50 - b.p50;

/** The setup line naming Node, the CPUs and the load average at the start. */
export function machineLine(): string {
  const cpu = cpus();
  const load = loadavg()
    .map((l) => l.toFixed(2))
    .join(" ");
  return `node ${process.version}, ${cpu.length} CPU(s) (${cpu[0]?.model.trim() ?? "?"}), load average ${load}`;
}

/**
 * CPU time (user + system) a process has used so far, in microseconds, from /proc/<pid>/stat
 * (Linux; clock ticks of 10 ms, so a 3 s sample of a busy server is exact to about 1%). NaN where
 * /proc is missing.
 */
export function processCpuMicros(pid: number): number {
  try {
    // Fields after the command name, which is in parentheses and may hold spaces: utime and stime are the 12th and 13th.
    const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ");
    return ((Number(fields[11]) + Number(fields[12])) / 100) * 1e6;
  } catch {
    return Number.NaN;
  }
}
