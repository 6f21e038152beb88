/**
 * A compiled collection through the real command line: `import openapi <folder> --out DIR`
 * compiles every document of a folder (one that does not import is left out, saying why), and
 * `serve --toolkits DIR` lists, searches and runs its tools; a folder without a collection is
 * refused, saying how to make one.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { callApi, missingBuild, runBin, type ServeProcess, startServe } from "../support/serve-process.js";
import { startServer, type TestServer } from "../support/upstream.js";

const document = (title: string, path: string, operationId: string) => `openapi: 3.0.3
info: { title: ${title}, version: "1.0" }
servers: [{ url: /v1 }]
paths:
  ${path}:
    get:
      operationId: ${operationId}
      summary: ${operationId.replace(/([A-Z])/g, " $1").toLowerCase()}
      parameters: [{ name: id, in: path, required: true, schema: { type: string } }]
      responses: { "200": { description: Found } }
`;

const label = missingBuild ? `serve a compiled collection (skipped: ${missingBuild})` : "serve a compiled collection";

describe.skipIf(missingBuild)(label, () => {
  let dir: string;
  let upstream: TestServer;
  let serve: ServeProcess | undefined;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "serve-collection-"));
    upstream = await startServer((request, res) => {
      res.writeHead(200, { "content-type": "application/json" });
      res.end(JSON.stringify({ received: request.url }));
    });
  });
  afterAll(async () => {
    await serve?.stop();
    await upstream?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it("compiles a folder, then serves, searches and runs its tools", async () => {
    mkdirSync(join(dir, "apis"));
    writeFileSync(join(dir, "apis", "orbits.yaml"), document("Orbits", "/orbits/{id}", "getOrbit"));
    writeFileSync(join(dir, "apis", "comets.yaml"), document("Comets", "/comets/{id}", "getComet"));
    writeFileSync(join(dir, "apis", "empty.yaml"), 'openapi: 3.0.3\ninfo: { title: Empty, version: "1" }\npaths: {}\n');
    const compiled = runBin(["import", "openapi", join(dir, "apis"), "--out", join(dir, "out"), "--default-base-url", upstream.origin]);
    expect(compiled.status, compiled.stderr).toBe(0);
    expect(compiled.stdout).toContain("2 toolkits, 2 tools (1 documents left out)");
    expect(compiled.stderr).toContain(`left out ${join(dir, "apis", "empty.yaml")}: no_tools`);

    serve = await startServe(["--memory", "--no-demo", "--toolkits", join(dir, "out")]);
    expect(serve.stdout()).toContain("toolkits: comets (1 tools), orbits (1 tools)");
    const key = serve.key!;
    const found = (await (await callApi(serve.api, key, "/search?keywords=get%20orbit")).json()) as { toolkits: Array<{ slug: string }> };
    expect(found.toolkits[0]!.slug).toBe("orbits");
    const run = await callApi(serve.api, key, "/execute", { tool: "orbits_get_orbit", arguments: { id: "o1" } });
    expect(await run.json()).toMatchObject({ successful: true, data: { received: "/v1/orbits/o1" } });
  });

  it("refuses a folder that holds no collection, saying how to make one", () => {
    const empty = join(dir, "nothing");
    mkdirSync(empty);
    const result = runBin(["serve", "--port", "0", "--memory", "--no-demo", "--toolkits", empty]);
    expect(result.status).toBe(1);
    expect(result.stderr).toContain(`${empty} is a directory without a collection: make one with`);
  });
});
