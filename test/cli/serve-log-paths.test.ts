/**
 * `serve`'s access log masks a connect link's secret on the path the router matched, not on the
 * raw request target: dot segments (`./`, `%2e/`, `x/../`) and percent-escapes in the token
 * (`auth%5F…`) open the same page, and none of them may write the secret, in text or JSON.
 */
import { request as httpRequest } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { callApi, missingBuild, type ServeProcess, startServe } from "../support/serve-process.js";

/** GET `path` sent byte for byte (fetch and `new URL` would resolve the dot segments first): the status. */
function getRaw(origin: string, path: string): Promise<number> {
  const { hostname, port } = new URL(origin);
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: hostname, port, path, method: "GET" }, (res) => {
      res.resume().once("end", () => resolve(res.statusCode ?? 0));
    });
    req.once("error", reject).end();
  });
}

/** Each way of spelling the page's path that the router resolves to it, for a link token `id.secret`. */
function spellings(id: string, secret: string): string[] {
  const base = "/proxy/tools/connect";
  return [
    `${base}/./${id}.${secret}`,
    `${base}/%2e/${id}.${secret}`,
    `${base}/%2E/${id}.${secret}`,
    `${base}/x/../${id}.${secret}`,
    `${base}/x/%2e%2e/${id}.${secret}`,
    `/proxy/./tools/connect/${id}.${secret}`,
    `${base}/${id.replace("_", "%5F")}.${secret}`,
    `${base}/%61${id.slice(1)}.${secret}`,
    `${base}/${id}%2E${secret}`,
    `${base}/${id}.${secret}?next=1`,
  ];
}

/** Waits until stderr has `count` lines naming the connect page, and returns them. */
async function pageLines(serve: ServeProcess, count: number): Promise<string[]> {
  for (const deadline = Date.now() + 15_000; ; ) {
    const lines = serve
      .stderr()
      .split("\n")
      .filter((line) => line.includes("connect/"));
    if (lines.length >= count) return lines;
    if (Date.now() > deadline) throw new Error(`${lines.length} of ${count} log lines in:\n${serve.stderr()}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe.skipIf(missingBuild)(
  missingBuild ? `serve's log of connect pages (skipped: ${missingBuild})` : "serve's log of connect pages",
  () => {
    for (const format of ["text", "json"] as const) {
      describe(`--log-format ${format}`, () => {
        let serve: ServeProcess;
        beforeAll(async () => {
          serve = await startServe(["--memory", "--log-format", format]);
        });
        afterAll(() => serve?.stop());

        it("serves the page through dot segments and escapes, and logs the routed path without the link's secret", async () => {
          const started = await (await callApi(serve.api, serve.key!, "/auth", { toolkit: "demo" })).json();
          const token = new URL(started.authorizationUrl).pathname.split("/").pop()!;
          const [id, secret] = [token.slice(0, token.indexOf(".")), token.slice(token.indexOf(".") + 1)];
          expect(id).toBe(started.authorizationId);
          const paths = spellings(id, secret);
          for (const path of paths) expect(await getRaw(serve.origin, path), path).toBe(200);

          const lines = await pageLines(serve, paths.length);
          expect(serve.stderr()).not.toContain(secret);
          const logged = format === "json" ? lines.map((line) => JSON.parse(line).path) : lines.map((line) => line.split(" ")[2]);
          // The routed path, with the id as the page reads it: one spelling for every way of asking.
          expect(logged).toEqual(paths.map(() => `/proxy/tools/connect/${id}.***`));
        });
      });
    }
  },
);
