import { createServer } from "node:http";
import { createToolsHandler, defineTool, defineToolkit, issueApiKey, memoryStore, none } from "tools-proxy";
import { toNodeHandler } from "tools-proxy/node";
import { z } from "zod";

const greet = defineTool({
  slug: "HELLO_GREET",
  name: "Greet",
  description: "Says hello to someone.",
  input: z.object({ name: z.string() }),
  run: async ({ name }) => ({ greeting: `Hello, ${name}!` }),
});
const hello = defineToolkit({ slug: "hello", name: "Hello", description: "A first toolkit.", auth: none(), tools: [greet] });

const store = memoryStore(); // in memory: a new API key at every start
const tools = createToolsHandler({ store, toolkits: [hello] });
const { key } = await issueApiKey(store, { workspaceId: "local", agentId: "agent" });

const port = Number(process.env.PORT ?? 8787);
createServer(toNodeHandler(tools)).listen(port, "127.0.0.1", () => console.log(`API http://127.0.0.1:${port}/proxy/tools, key ${key}`));
