/**
 * A connection's tool list is kept in memory for minutes: a server whose pages never end, each
 * as large as an answer may be, must not make one listing hold `maxResponseBytes` for every page.
 * The pages of one listing are read up to `maxResponseBytes` in all, and the tools read so far kept.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type RawHandler, type RawServer, rawHandler, startRawServer } from "./raw-server.js";

const MAX_BYTES = 64 * 1024;
let server: RawServer;
let api: RawHandler["api"];

/** A page of tools of about `bytes` bytes of JSON (each tool's description fills it). */
function page(bytes: number, tools = 10): string {
  const description = "d".repeat(Math.floor(bytes / tools));
  return JSON.stringify(Array.from({ length: tools }, (_, i) => ({ name: `tool_${i}`, description, inputSchema: { type: "object" } })));
}

beforeAll(async () => {
  server = await startRawServer({ tools: page(MAX_BYTES / 2), endlessPages: true });
  ({ api } = await rawHandler(server, { maxResponseBytes: MAX_BYTES }));
}, 30_000);

afterAll(async () => {
  await server?.close();
});

describe("the pages of a tool list", () => {
  it("are read up to maxResponseBytes in all", async () => {
    const details = await api("GET", "/toolkit/raw?limit=50");
    expect(details.status).toBe(200);
    expect(details.json.tools.map((t: { slug: string }) => t.slug)).toContain("raw.tool_0");
    // Half of maxResponseBytes a page: the listing stops at the page that passes it.
    expect(server.listings()).toBeLessThanOrEqual(3);
  });
});
