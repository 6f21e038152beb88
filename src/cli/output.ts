/**
 * What the commands print: results on stdout (a table for people, JSON with `--json`), everything
 * else (progress, notes, errors) on stderr. Colours only on a terminal, and never with NO_COLOR
 * set or TERM=dumb; FORCE_COLOR=1 forces them (https://no-color.org).
 */

type Stream = NodeJS.WriteStream;

/** Whether `stream` gets ANSI colours. */
export function colorsOn(stream: Stream, env: NodeJS.ProcessEnv = process.env): boolean {
  if (env.NO_COLOR !== undefined && env.NO_COLOR !== "") return false;
  if (env.FORCE_COLOR !== undefined && env.FORCE_COLOR !== "" && env.FORCE_COLOR !== "0") return true;
  return Boolean(stream.isTTY) && env.TERM !== "dumb";
}

const CODES = { bold: [1, 22], dim: [2, 22], red: [31, 39], green: [32, 39], yellow: [33, 39], cyan: [36, 39] } as const;
export type Style = keyof typeof CODES;

/** `text` in `style` when `stream` gets colours, else as is. */
export function paint(stream: Stream, style: Style, text: string): string {
  if (!colorsOn(stream)) return text;
  const [open, close] = CODES[style];
  return `\u001b[${open}m${text}\u001b[${close}m`;
}

/** Writes lines to stdout. */
export function out(...lines: string[]): void {
  process.stdout.write(lines.map((line) => `${line}\n`).join(""));
}

/** Writes a note to stderr (not part of the result: "signed in", "waiting..."). */
export function note(text: string): void {
  process.stderr.write(`${text}\n`);
}

/** Writes a warning to stderr, prefixed like errors. */
export function warn(text: string): void {
  process.stderr.write(`${paint(process.stderr, "yellow", "tools-proxy:")} ${text}\n`);
}

/** `value` as JSON on stdout: indented on a terminal, one line otherwise (both parse the same). */
export function printJson(value: unknown): void {
  process.stdout.write(`${JSON.stringify(value, null, process.stdout.isTTY ? 2 : undefined)}\n`);
}

/** Shortens `text` to `max` characters with an ellipsis; line breaks become spaces. */
export function clip(text: string, max: number): string {
  const flat = text.replace(/\s+/g, " ").trim();
  return flat.length <= max ? flat : `${flat.slice(0, Math.max(0, max - 1))}…`;
}

/**
 * A table with a header row, columns padded to their widest cell, two spaces apart. The last
 * column is clipped to what is left of the terminal's width (stdout on a terminal only), so rows
 * stay one line each. An empty table prints `empty` instead.
 */
export function printTable(headers: string[], rows: string[][], empty: string): void {
  if (rows.length === 0) return note(empty);
  const widths = headers.map((header, i) => Math.max(header.length, ...rows.map((row) => (row[i] ?? "").length)));
  const last = headers.length - 1;
  const columns = process.stdout.isTTY ? process.stdout.columns : undefined;
  if (columns) {
    const room = columns - widths.slice(0, last).reduce((sum, w) => sum + w + 2, 0);
    widths[last] = Math.max(headers[last]!.length, Math.min(widths[last]!, room));
  }
  const line = (cells: string[]) =>
    cells
      .map((cell, i) => (i === last ? clip(cell, widths[i]!) : cell.padEnd(widths[i]!)))
      .join("  ")
      .trimEnd();
  out(paint(process.stdout, "bold", line(headers)), ...rows.map(line));
}

/** Label/value lines ("url        http://..."), labels dimmed on a terminal. */
export function printFields(fields: Array<[string, string]>): void {
  const width = Math.max(...fields.map(([label]) => label.length));
  out(...fields.map(([label, value]) => `${paint(process.stdout, "dim", label.padEnd(width))}  ${value}`));
}

/** A JSON value for people: strings as they are, anything else indented JSON. */
export function formatValue(value: unknown): string {
  return typeof value === "string" ? value : JSON.stringify(value, null, 2);
}

/** "12.3 MB" from bytes (SI units, as file managers and curl show them). */
export function formatBytes(bytes: number): string {
  if (bytes < 1000) return `${bytes} B`;
  const units = ["kB", "MB", "GB", "TB"];
  let value = bytes / 1000;
  let unit = 0;
  while (value >= 1000 && unit < units.length - 1) {
    value /= 1000;
    unit++;
  }
  return `${value.toFixed(value < 10 ? 1 : 0)} ${units[unit]}`;
}
