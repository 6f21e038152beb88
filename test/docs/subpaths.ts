/**
 * Where each subpath of the package comes from in the sources (the entries of tsup.config.ts), so
 * that the docs can be type-checked and their import tables compared with what each subpath
 * exports, without a build. A test checks that it covers package.json's `exports`.
 */
export const SUBPATH_SOURCES: Record<string, string> = {
  "tools-proxy": "src/index.ts",
  "tools-proxy/node": "adapters/node.ts",
  "tools-proxy/express": "adapters/express.ts",
  "tools-proxy/next": "adapters/next.ts",
  "tools-proxy/fastify": "adapters/fastify.ts",
  "tools-proxy/bun": "adapters/bun.ts",
  "tools-proxy/fs": "src/blob/fs.ts",
  "tools-proxy/sql": "src/store/sql/index.ts",
  "tools-proxy/redis": "src/redis/index.ts",
  "tools-proxy/s3": "src/blob/s3.ts",
  "tools-proxy/testing": "src/testing/index.ts",
  "tools-proxy/catalog": "src/catalog/index.ts",
  "tools-proxy/openapi": "src/openapi/index.ts",
  "tools-proxy/client": "src/client/index.ts",
  "tools-proxy/client/node": "src/client/node.ts",
  "tools-proxy/client/agents": "src/client/agents/index.ts",
  "tools-proxy/client/ai-sdk": "src/client/agents/ai-sdk.ts",
  "tools-proxy/client/langchain": "src/client/agents/langchain.ts",
  "tools-proxy/client/openai-agents": "src/client/agents/openai-agents.ts",
};
