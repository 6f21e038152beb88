/**
 * The AI SDK adapter (`tools-proxy/client/ai-sdk`) in an agent loop: `generateText` with the AI
 * SDK's mock language model against a real server. The model asks for three tools; the adapter
 * runs them through POST /execute; the model's second step receives their results (the data, a
 * retryable failure, a connect link). The same loop, bundled, runs under Bun and Deno.
 */
import { execFile } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { promisify } from "node:util";
import { build } from "tsup";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { aiSdkLoop } from "./fixtures/ai-sdk-loop.js";
import { type AgentServer, executeRequests, startAgentServer } from "./server.js";

const run = promisify(execFile);
const BIN = resolve(import.meta.dirname, "../../../node_modules/.bin");

let s: AgentServer;
beforeAll(async () => {
  s = await startAgentServer();
});
afterAll(() => s.close());

/** What the loop must have seen, wherever it ran. */
function expectLoop(loop: Awaited<ReturnType<typeof aiSdkLoop>>) {
  expect(loop.text).toBe("It will be 20 degrees.");
  expect(loop.steps).toBe(2);
  expect(loop.tools).toEqual([
    { name: "WEATHER_FORECAST", strict: true },
    { name: "WEATHER_ALERTS", strict: true },
    { name: "MAIL_SEND", strict: true },
  ]);
  const forecast = { city: "Oslo", units: "celsius", highs: [20, 21] };
  expect(loop.results.find((r) => r.id === "call_1")?.output).toEqual(forecast);
  expect(loop.results.find((r) => r.id === "call_2")?.output).toMatchObject({ successful: false, code: "upstream_error", retryable: true });
  const connect = loop.results.find((r) => r.id === "call_3")?.output as { code: string; connectUrl: string };
  expect(connect).toMatchObject({ successful: false, code: "connection_required" });
  expect(connect.connectUrl).toMatch(/^https:\/\/auth\.mail\.invalid\/authorize\?/);
  // The model's second step got every result, as JSON.
  expect(loop.seen).toEqual([
    { id: "call_1", output: { type: "json", value: forecast } },
    { id: "call_2", output: { type: "json", value: expect.objectContaining({ successful: false, code: "upstream_error" }) } },
    { id: "call_3", output: { type: "json", value: expect.objectContaining({ connectUrl: connect.connectUrl }) } },
  ]);
}

describe("AI SDK", () => {
  it("a generateText loop runs the model's tool calls through the server and gives it the results", async () => {
    const before = executeRequests(s);
    const executed = s.executed.length;
    expectLoop(await aiSdkLoop(s.baseUrl, s.key));
    expect(executeRequests(s) - before).toBe(3);
    expect(
      s.executed
        .slice(executed)
        .map((e) => e.tool)
        .sort(),
    ).toEqual(["WEATHER_ALERTS", "WEATHER_FORECAST"]);
    expect(s.received).toContainEqual({ tool: "WEATHER_FORECAST", args: { city: "Oslo", days: 2 } });
  });
});

const runtimes: Record<string, string[]> = {
  bun: [join(BIN, "bun"), "run", "loop.mjs"],
  deno: [join(BIN, "deno"), "run", "--allow-net=127.0.0.1", "--no-prompt", "loop.mjs"],
};

describe.each(Object.keys(runtimes))("AI SDK in %s", (name) => {
  const [command, ...args] = runtimes[name]!;
  const present = existsSync(command!);
  const NAME = "the same loop, bundled, against the server on Node";
  it.skipIf(!present)(present ? NAME : `${NAME} (skipped: ${command} is missing; run npm install)`, async () => {
    const dir = await mkdtemp(join(tmpdir(), "tools-proxy-ai-sdk-loop-"));
    await build({
      entry: { loop: resolve(import.meta.dirname, "fixtures/ai-sdk-main.ts") },
      outDir: dir,
      format: ["esm"],
      outExtension: () => ({ js: ".mjs" }),
      platform: "browser",
      target: "es2022",
      noExternal: [/.*/],
      dts: false,
      sourcemap: false,
      splitting: false,
      clean: false,
      silent: true,
      config: false,
    });
    const before = executeRequests(s);
    const { stdout } = await run(command!, [...args, s.baseUrl, s.key], {
      cwd: dir,
      env: { ...process.env, DENO_NO_UPDATE_CHECK: "1", NO_COLOR: "1" },
      timeout: 60_000,
    });
    expectLoop(JSON.parse(stdout.trim().split("\n").at(-1)!));
    expect(executeRequests(s) - before).toBe(3);
  });
});
