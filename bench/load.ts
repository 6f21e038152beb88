import autocannon from "autocannon";

/** One request shape, sent over and over by the load generator. */
export interface Target {
  url: string;
  method?: "GET" | "POST";
  headers?: Record<string, string>;
  body?: string;
  /** The status every answer must have; default any 2xx. */
  status?: number;
}

/** One timed run: throughput, and latency percentiles in milliseconds (fractional). */
export interface Sample {
  rps: number;
  p50: number;
  p99: number;
  /** Answers other than 2xx, plus socket errors and timeouts: all must be 0 for a valid run. */
  failures: number;
}

/**
 * Drives `target` for `seconds` over `connections` keep-alive connections (pipelining 1).
 * Latencies are collected from autocannon's per-response event rather than its histogram, which
 * rounds to whole milliseconds: too coarse for a hop that costs tenths of one.
 */
export function runLoad(target: Target, connections: number, seconds: number): Promise<Sample> {
  const latencies: number[] = [];
  let failures = 0;
  return new Promise((resolve, reject) => {
    const instance = autocannon(
      {
        url: target.url,
        method: target.method ?? "GET",
        headers: target.headers ?? {},
        ...(target.body !== undefined ? { body: target.body } : {}),
        connections,
        pipelining: 1,
        duration: seconds,
        timeout: 10,
      },
      (error, result) => {
        if (error) return reject(error);
        latencies.sort((a, b) => a - b);
        resolve({
          rps: latencies.length / result.duration,
          p50: quantile(latencies, 0.5),
          p99: quantile(latencies, 0.99),
          failures: failures + result.errors + result.timeouts,
        });
      },
    );
    instance.on("response", (_client: unknown, status: number, _bytes: number, ms: number) => {
      if (target.status === undefined ? status >= 200 && status < 300 : status === target.status) latencies.push(ms);
      else failures++;
    });
  });
}

/** The q-quantile of sorted values (nearest rank); NaN when empty. */
export function quantile(sorted: number[], q: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))]!;
}
