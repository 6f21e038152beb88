/**
 * Runs every pattern of test/fixtures/redos-patterns.json against its evil input, through each way
 * a schema pattern reaches an argument check: a JSON toolkit's validator, `POST /execute`, an MCP
 * `tools/call` and an OpenAPI import. Prints one JSON line per pattern. It runs in a child process
 * (test/toolkits/redos.test.ts) so that a backtracking matcher, which would hold this process for
 * hours, fails the test by its deadline instead of hanging the test runner.
 */
import { readFileSync } from "node:fs";
import { createToolsHandler, defineJsonToolkit, issueApiKey, memoryStore } from "../../src/index.js";
import { importOpenApi } from "../../src/openapi/index.js";

interface Entry {
  pattern: string;
  repeat: string;
  times: number;
  suffix: string;
}

const corpus = JSON.parse(readFileSync(new URL("../fixtures/redos-patterns.json", import.meta.url), "utf8")) as { patterns: Entry[] };

for (const [i, entry] of corpus.patterns.entries()) {
  const evil = entry.repeat.repeat(entry.times) + entry.suffix;
  const inputParameters = { type: "object", properties: { value: { type: "string", pattern: entry.pattern } }, required: ["value"] };
  const toolkit = defineJsonToolkit({
    slug: `redos${i}`,
    name: "ReDoS",
    description: "A tool whose argument has a pattern.",
    icon: "https://redos.test/icon.svg",
    // A private address the URL policy refuses: a valid argument is answered without any network.
    baseUrl: "https://127.0.0.1:9",
    auth: { type: "none" },
    tools: [{ slug: `REDOS_${i}`, name: "Check", description: "Checks.", method: "POST", path: "/check", inputParameters }],
  });
  const direct = await toolkit.tools[0]!.input["~standard"].validate({ value: evil });

  const store = memoryStore();
  const tools = createToolsHandler({ store, toolkits: [toolkit], secret: "redos-secret-0123456789abcdef0123456789" });
  const { key } = await issueApiKey(store, { workspaceId: "w", agentId: "a" });
  const post = (path: string, body: unknown) =>
    tools(
      new Request(`http://tools.test/proxy/tools${path}`, {
        method: "POST",
        headers: { "content-type": "application/json", accept: "application/json, text/event-stream", "x-api-key": key },
        body: JSON.stringify(body),
      }),
    );
  const execute = await post("/execute", { tool: `REDOS_${i}`, arguments: { value: evil } });
  const mcp = await post(`/mcp?toolkits=redos${i}`, {
    jsonrpc: "2.0",
    id: 1,
    method: "tools/call",
    params: { name: `REDOS_${i}`, arguments: { value: evil } },
  });
  const mcpAnswer = await mcp.text();

  const imported = await importOpenApi({
    openapi: "3.1.0",
    info: { title: "ReDoS", version: "1" },
    servers: [{ url: "https://127.0.0.1:9" }],
    paths: {
      "/check": {
        post: {
          operationId: "check",
          requestBody: { content: { "application/json": { schema: inputParameters } } },
          responses: { "200": { description: "ok" } },
        },
      },
    },
  });
  const importedTool = defineJsonToolkit(imported.toolkit).tools[0]!;
  const viaImport = await importedTool.input["~standard"].validate({ value: evil });

  console.log(
    JSON.stringify({
      pattern: entry.pattern,
      direct: Boolean(direct.issues),
      execute: { status: execute.status, body: await execute.json() },
      mcp: { status: mcp.status, isError: /"isError":true/.test(mcpAnswer), mentionsPattern: mcpAnswer.includes("must match pattern") },
      import: Boolean(viaImport.issues),
    }),
  );
}

// A connection input's pattern meets the value a caller sends with POST /auth (one DNS label, so at
// most 63 characters: 2^62 ways to split them for a backtracking engine).
{
  const toolkit = defineJsonToolkit({
    slug: "redosinput",
    name: "ReDoS input",
    description: "A toolkit whose connection input has a pattern.",
    icon: "https://redos.test/icon.svg",
    baseUrl: "https://{shop}.redos.test",
    auth: { type: "bearer" },
    inputs: [{ name: "shop", label: "Shop", pattern: "^(a+)+b$" }],
    tools: [],
  });
  const store = memoryStore();
  const tools = createToolsHandler({ store, toolkits: [toolkit], secret: "redos-secret-0123456789abcdef0123456789" });
  const { key } = await issueApiKey(store, { workspaceId: "w", agentId: "a" });
  const auth = await tools(
    new Request("http://tools.test/proxy/tools/auth", {
      method: "POST",
      headers: { "content-type": "application/json", "x-api-key": key },
      body: JSON.stringify({ toolkit: "redosinput", credentials: { token: "tok-123456" }, config: { shop: `${"a".repeat(62)}c` } }),
    }),
  );
  console.log(JSON.stringify({ pattern: "input ^(a+)+b$", auth: { status: auth.status, body: await auth.json() } }));
}
