/**
 * `tools-proxy import openapi` end to end: a YAML document becomes a toolkit file, `serve
 * --toolkits` loads it, and one of its tools, executed through the Tools API, sends the request
 * the document describes to a local upstream (real processes, real HTTP; `npm run build` first).
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { callApi, missingBuild, runBin, type ServeProcess, startServe } from "../support/serve-process.js";
import { startServer, type TestServer } from "../support/upstream.js";

const SPEC = `openapi: 3.0.3
info:
  title: Inventory
  version: "1.0"
servers:
  - url: /v1
components:
  securitySchemes:
    key:
      type: apiKey
      in: header
      name: X-Inventory-Key
security:
  - key: []
paths:
  /items/{itemId}:
    get:
      operationId: getItem
      summary: Read one item
      parameters:
        - { name: itemId, in: path, required: true, schema: { type: string } }
        - { name: fields, in: query, style: form, explode: false, schema: { type: array, items: { type: string } } }
      responses:
        "200": { description: The item }
  /items:
    post:
      operationId: createItem
      requestBody:
        required: true
        content:
          application/json:
            schema:
              type: object
              required: [name]
              properties:
                name: { type: string }
                count: { type: integer, minimum: 0 }
      responses:
        "201": { description: Created }
    get:
      operationId: oldList
      deprecated: true
      responses:
        "200": { description: ok }
`;

describe.skipIf(missingBuild)(missingBuild ? `import openapi (skipped: ${missingBuild})` : "tools-proxy import openapi", () => {
  let dir: string;
  let upstream: TestServer;
  let serve: ServeProcess | undefined;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "tools-proxy-openapi-"));
    writeFileSync(join(dir, "inventory.yaml"), SPEC);
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

  it("prints a toolkit that serve runs: a tool sends the request the document describes", async () => {
    const result = runBin(["import", "openapi", join(dir, "inventory.yaml"), "--base-url", upstream.origin]);
    expect(result.stderr).toBe("tools-proxy: warning: 1 deprecated operation is left out (includeDeprecated imports them).\n");
    expect(result.status).toBe(0);
    const toolkit = JSON.parse(result.stdout);
    expect(toolkit).toMatchObject({
      slug: "inventory",
      baseUrl: `${upstream.origin}/v1`,
      auth: [{ type: "apiKey", in: "header", name: "X-Inventory-Key" }],
    });
    expect(toolkit.tools.map((tool: { slug: string }) => tool.slug)).toEqual(["inventory_get_item", "inventory_create_item"]);
    writeFileSync(join(dir, "inventory.json"), result.stdout);

    serve = await startServe(["--memory", "--no-demo", "--toolkits", join(dir, "inventory.json")]);
    const key = serve.key!;
    const connected = await callApi(serve.api, key, "/auth", { toolkit: "inventory", credentials: { apiKey: "inv_secret" } });
    expect(connected.status).toBe(201);

    const read = await callApi(serve.api, key, "/execute", {
      tool: "inventory_get_item",
      arguments: { itemId: "bolt 7", fields: ["name", "count"] },
    });
    expect(read.status).toBe(200);
    const answer = await read.json();
    expect(answer, JSON.stringify(answer)).toMatchObject({ successful: true, data: { received: "/v1/items/bolt%207?fields=name,count" } });
    const create = await callApi(serve.api, key, "/execute", { tool: "inventory_create_item", arguments: { name: "bolt", count: 3 } });
    expect(await create.json()).toMatchObject({ successful: true });

    const [get, post] = upstream.requests;
    expect(get).toMatchObject({ method: "GET", url: "/v1/items/bolt%207?fields=name,count" });
    expect(get!.headers["x-inventory-key"]).toBe("inv_secret");
    expect(post).toMatchObject({ method: "POST", url: "/v1/items" });
    expect(JSON.parse(post!.body)).toEqual({ name: "bolt", count: 3 });
    expect(post!.headers["content-type"]).toMatch(/^application\/json/);
  });

  it("fails with the document's problem and its pointer, exit 1; a bad flag is a usage error, exit 2", () => {
    writeFileSync(join(dir, "broken.yaml"), SPEC.replace("in: path", "in: body"));
    const broken = runBin(["import", "openapi", join(dir, "broken.yaml"), "--base-url", upstream.origin]);
    expect(broken.status).toBe(1);
    expect(broken.stdout).toBe("");
    expect(broken.stderr).toMatch(
      /^tools-proxy: .*broken\.yaml: The document is not valid OpenAPI at \/paths\/~1items~1\{itemId\}\/get\/parameters\/0\/in: /,
    );
    expect(broken.stderr.split("\n").filter(Boolean)).toHaveLength(1);

    const relative = runBin(["import", "openapi", join(dir, "inventory.yaml")]);
    expect(relative.status).toBe(1);
    expect(relative.stderr).toContain("The document's server URL \"/v1\" is relative: give the API's address with --base-url");

    const usage = runBin(["import", "openapi", join(dir, "inventory.yaml"), "--max-tools", "0"]);
    expect(usage.status).toBe(2);
    expect(usage.stderr).toContain("--max-tools must be a whole number from 1 to 100000");
  });
});
