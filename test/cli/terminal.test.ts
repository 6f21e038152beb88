/**
 * The command line in a real terminal: tmux runs a shell, the test types into it with send-keys
 * and reads the screen with capture-pane. The hidden key prompt of `login` must not show what is
 * typed (Ctrl+U clears it), and `upload` draws a progress bar that advances, here through a
 * throttled TCP relay (8 MB/s) in front of a real `serve`, so that the upload takes a few seconds.
 * Skipped, saying why, without tmux (CI installs it).
 */
import { spawnSync } from "node:child_process";
import { createHash, randomBytes } from "node:crypto";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import type { AddressInfo } from "node:net";
import { connect, createServer, type Server } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BIN, callApi, missingBuild, type ServeProcess, startServe } from "../support/serve-process.js";
import { cliEnv, configHome } from "./run.js";

const noTmux = spawnSync("tmux", ["-V"]).status === 0 ? null : "tmux is not installed (apt-get install tmux)";
const skip = missingBuild ?? noTmux;
const SOCKET = `tools-proxy-test-${process.pid}`;
const RATE = 8_000_000; // bytes per second through the relay
const sha256 = (bytes: Buffer) => createHash("sha256").update(bytes).digest("hex");

function tmux(...args: string[]): string {
  const result = spawnSync("tmux", ["-L", SOCKET, ...args], { encoding: "utf8" });
  if (result.status !== 0) throw new Error(`tmux ${args.join(" ")}: ${result.stderr}`);
  return result.stdout;
}

/** The pane's text, with its scrollback. */
const screen = () => tmux("capture-pane", "-p", "-J", "-t", "cli", "-S", "-200");
const type = (text: string) => tmux("send-keys", "-t", "cli", "-l", text);
const press = (...keys: string[]) => tmux("send-keys", "-t", "cli", ...keys);

async function waitForScreen(predicate: (text: string) => boolean, what: string): Promise<string> {
  for (let i = 0; i < 300; i++) {
    const text = screen();
    if (predicate(text)) return text;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`the screen never showed ${what}:\n${screen()}`);
}

/** A TCP relay to `port` that passes client bytes at RATE: the upload's progress can be watched. */
async function throttledRelay(port: number): Promise<Server> {
  const relay = createServer((client) => {
    const upstream = connect(port, "127.0.0.1");
    upstream.pipe(client);
    client.on("data", (chunk: Buffer) => {
      client.pause();
      upstream.write(chunk);
      setTimeout(() => client.resume(), (chunk.byteLength / RATE) * 1000);
    });
    client.on("end", () => upstream.end());
    client.on("error", () => upstream.destroy());
    upstream.on("error", () => client.destroy());
  });
  await new Promise<void>((resolve) => relay.listen(0, "127.0.0.1", resolve));
  return relay;
}

describe.skipIf(skip)(skip ? `in a terminal (skipped: ${skip})` : "tools-proxy in a terminal (tmux)", () => {
  let serve: ServeProcess;
  let home: string;
  let dir: string;
  let relay: Server;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "tools-proxy-tty-"));
    // An OAuth toolkit whose provider is never reached: starting an authorization needs no network.
    const oauth = {
      slug: "faraway",
      name: "Faraway",
      description: "OAuth at a provider nobody signs in to.",
      baseUrl: "https://api.faraway.test",
      auth: {
        type: "oauth2",
        authorizationUrl: "https://auth.faraway.test/authorize",
        tokenUrl: "https://auth.faraway.test/token",
        clientId: "id",
        clientSecret: "secret",
        scopes: ["read"],
      },
      tools: [],
    };
    writeFileSync(join(dir, "faraway.json"), JSON.stringify(oauth));
    serve = await startServe(["--memory", "--toolkits", join(dir, "faraway.json")]);
    relay = await throttledRelay(Number(new URL(serve.origin).port));
    home = configHome();
    const env = cliEnv(home, { HISTFILE: "/dev/null" });
    spawnSync(
      "tmux",
      ["-L", SOCKET, "-f", "/dev/null", "new-session", "-d", "-s", "cli", "-x", "160", "-y", "40", "bash --norc --noprofile"],
      { env },
    );
    await waitForScreen((text) => /[$#] $/m.test(text), "a shell prompt");
  });

  afterAll(async () => {
    if (!skip) spawnSync("tmux", ["-L", SOCKET, "kill-server"]);
    relay?.close();
    await serve?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it("login asks for the key without echoing it; Ctrl+U clears a mistyped key", async () => {
    const key = serve.key!;
    type(`node ${BIN} login --url ${serve.origin} --workspace local`);
    press("Enter");
    await waitForScreen((text) => text.includes("API key: "), "the key prompt");
    type("a-mistyped-key");
    press("C-u");
    type(key);
    const typed = screen();
    expect(typed).not.toContain(key.slice(4, 16));
    expect(typed).not.toContain("mistyped");
    press("Enter");
    const after = await waitForScreen((text) => text.includes("Saved to"), "the end of login");
    expect(after).toContain(`Signed in to ${serve.api} (workspace "local", key ${key.slice(0, 4)}…${key.slice(-4)})`);
    expect(after).not.toContain(key.slice(4, 16));
    expect(JSON.parse(readFileSync(join(home, "tools-proxy", "credentials.json"), "utf8")).apiKey).toBe(key);
  });

  it("upload draws a progress bar on stderr that advances to the end, then prints the staged file", async () => {
    const bytes = randomBytes(24 * 1024 * 1024);
    const file = join(dir, "big.bin");
    writeFileSync(file, bytes);
    const relayUrl = `http://127.0.0.1:${(relay.address() as AddressInfo).port}`;
    press("C-l");
    type(`clear; SVC_WORKSPACE_API_URL=${relayUrl} node ${BIN} upload ${file}`);
    press("Enter");

    const seen: number[] = [];
    let final = "";
    for (let i = 0; i < 600 && !final; i++) {
      const text = screen();
      const bar = /big\.bin .*?(\d+)%\s+[\d.]+ [kMG]?B \/ 25 MB/.exec(text);
      if (bar && Number(bar[1]) !== seen.at(-1)) seen.push(Number(bar[1]));
      if (/^stagingKey +stg_/m.test(text)) final = text;
      else await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(final, screen()).not.toBe("");
    expect(seen.filter((p) => p > 0 && p < 100).length).toBeGreaterThanOrEqual(3);
    expect([...seen].sort((a, b) => a - b)).toEqual(seen); // only forward
    expect(final).toMatch(/^size +25 MB \(25165824 bytes\)$/m);
    expect(final).not.toMatch(/\d+%/); // the bar is cleared once done

    const stagingKey = /^stagingKey +(stg_\S+)$/m.exec(final)![1]!;
    const back = Buffer.from(await (await callApi(serve.api, serve.key!, `/files/${stagingKey}`)).arrayBuffer());
    expect(sha256(back)).toBe(sha256(bytes));

    // files on a terminal, without -o: saved under the file's own name here, never over an existing file.
    mkdirSync(join(dir, "out"));
    press("C-l");
    type(`clear; cd ${join(dir, "out")}; node ${BIN} files ${stagingKey}; echo "exit=$?"; node ${BIN} files ${stagingKey}; echo "exit=$?"`);
    press("Enter");
    const saved = await waitForScreen((text) => (text.match(/exit=\d+/g) ?? []).length === 2, "two downloads");
    expect(saved).toMatch(/Saved 25 MB to big\.bin\.\nexit=0\n/);
    expect(saved).toMatch(/tools-proxy: big\.bin already exists: pass --force to overwrite it, or -o FILE\.\nexit=1/);
    expect(sha256(readFileSync(join(dir, "out", "big.bin")))).toBe(sha256(bytes));
  });

  it("auth waits for an OAuth sign-in with a spinner; Ctrl+C stops it with exit 130", async () => {
    press("C-l");
    type(`clear; node ${BIN} auth faraway; echo "exit=$?"`);
    press("Enter");
    const first = await waitForScreen((text) => /Waiting for the sign-in to complete \(\d+ s; Ctrl\+C to stop\)/.test(text), "the spinner");
    expect(first).toContain("Open this URL in a browser to connect faraway");
    expect(first).toMatch(/^https:\/\/auth\.faraway\.test\/authorize\?\S+$/m);
    const frame = (text: string) => /([⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏]) Waiting/.exec(text)?.[1];
    const frames = new Set([frame(first)]);
    await waitForScreen((text) => (frames.add(frame(text)), frames.size >= 3), "the spinner turning");
    press("C-c");
    const after = await waitForScreen((text) => text.includes("exit="), "the command's end");
    expect(after).toMatch(
      /tools-proxy: stopped waiting\. The authorization stays open until it expires: tools-proxy auth status \S+ --wait\nexit=130/,
    );
    expect(after).not.toContain("Waiting for the sign-in"); // the spinner's line is cleared
  });

  it("colours on a terminal, none with NO_COLOR", async () => {
    const withEscapes = () => tmux("capture-pane", "-p", "-e", "-t", "cli");
    press("C-l");
    type(`clear; node ${BIN} search demo; NO_COLOR=1 node ${BIN} search demo; echo done`);
    press("Enter");
    await waitForScreen((text) => /^done$/m.test(text), "the two commands' end");
    const text = withEscapes();
    expect(text).toMatch(/\u001b\[1mTOOLKIT +NAME/); // bold header on a terminal
    expect(text).toMatch(/^TOOLKIT +NAME/m); // the second time, with NO_COLOR: no escape before it
  });
});
