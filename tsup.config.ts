import { defineConfig } from "tsup";

export default defineConfig([
  {
    entry: {
      index: "src/index.ts",
      "testing/index": "src/testing/index.ts",
      "catalog/index": "src/catalog/index.ts",
      "openapi/index": "src/openapi/index.ts",
      "adapters/express": "adapters/express.ts",
      "adapters/next": "adapters/next.ts",
      "adapters/bun": "adapters/bun.ts",
      "adapters/node": "adapters/node.ts",
      "adapters/fastify": "adapters/fastify.ts",
      "fs/index": "src/blob/fs.ts",
      "sql/index": "src/store/sql/index.ts",
      "redis/index": "src/redis/index.ts",
      "s3/index": "src/blob/s3.ts",
      // The declarations several entries share, under names of their own (not hashed chunks), so
      // that an editor's "go to definition" lands on a file a reader can find.
      "types/store": "src/store/types.ts",
      "types/blob": "src/blob/types.ts",
      "types/principal": "src/core/principal.ts",
      "types/toolkit": "src/toolkits/define.ts",
      "types/registry": "src/toolkits/registry.ts",
      "types/handler": "src/handler.ts",
      "types/leases": "src/store/leases.ts",
      "types/limits": "src/limits/types.ts",
      "types/node-bridge": "adapters/serve-node.ts",
      "types/auth": "src/credentials/auth-schemes.ts",
      "types/options": "src/options.ts",
      "types/logger": "src/core/logger.ts",
      "types/context": "src/context/context.ts",
    },
    format: ["esm", "cjs"],
    // Shared chunks in CJS too (tsup splits only ESM by default): without it each subpath entry
    // (tools-proxy/fs, /sql, ...) carries its own copy of ToolsError, and the core's instanceof
    // check misses a store's StoreUnavailableError (a 500 instead of a 503).
    splitting: true,
    dts: true,
    // dist/ is emptied by the build script, once: the configs build at the same time.
    clean: false,
    sourcemap: true,
    target: "es2022",
    external: ["vitest", "bun:sqlite"],
  },
  {
    // The client, built apart from the server: its JavaScript imports nothing and its declarations
    // share no chunk with the server's (the wire schemas are common to both).
    entry: { "client/index": "src/client/index.ts", "client/node": "src/client/node.ts" },
    format: ["esm", "cjs"],
    dts: true,
    sourcemap: true,
    target: "es2022",
  },
  {
    // The agent tool adapters, apart from the client so that its files stay as they are. No
    // shared chunks: each subpath is one file. The frameworks are optional peers, imported only
    // by their own subpath; tools-proxy/client/agents imports nothing.
    entry: {
      "client/agents": "src/client/agents/index.ts",
      "client/ai-sdk": "src/client/agents/ai-sdk.ts",
      "client/langchain": "src/client/agents/langchain.ts",
      "client/openai-agents": "src/client/agents/openai-agents.ts",
    },
    format: ["esm", "cjs"],
    splitting: false,
    external: ["ai", "@langchain/core", "@openai/agents"],
    dts: true,
    sourcemap: true,
    target: "es2022",
  },
  {
    // Its own folder: the chunks of the commands loaded on demand (serve, keys, migrate) stay beside it.
    entry: { main: "src/cli/main.ts" },
    outDir: "dist/cli",
    format: ["esm"],
    target: "node22",
    platform: "node",
    sourcemap: true,
    banner: { js: "#!/usr/bin/env node" },
  },
]);
