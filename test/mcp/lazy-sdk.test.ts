/**
 * The built core (ESM and CJS) loads the MCP SDK only on the first `/mcp` request: importing the
 * package and serving the REST routes leave it unloaded, so their cold start does not pay for it.
 * Module loads are recorded with Node's own module hooks, in a child process (`npm run build` first).
 */
import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { missingBuild } from "../support/serve-process.js";

const DIST = join(import.meta.dirname, "..", "..", "dist");

const script = (load: string) => `
import { registerHooks, createRequire } from "node:module";
const loaded = [];
registerHooks({ resolve(specifier, context, next) { const found = next(specifier, context); if (found.url.includes("@modelcontextprotocol")) loaded.push(found.url); return found; } });
const require = createRequire(import.meta.url);
const { createToolsHandler, issueApiKey, memoryStore } = ${load};
const store = memoryStore();
const tools = createToolsHandler({ store, secret: "lazy-sdk-test-secret-of-32-bytes-or-more" });
const { key } = await issueApiKey(store, { workspaceId: "w", agentId: "a" });
const headers = { "x-api-key": key, "content-type": "application/json", accept: "application/json, text/event-stream" };
const counts = { imported: loaded.length };
await tools(new Request("http://t.test/proxy/tools/search", { headers }));
await tools(new Request("http://t.test/proxy/tools/execute", { method: "POST", headers, body: "{}" }));
counts.rest = loaded.length;
const answer = await tools(new Request("http://t.test/proxy/tools/mcp", { method: "POST", headers, body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }) }));
counts.mcp = loaded.length;
counts.status = answer.status;
console.log(JSON.stringify(counts));
`;

describe.skipIf(missingBuild)(missingBuild ? `lazy MCP SDK (skipped: ${missingBuild})` : "the MCP SDK is loaded lazily", () => {
  it.each([
    { format: "ESM", load: `await import(${JSON.stringify(join(DIST, "index.js"))})` },
    { format: "CJS", load: `require(${JSON.stringify(join(DIST, "index.cjs"))})` },
  ])("$format: not on import nor on REST routes, only on the first /mcp request", ({ load }) => {
    const run = spawnSync(process.execPath, ["--input-type=module", "-e", script(load)], { encoding: "utf8", timeout: 60_000 });
    expect(run.status, run.stderr).toBe(0);
    const counts = JSON.parse(run.stdout.trim().split("\n").at(-1)!);
    expect(counts).toMatchObject({ imported: 0, rest: 0, status: 200 });
    expect(counts.mcp).toBeGreaterThan(0);
  });
});
