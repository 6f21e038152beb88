/**
 * Imported toolkits in the real `serve`: an OAuth toolkit whose client is not set yet is served as
 * not configured (as a catalog provider without its client is), and with --catalog a toolkit that
 * only shares a catalog provider's slug is refused instead of replacing the provider.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { callApi, missingBuild, runBin, type ServeProcess, startServe } from "../support/serve-process.js";
import { startServer, type TestServer } from "../support/upstream.js";

/** An API with OAuth (authorization code) and an API key, as many real documents offer both. */
const EVENTS = `openapi: 3.0.3
info: { title: Events, version: "1.0" }
servers: [{ url: /v1 }]
components:
  securitySchemes:
    oauth:
      type: oauth2
      flows:
        authorizationCode:
          authorizationUrl: https://events.example.test/oauth/authorize
          tokenUrl: https://events.example.test/oauth/token
          scopes: { events.read: Read events }
    key: { type: apiKey, in: header, name: X-Events-Key }
security: [{ oauth: [events.read] }, { key: [] }]
paths:
  /events/{id}:
    get:
      operationId: getEvent
      parameters: [{ name: id, in: path, required: true, schema: { type: string } }]
      responses: { "200": { description: The event } }
`;

/** GitHub's own document is titled "GitHub v3 REST API" and declares no security scheme. */
const GITHUB = `openapi: 3.0.3
info: { title: GitHub v3 REST API, version: "1.1.4" }
servers: [{ url: "https://api.github.com" }]
paths:
  /zen:
    get:
      operationId: meta/get-zen
      responses: { "200": { description: A saying } }
`;

const label = missingBuild ? `serve with imported toolkits (skipped: ${missingBuild})` : "serve with imported toolkits";

describe.skipIf(missingBuild)(label, () => {
  let dir: string;
  let upstream: TestServer;
  const started: ServeProcess[] = [];

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "serve-imported-"));
    upstream = await startServer((request, res) => {
      res.writeHead(200, { "content-type": "application/json" });
      res.end(JSON.stringify({ received: request.url }));
    });
  });
  afterAll(async () => {
    await Promise.all(started.map((serve) => serve.stop()));
    await upstream?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  /** `tools-proxy import openapi` of `yaml`, written where serve reads it. */
  function imported(name: string, yaml: string, args: string[] = []): string {
    writeFileSync(join(dir, `${name}.yaml`), yaml);
    const result = runBin(["import", "openapi", join(dir, `${name}.yaml`), ...args]);
    expect(result.status, result.stderr).toBe(0);
    const file = join(dir, `${name}.json`);
    writeFileSync(file, result.stdout);
    return file;
  }

  it("an imported OAuth toolkit whose client variables are unset is served, not configured; POST /auth names them", async () => {
    const file = imported("events", EVENTS, ["--base-url", upstream.origin]);
    // Set but empty counts as unset, as it does for the catalog's TOOLS_PROXY_<SLUG>_CLIENT_ID.
    const serve = await startServe(["--memory", "--no-demo", "--toolkits", file], { EVENTS_CLIENT_ID: "", EVENTS_CLIENT_SECRET: "" });
    started.push(serve);
    expect(serve.stdout()).toContain("toolkits: events (1 tools, OAuth not configured)");
    const key = serve.key!;

    const search = (await (await callApi(serve.api, key, "/search?keywords=events")).json()) as {
      toolkits: Array<{ slug: string; configured: boolean; toolCount: number }>;
    };
    expect(search.toolkits).toEqual([expect.objectContaining({ slug: "events", configured: false, toolCount: 1 })]);
    const toolkit = (await (await callApi(serve.api, key, "/toolkit/events")).json()) as {
      authModes: Array<{ type: string; configured?: boolean }>;
      tools: Array<{ slug: string }>;
    };
    expect(toolkit.authModes).toEqual([
      expect.objectContaining({ type: "oauth2", configured: false }),
      expect.objectContaining({ type: "apiKey" }),
    ]);
    expect(toolkit.tools.map((tool) => tool.slug)).toEqual(["events_get_event"]);

    const refused = await callApi(serve.api, key, "/auth", { toolkit: "events", mode: "oauth2" });
    expect(refused.status).toBe(400);
    expect(await refused.json()).toEqual({
      error:
        "Events is not configured on this server: its operator must set EVENTS_CLIENT_ID and EVENTS_CLIENT_SECRET " +
        "(the OAuth client that its toolkit file names), then restart it.",
      code: "invalid_request",
    });

    // The API key way to connect is not held up by the OAuth client, and the tool runs through it.
    const connected = await callApi(serve.api, key, "/auth", { toolkit: "events", credentials: { apiKey: "ev_secret" } });
    expect(connected.status).toBe(201);
    const run = await callApi(serve.api, key, "/execute", { tool: "events_get_event", arguments: { id: "e1" } });
    expect(await run.json()).toMatchObject({ successful: true, data: { received: "/v1/events/e1" } });
    expect(upstream.requests.at(-1)!.headers["x-events-key"]).toBe("ev_secret");
  });

  it("an unset variable outside the OAuth client (here the base URL) still stops serve, naming it", () => {
    const file = join(dir, "host.json");
    const toolkit = JSON.parse(runBin(["import", "openapi", join(dir, "events.yaml"), "--base-url", upstream.origin]).stdout);
    writeFileSync(file, JSON.stringify({ ...toolkit, baseUrl: "https://${EVENTS_HOST}/v1" }));
    const result = runBin(["serve", "--port", "0", "--memory", "--no-demo", "--toolkits", file]);
    expect(result.status).toBe(1);
    expect(result.stderr).toContain(
      `tools-proxy: ${file}: Environment variable EVENTS_HOST is not set; it is used at baseUrl of toolkit "events".`,
    );
  });

  it("with --catalog, an imported toolkit with a catalog provider's slug is refused, saying what to do instead", () => {
    const file = imported("github", GITHUB);
    // npm_command unset: the sentence names the bare command, as outside npm.
    const result = runBin(["serve", "--port", "0", "--memory", "--no-demo", "--catalog", "--toolkits", file], { npm_command: "" });
    expect(result.status, result.stdout).toBe(1);
    expect(result.stderr).toBe(
      `tools-proxy: ${file}: the toolkit "github" has the slug of the catalog's GitHub, which --catalog serves too, ` +
        "and two toolkits cannot share a slug. To serve its tools beside the catalog's, give it another slug " +
        '(tools-proxy import openapi <document> --slug github_api, or edit "slug" in the file); ' +
        'to configure the catalog\'s GitHub from a file, write { "provider": "github", "clientId": "${...}" } instead.\n',
    );
  });

  it("the same toolkit under another slug serves beside the catalog's GitHub", async () => {
    const file = imported("github-api", GITHUB, ["--slug", "github_api"]);
    const serve = await startServe(["--memory", "--no-demo", "--catalog", "--toolkits", file]);
    started.push(serve);
    const search = (await (await callApi(serve.api, serve.key!, "/search?keywords=github")).json()) as {
      toolkits: Array<{ slug: string }>;
    };
    expect(search.toolkits.map((t) => t.slug)).toEqual(expect.arrayContaining(["github", "github_api"]));
  });
});
