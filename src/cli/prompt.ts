import { createInterface } from "node:readline/promises";
import { CliError, EXIT } from "./errors.js";
import { terminalSafe } from "./output.js";

/** Secrets read from stdin are short; more than this is a mistake (a file piped by accident). */
const MAX_STDIN = 64 * 1024;

/** Whether the command can ask: stdin is a terminal (the question goes to stderr). */
export function canPrompt(): boolean {
  return Boolean(process.stdin.isTTY);
}

/**
 * Asks for a secret on the terminal without echoing it: `question` on stderr, then the keys typed
 * (or pasted) are read in raw mode and never written back. Backspace and Ctrl+U edit; Enter ends;
 * Ctrl+C stops the command (exit 130). Only call it when `canPrompt()`.
 */
export function promptHidden(question: string): Promise<string> {
  const stdin = process.stdin;
  process.stderr.write(terminalSafe(question)); // it may name a toolkit, as the server calls it
  return new Promise((resolve, reject) => {
    let value = "";
    const finish = (error?: Error) => {
      stdin.off("data", onData);
      stdin.setRawMode(false);
      stdin.pause();
      process.stderr.write("\n");
      if (error) reject(error);
      else resolve(value);
    };
    const onData = (chunk: string) => {
      if (chunk.startsWith("\u001b")) return; // arrows and other escape sequences
      for (const char of chunk) {
        if (char === "\r" || char === "\n") return finish();
        if (char === "\u0003") return finish(new CliError("stopped.", EXIT.interrupted));
        if (char === "\u0004" && value === "") return finish();
        if (char === "\u007f" || char === "\b") value = Array.from(value).slice(0, -1).join("");
        else if (char === "\u0015") value = "";
        else if (char >= " ") value += char;
      }
    };
    stdin.setEncoding("utf8");
    stdin.setRawMode(true);
    stdin.on("data", onData);
    stdin.resume();
  });
}

/** Asks a question on the terminal with the answer echoed (a user name). */
export async function promptVisible(question: string): Promise<string> {
  const rl = createInterface({ input: process.stdin, output: process.stderr, terminal: true });
  try {
    return (await rl.question(terminalSafe(question))).trim();
  } finally {
    rl.close();
  }
}

/** All of stdin as text (at most 64 KiB), for a secret piped in: `echo "$KEY" | tools-proxy login ...`. */
export async function readStdinText(what: string): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of process.stdin as AsyncIterable<Buffer>) {
    size += chunk.byteLength;
    if (size > MAX_STDIN) throw new CliError(`stdin holds more than 64 KiB: expected ${what} alone.`, EXIT.usage);
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString("utf8");
}

/**
 * A secret from stdin when it is not a terminal (the first line, trimmed), else from a hidden
 * prompt. `what` names it in the prompt and in errors ("the API key").
 */
export async function readSecret(what: string, question: string): Promise<string> {
  const text = canPrompt() ? await promptHidden(question) : (await readStdinText(what)).split(/\r?\n/)[0]!;
  const secret = text.trim();
  if (!secret) {
    const how = canPrompt() ? "type it at the prompt" : "pipe it on stdin";
    throw new CliError(`${what} is empty: ${how}, or pass it as an option.`, EXIT.usage);
  }
  return secret;
}
