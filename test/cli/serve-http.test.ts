/**
 * `serve` on the wire, as a real process: requests Node's parser refuses get the JSON error body,
 * and the access log (one line per request on stderr, text or JSON, off with --quiet) names the
 * key's id but never a key, a query string or a body.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseAnswer, REFUSED, rawExchange } from "../support/raw-http.js";
import { callApi, missingBuild, type ServeProcess, startServe } from "../support/serve-process.js";

const MARK = `m${Math.random().toString(36).slice(2)}`; // in every query and body: must never reach the log
const TEXT_LINE = /^\d{4}-\d\d-\d\dT[\d:.]+Z (GET|POST|DELETE) (\S+) (\d{3}) ([\d.]+)ms (key_[\w-]+|-)( aborted)?$/;

/** The key id printed in the banner next to the key. */
const keyIdOf = (serve: ServeProcess) => /^agent key (key_[\w-]+) for workspace/m.exec(serve.stdout())![1]!;

/** Sends the requests every access-log test logs: authenticated, unauthenticated, with a query string and with a body. */
async function traffic(serve: ServeProcess): Promise<void> {
  expect((await callApi(serve.api, serve.key!, `/search?keywords=${MARK}`)).status).toBe(200);
  expect((await fetch(`${serve.api}/connections?secret=${MARK}`)).status).toBe(401);
  expect((await callApi(serve.api, serve.key!, "/execute", { tool: "DEMO_LIST_NOTES", arguments: { note: MARK } })).status).toBe(409);
}

/** Waits until the log has a line matching each of `wanted` (lines may trail the answers), and returns every log line. */
async function logLines(serve: ServeProcess, wanted: RegExp[]): Promise<string[]> {
  for (const deadline = Date.now() + 15_000; ; ) {
    const lines = serve.stderr().split("\n");
    const missing = wanted.filter((pattern) => !lines.some((line) => pattern.test(line)));
    if (missing.length === 0) return lines;
    if (Date.now() > deadline) throw new Error(`no log line matches ${missing.join(", ")} in:\n${serve.stderr()}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe.skipIf(missingBuild)(missingBuild ? `serve on the wire (skipped: ${missingBuild})` : "serve on the wire", () => {
  let serve: ServeProcess;
  beforeAll(async () => {
    serve = await startServe(["--memory"]);
  });
  afterAll(() => serve?.stop());

  it.each(REFUSED)("answers $name with $status and the JSON error body", async ({ request, status, code, error }) => {
    const raw = await rawExchange(Number(new URL(serve.origin).port), request);
    expect(parseAnswer(raw)).toMatchObject({
      status,
      headers: { connection: "close" },
      body: { error: expect.stringMatching(error), code },
    });
    expect(raw).not.toContain("ECHO-MARK");
  });

  it("logs one text line per request: method, path without the query, status, milliseconds, key id; never a key, query or body", async () => {
    await traffic(serve);
    const keyId = keyIdOf(serve);
    const lines = await logLines(serve, [
      new RegExp(` GET /proxy/tools/search 200 [\\d.]+ms ${keyId}$`),
      / GET \/proxy\/tools\/connections 401 [\d.]+ms -$/,
      new RegExp(` POST /proxy/tools/execute 409 [\\d.]+ms ${keyId}$`),
    ]);
    for (const line of lines.filter((line) => line.includes("/proxy/tools/"))) expect(line).toMatch(TEXT_LINE);
    expect(serve.stderr()).not.toContain(MARK);
    expect(serve.stderr()).not.toContain(serve.key!);
    expect(serve.stderr()).not.toContain("?");
  });
});

describe.skipIf(missingBuild)(
  missingBuild ? `serve's access log options (skipped: ${missingBuild})` : "serve --log-format json and --quiet",
  () => {
    it("--log-format json writes one JSON object per request", async () => {
      const serve = await startServe(["--memory", "--log-format", "json"]);
      try {
        await traffic(serve);
        const lines = (await logLines(serve, [/"path":"\/proxy\/tools\/search"/, /"path":"\/proxy\/tools\/connections"/]))
          .filter((line) => line.startsWith("{"))
          .map((line) => JSON.parse(line));
        expect(lines).toEqual(
          expect.arrayContaining([
            {
              time: expect.any(String),
              method: "GET",
              path: "/proxy/tools/search",
              status: 200,
              durationMs: expect.any(Number),
              keyId: keyIdOf(serve),
            },
            {
              time: expect.any(String),
              method: "GET",
              path: "/proxy/tools/connections",
              status: 401,
              durationMs: expect.any(Number),
              keyId: null,
            },
          ]),
        );
        expect(serve.stderr()).not.toContain(MARK);
        expect(serve.stderr()).not.toContain(serve.key!);
      } finally {
        await serve.stop();
      }
    });

    it("--quiet logs no request", async () => {
      const serve = await startServe(["--memory", "--quiet"]);
      await traffic(serve);
      expect(await serve.stop()).toBe(0);
      expect(serve.stderr()).toMatch(/SIGTERM received, stopping/);
      expect(serve.stderr()).not.toMatch(/\/proxy\/tools\//);
    });
  },
);
