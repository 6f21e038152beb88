/**
 * The same browser bundle of the client run by Bun and by Deno (the pinned dev dependencies),
 * against the API on node:http: a search, uploads of streams of known and unknown size with
 * progress, a streamed download, and the error mapping. Each runtime prints its findings as JSON.
 */
import { execFile } from "node:child_process";
import { existsSync } from "node:fs";
import { writeFile } from "node:fs/promises";
import { join, resolve } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createHarness, type Harness } from "../support/harness.js";
import { bundleClient, type ClientBundle } from "./bundle.js";
import { type ApiServer, startApiServer } from "./server.js";

const run = promisify(execFile);
const BIN = resolve(import.meta.dirname, "../../node_modules/.bin");

/** The script each runtime runs, beside the bundle; its arguments are the base URL and the key. */
const SCRIPT = `
import { createToolsClient, ToolsClientError } from "./client.js";
const [baseUrl, apiKey] = globalThis.Deno ? Deno.args : process.argv.slice(2);
const client = createToolsClient({ baseUrl, apiKey });
const MB = 1024 * 1024;
function generate(total) {
  let sent = 0;
  return new ReadableStream({
    pull(c) {
      if (sent >= total) return c.close();
      const n = Math.min(64 * 1024, total - sent);
      c.enqueue(new Uint8Array(n).map((_, i) => (sent + i) & 0xff));
      sent += n;
    },
  });
}
const found = await client.search({ keywords: "calculator" });
const progress = [];
const known = await client.upload(generate(2 * MB), { size: 2 * MB, filename: "known.bin", onProgress: (p) => progress.push(p) });
const unknownProgress = [];
const unknown = await client.upload(generate(MB + 7), { onProgress: (p) => unknownProgress.push(p) });
const file = await client.downloadFile(known.stagingKey);
let read = 0, same = true;
for await (const chunk of file.body) {
  for (let i = 0; i < chunk.length; i++) same &&= chunk[i] === ((read + i) & 0xff);
  read += chunk.length;
}
const error = await client.getToolkit("nope").then(() => null, (e) => e);
const down = await createToolsClient({ baseUrl: "http://127.0.0.1:1/proxy/tools", apiKey }).search().then(() => null, (e) => e);
const grows = (events) => events.every((e, i) => i === 0 || e.loaded >= events[i - 1].loaded);
console.log(JSON.stringify({
  slug: found.toolkits[0]?.slug,
  known: { size: known.size, filename: file.filename, read, same, events: progress.length, grows: grows(progress), last: progress.at(-1) },
  unknown: { size: unknown.size, grows: grows(unknownProgress), last: unknownProgress.at(-1) },
  error: { isClass: error instanceof ToolsClientError, code: error.code, status: error.status },
  down: { code: down.code, status: down.status, hasKey: down.message.includes(apiKey) },
}));
`;

let h: Harness;
let server: ApiServer;
let bundle: ClientBundle;
let key: string;

beforeAll(async () => {
  bundle = await bundleClient();
  await writeFile(join(bundle.dir, "smoke.mjs"), SCRIPT);
  h = await createHarness();
  server = await startApiServer(h.handler);
  key = (await h.issueAgentKey("agent-runtime")).key;
});
afterAll(async () => {
  h.assertNoLeaks();
  await server.close();
  await h.close();
});

const runtimes: Record<string, string[]> = {
  bun: [join(BIN, "bun"), "run", "smoke.mjs"],
  deno: [join(BIN, "deno"), "run", "--allow-net=127.0.0.1", "--no-prompt", "smoke.mjs"],
};
const NAME = "searches, uploads streams with progress, downloads, and maps errors";

describe.each(Object.keys(runtimes))("in %s", (name) => {
  const present = existsSync(runtimes[name]![0]!);
  it.skipIf(!present)(present ? NAME : `${NAME} (skipped: ${runtimes[name]![0]} is missing; run npm install)`, async () => {
    const [command, ...args] = runtimes[name]!;
    const { stdout } = await run(command!, [...args, server.baseUrl, key], {
      cwd: bundle.dir,
      env: { ...process.env, DENO_NO_UPDATE_CHECK: "1", NO_COLOR: "1" },
      timeout: 15_000,
    });
    const result = JSON.parse(stdout.trim().split("\n").at(-1)!);
    // 33 progress events for the known size: the first at 0, then one per 64 KiB slice.
    expect(result).toEqual({
      slug: "calc",
      known: {
        size: 2 * 1024 * 1024,
        filename: "known.bin",
        read: 2 * 1024 * 1024,
        same: true,
        events: 33,
        grows: true,
        last: { loaded: 2 * 1024 * 1024, total: 2 * 1024 * 1024 },
      },
      unknown: { size: 1024 * 1024 + 7, grows: true, last: { loaded: 1024 * 1024 + 7, total: 1024 * 1024 + 7 } },
      error: { isClass: true, code: "not_found", status: 404 },
      down: { code: "network_error", status: 0, hasKey: false },
    });
  });
});
