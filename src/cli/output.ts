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

// Characters a terminal acts on instead of showing: C0 controls but tab and line feed, DEL, C1
// controls, and the bidi overrides and isolates (which make text read otherwise than it is). A
// server's strings (names, descriptions, error messages) could otherwise clear the screen, move
// the cursor, set the window title or the clipboard. The colours `paint` adds are kept.
// eslint-disable-next-line no-control-regex
const TERMINAL_UNSAFE = /\u001b\[(?:1|2|22|31|32|33|36|39)m|[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/g;
const OWN_STYLES = new Set(
  Object.values(CODES)
    .flat()
    .map((code) => `\u001b[${code}m`),
);

/** `\x1b`, `\u202e`: a character as escaped text. */
function escapeCharacter(char: string): string {
  const code = char.charCodeAt(0);
  return code < 0x100 ? `\\x${code.toString(16).padStart(2, "0")}` : `\\u${code.toString(16).padStart(4, "0")}`;
}

/** `text` with every character a terminal would act on shown as an escape (`\x1b`), except the colours of `paint`. */
export function terminalSafe(text: string): string {
  return text.replace(TERMINAL_UNSAFE, (match) => (OWN_STYLES.has(match) ? match : escapeCharacter(match)));
}

/** Writes lines to stdout; on a terminal, with control characters escaped (a pipe gets them as they are). */
export function out(...lines: string[]): void {
  const text = lines.map((line) => `${line}\n`).join("");
  process.stdout.write(process.stdout.isTTY ? terminalSafe(text) : text);
}

/** Writes a note to stderr (not part of the result: "signed in", "waiting..."), control characters escaped. */
export function note(text: string): void {
  process.stderr.write(`${terminalSafe(text)}\n`);
}

/** Writes a warning to stderr, prefixed like errors, control characters escaped. */
export function warn(text: string): void {
  process.stderr.write(`${paint(process.stderr, "yellow", "tools-proxy:")} ${terminalSafe(text)}\n`);
}

// JSON.stringify escapes C0 controls but leaves DEL, C1 controls, bidi controls and the line and
// paragraph separators as they are; in a JSON string their \u escapes mean the same.
const JSON_UNSAFE = /[\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;

/** `value` as JSON on stdout: indented on a terminal, one line otherwise (both parse the same), printable only. */
export function printJson(value: unknown): void {
  const json = String(JSON.stringify(value, null, process.stdout.isTTY ? 2 : undefined));
  process.stdout.write(`${json.replace(JSON_UNSAFE, (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, "0")}`)}\n`);
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
  if (rows.length === 0) {
    note(empty);
    return;
  }
  if (process.stdout.isTTY) rows = rows.map((row) => row.map(terminalSafe)); // measured as shown
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
