import { clip, formatBytes, paint, terminalSafe } from "./output.js";

/**
 * Spinners and progress bars, drawn on stderr only when stderr is a terminal (redrawn in place
 * with a carriage return); elsewhere they print nothing, so logs and pipes stay clean.
 */

/** Something drawn on one line of stderr until `stop()`, which clears that line. */
export interface Indicator {
  stop(): void;
}

const FRAMES = ["⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"];

function drawer() {
  const stream = process.stderr;
  const live = Boolean(stream.isTTY);
  return {
    live,
    draw: (line: string) => live && stream.write(`\r${line}\u001b[K`),
    clear: () => live && stream.write("\r\u001b[K"),
  };
}

/** A spinner before `text` (e.g. "Waiting for the sign-in"), turning every 80 ms. */
export function startSpinner(text: () => string): Indicator {
  const { live, draw, clear } = drawer();
  if (!live) return { stop() {} };
  let frame = 0;
  const render = () => draw(`${paint(process.stderr, "cyan", FRAMES[frame++ % FRAMES.length]!)} ${text()}`);
  render();
  const timer = setInterval(render, 80);
  return {
    stop() {
      clearInterval(timer);
      clear();
    },
  };
}

/** A progress bar of bytes: update it with `update(loaded, total)`; `stop()` clears it. */
export interface ProgressBar extends Indicator {
  update(loaded: number, total: number | undefined): void;
}

/**
 * `label [██████░░░░░░]  45%  4.5 MB / 10.0 MB  3.2 MB/s`; without a total, the bytes and the
 * rate only. Redrawn at most every 50 ms, and always for the last update.
 */
export function startProgressBar(name: string): ProgressBar {
  const { live, draw, clear } = drawer();
  const label = clip(terminalSafe(name), 24); // the line must fit a terminal: a long name is shortened
  const started = Date.now();
  let drawnAt = 0;
  return {
    update(loaded, total) {
      const now = Date.now();
      if (!live || (now - drawnAt < 50 && loaded !== total)) return;
      drawnAt = now;
      const rate = loaded / Math.max(0.001, (now - started) / 1000);
      const speed = `${formatBytes(Math.round(rate))}/s`;
      if (total === undefined || total === 0) return void draw(`${label}  ${formatBytes(loaded)}  ${speed}`);
      const ratio = Math.min(1, loaded / total);
      const width = 24;
      const filled = Math.round(ratio * width);
      const bar = paint(process.stderr, "green", "█".repeat(filled)) + paint(process.stderr, "dim", "░".repeat(width - filled));
      draw(`${label} ${bar} ${String(Math.floor(ratio * 100)).padStart(3)}%  ${formatBytes(loaded)} / ${formatBytes(total)}  ${speed}`);
    },
    stop: () => void clear(),
  };
}
