import { defineConfig } from "tsup";

export default defineConfig([
  {
    entry: {
      index: "src/index.ts",
      "testing/index": "src/testing/index.ts",
      "adapters/express": "adapters/express.ts",
      "adapters/next": "adapters/next.ts",
      "adapters/bun": "adapters/bun.ts",
      "adapters/node": "adapters/node.ts",
    },
    format: ["esm", "cjs"],
    dts: true,
    clean: true,
    sourcemap: true,
    target: "es2022",
    external: ["vitest"],
  },
  {
    entry: { "cli/main": "src/cli/main.ts" },
    format: ["esm"],
    target: "node22",
    platform: "node",
    sourcemap: true,
    banner: { js: "#!/usr/bin/env node" },
  },
]);
