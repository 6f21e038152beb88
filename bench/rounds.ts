/**
 * What the throughput benchmarks share: scenarios, interleaved rounds (every scenario once per
 * round, back to back, so that a noisy neighbour slows all scenarios of a round alike), the table
 * of medians, and ratios as medians of per-round ratios.
 */
import { runLoad, type Sample, type Target } from "./load.js";
import { median, positive, progress } from "./report.js";

export interface Scenario {
  id: string;
  label: string;
  target: Target;
  samples: Map<number, Sample[]>;
}

export interface RoundSettings {
  connections: number[];
  seconds: number;
  runs: number;
  /** Seconds of load per scenario before the rounds. */
  warmup: number;
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

export function scenario(id: string, label: string, target: Target, connections: number[]): Scenario {
  return { id, label, target, samples: new Map(connections.map((c) => [c, []])) };
}

/** Warms every scenario up, then runs `settings.runs` interleaved rounds, filling each scenario's samples. */
export async function runRounds(scenarios: Scenario[], settings: RoundSettings): Promise<void> {
  for (const s of scenarios) {
    progress(`warm-up ${s.id} (${settings.warmup}s)`);
    await runLoad(s.target, Math.max(...settings.connections), settings.warmup);
  }
  for (let round = 1; round <= settings.runs; round++) {
    for (const s of scenarios) {
      for (const connections of settings.connections) {
        progress(`round ${round}/${settings.runs}: ${s.id} at ${connections} connection(s)`);
        s.samples.get(connections)!.push(await runLoad(s.target, connections, settings.seconds));
      }
    }
  }
  progress("");
}

/** One line per scenario and connection count: median req/s (min-max), p50, p99, failures. */
export function printTable(scenarios: Scenario[], connectionCounts: number[]): void {
  const rows = [["scenario", "", "conns", "req/s", "(min-max)", "p50 ms", "p99 ms", "failures"]];
  for (const s of scenarios) {
    for (const connections of connectionCounts) {
      const samples = s.samples.get(connections)!;
      const rps = samples.map((x) => x.rps);
      rows.push([
        s.id,
        s.label,
        String(connections),
        median(rps).toFixed(0),
        `${Math.min(...rps).toFixed(0)}-${Math.max(...rps).toFixed(0)}`,
        median(samples.map((x) => x.p50)).toFixed(3),
        median(samples.map((x) => x.p99)).toFixed(3),
        String(samples.reduce((n, x) => n + x.failures, 0)),
      ]);
    }
  }
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => r[i]!.length)));
  for (const [index, row] of rows.entries()) {
    console.log(row.map((cell, i) => (i >= 2 ? cell.padStart(widths[i]!) : cell.padEnd(widths[i]!))).join("  "));
    if (index === 0) console.log(widths.map((w) => "-".repeat(w)).join("  "));
  }
  console.log("");
}

/** Median over rounds of f(round's sample of x, round's sample of y), at `connections`. */
export function paired(scenarios: Scenario[], x: string, y: string, connections: number, f: (a: Sample, b: Sample) => number): number {
  const find = (id: string) => scenarios.find((s) => s.id === id)!.samples.get(connections)!;
  const ys = find(y);
  return median(find(x).map((sample, i) => f(sample, ys[i]!)));
}

export const throughput = (a: Sample, b: Sample) => a.rps / b.rps;
export const addedP50 = (a: Sample, b: Sample) => a.p50 - b.p50;

export function verdict(met: boolean): string {
  return met ? "MET" : "NOT MET";
}
