/** Small helpers the benchmark scripts share: a median, progress lines and numeric settings. */

/** Median of unsorted values. */
export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

/** A progress line on stderr: rewritten in place on a terminal, one line each otherwise. */
export function progress(message: string): void {
  if (process.stderr.isTTY) process.stderr.write(`\r\x1b[K${message}`);
  else if (message) process.stderr.write(`${message}\n`);
}

/** The positive number in the environment variable `name`, or `fallback`. */
export function positive(name: string, fallback: number): number {
  const value = Number(process.env[name] ?? fallback);
  return Number.isFinite(value) && value > 0 ? value : fallback;
}

/** "MET" or "NOT MET", for a target line. */
export function verdict(met: boolean): string {
  return met ? "MET" : "NOT MET";
}

/** Runs a benchmark's main: a report, not a test, so it prints a failure and exits 0. */
export function report(main: () => Promise<void>): void {
  main()
    .catch((error: unknown) => console.error("bench failed:", error))
    .finally(() => {
      process.exitCode = 0;
    });
}

/** Prints `rows` as a table: the first is the header, the first `textColumns` columns align left, the rest right. */
export function printTable(rows: string[][], textColumns: number): void {
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => r[i]!.length)));
  for (const [index, row] of rows.entries()) {
    console.log(row.map((cell, i) => (i >= textColumns ? cell.padStart(widths[i]!) : cell.padEnd(widths[i]!))).join("  "));
    if (index === 0) console.log(widths.map((w) => "-".repeat(w)).join("  "));
  }
  console.log("");
}
