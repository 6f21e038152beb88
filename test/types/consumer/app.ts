// What an app writes from the docs, compiled with the strictest settings against the package.
import { createServer } from "node:http";
import {
  apiKey,
  type ConnectionPatch,
  createToolsHandler,
  defineTool,
  defineToolkit,
  type KeyValuePrimitives,
  keyValueStore,
  memoryBlobStore,
  type ToolsStore,
} from "tools-proxy";
import { createToolsClient } from "tools-proxy/client";
import { toNodeHandler } from "tools-proxy/node";
import { toolsStoreConformance } from "tools-proxy/testing";
import { z } from "zod";

const notes = defineToolkit({
  slug: "notes",
  name: "Notes",
  description: "A notes API.",
  baseUrl: "https://notes.example.com/api",
  auth: apiKey({ in: "header", name: "x-api-key" }),
  tools: [
    defineTool({
      slug: "NOTES_SEARCH",
      name: "Search notes",
      description: "Finds notes by text.",
      input: z.object({ query: z.string(), limit: z.number().int().optional() }),
      run: async ({ query, limit }, ctx) => {
        const response = await ctx.fetch(`/notes?q=${encodeURIComponent(query)}&limit=${limit ?? 10}`);
        return response.json();
      },
    }),
  ],
});

const data = new Map<string, string>();
const primitives: KeyValuePrimitives = {
  get: (key) => data.get(key) ?? null,
  insert: (key, value) => !data.has(key) && Boolean(data.set(key, value)),
  replace: (key, expected, value) => data.get(key) === expected && Boolean(data.set(key, value)),
  delete: (key, expected) => (expected === undefined || data.get(key) === expected) && data.delete(key),
  list: (prefix) => [...data].filter(([key]) => key.startsWith(prefix)),
};
const store: ToolsStore = keyValueStore(primitives);

// An environment variable is string | undefined: an optional option takes it as it is.
const tools = createToolsHandler({
  store,
  blobStore: memoryBlobStore(),
  toolkits: [notes],
  secret: process.env.TOOLS_SECRET,
  publicUrl: process.env.PUBLIC_URL,
});
createServer(toNodeHandler(tools)).listen(0);

// The contract ignores undefined patch fields; the type says so too.
const patch: ConnectionPatch = { label: undefined, updatedAt: new Date() };
void store.updateConnection("conn_1", patch);

const client = createToolsClient({ baseUrl: "http://127.0.0.1:8787/proxy/tools", apiKey: process.env.TOOLS_KEY ?? "" });
void client.search({ keywords: "notes", limit: 5 });

export const suite = () => toolsStoreConformance("mine", () => keyValueStore(primitives), { instances: 1 });
