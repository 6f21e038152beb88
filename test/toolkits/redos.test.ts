/**
 * Issue 29, item 6: a schema `pattern` must never hold the event loop. Every pattern of the ReDoS
 * corpus (test/fixtures/redos-patterns.json, from OWASP's ReDoS page) is checked against its evil
 * input, thousands of characters long, through a JSON toolkit, `POST /execute`, MCP and an OpenAPI
 * import; and a connection input's pattern against the value `POST /auth` sends. A backtracking matcher needs far longer than the age of the universe for any of them;
 * a linear one needs milliseconds. The corpus runs in a child process with a generous deadline,
 * so a backtracking matcher fails the test at the deadline rather than hanging the runner.
 */
import { execFile } from "node:child_process";
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const corpus = JSON.parse(readFileSync(new URL("../fixtures/redos-patterns.json", import.meta.url), "utf8")) as {
  patterns: Array<{ pattern: string; matches: boolean }>;
};

function runCorpus(): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const script = fileURLToPath(new URL("../support/redos-child.ts", import.meta.url));
  return new Promise((resolve) => {
    // A minute is hundreds of times what the corpus takes on a loaded machine; a backtracking engine never finishes.
    execFile(process.execPath, ["--import", "tsx", script], { timeout: 60_000, maxBuffer: 16 * 1024 * 1024 }, (error, stdout, stderr) =>
      resolve({ code: error ? ((error as { code?: number }).code ?? null) : 0, stdout, stderr }),
    );
  });
}

describe("the ReDoS corpus against schema patterns", () => {
  it("every evil input is checked in linear time: refused with the pattern named, or accepted when the pattern matches", async () => {
    const run = await runCorpus();
    expect(run.code, `the corpus did not finish: ${run.stderr.slice(0, 2000)}`).toBe(0);
    const results = run.stdout
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line));
    const input = results.pop();
    expect(input.auth, "a connection input's pattern").toEqual({
      status: 400,
      body: {
        code: "invalid_request",
        error: expect.stringMatching(/^config\.shop is not valid: it must be one DNS label.*matching \^\(a\+\)\+b\$/),
      },
    });
    expect(results.map((r) => r.pattern)).toEqual(corpus.patterns.map((p) => p.pattern));
    for (const [i, result] of results.entries()) {
      const { matches } = corpus.patterns[i]!;
      expect(result.direct, result.pattern).toBe(!matches);
      expect(result.import, result.pattern).toBe(!matches);
      if (matches) {
        expect(result.execute.status, result.pattern).toBe(200);
        expect(result.mcp.mentionsPattern, result.pattern).toBe(false);
      } else {
        expect(result.execute.status, result.pattern).toBe(400);
        expect(result.execute.body, result.pattern).toEqual({
          code: "invalid_request",
          error: expect.stringContaining("must match pattern"),
        });
        expect(result.mcp, result.pattern).toMatchObject({ status: 200, isError: true, mentionsPattern: true });
      }
    }
  }, 90_000);
});
