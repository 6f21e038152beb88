/**
 * The tools handler that every example mounts. Its settings come from environment variables, so
 * each example runs as it is (with one offline toolkit) and the adapter tests (test/adapters)
 * can point it at servers of their own:
 *
 * - `TOOLS_PROXY_SECRET`: at least 32 bytes. The stores here are in memory, so without it a
 *   random one is used (with a warning).
 * - `TOOLS_PROXY_BASE_PATH`: where the routes live; default `/proxy/tools`. Mount the handler there.
 * - `TOOLS_PROXY_PUBLIC_URL`: the app's public origin, for OAuth redirect URLs.
 *   `TOOLS_PROXY_RETURN_ORIGINS`: other origins an OAuth `returnUrl` may use, comma-separated.
 * - `TOOLS_PROXY_TOOLKITS`: more toolkits, in their JSON form (one, or an array).
 * - `TOOLS_PROXY_MAX_UPLOAD_BYTES`: the largest staged file; default 100 MiB.
 * - `TOOLS_PROXY_FILES_DIR`: keep staged files in this directory rather than in memory.
 *
 * Data lives in memory, so an agent key is made when the module loads and printed once.
 */
import { createHash } from "node:crypto";
import { createToolsHandler, defineTool, defineToolkit, issueApiKey, memoryStore, none, parseToolkitFile, stagedFile } from "tools-proxy";
import { filesystemBlobStore } from "tools-proxy/fs";
import { z } from "zod";

const env = process.env;

/** An offline toolkit: facts about a file the agent staged with `POST /upload`. */
const files = defineToolkit({
  slug: "files",
  name: "Files",
  description: "Size and SHA-256 of staged files. Needs no connection.",
  auth: none(),
  tools: [
    defineTool({
      slug: "FILES_DIGEST",
      name: "Digest",
      description: "Reads a staged file as a stream and returns its size and SHA-256.",
      input: z.object({ file: stagedFile() }),
      annotations: { readOnly: true },
      async run({ file }, ctx) {
        const staged = await ctx.files.get(file);
        const hash = createHash("sha256");
        let size = 0;
        for await (const chunk of await staged.stream()) {
          hash.update(chunk);
          size += chunk.byteLength;
        }
        return { filename: staged.filename, contentType: staged.contentType, size, sha256: hash.digest("hex") };
      },
    }),
  ],
});

const store = memoryStore();
const maxUploadBytes = Number(env.TOOLS_PROXY_MAX_UPLOAD_BYTES) || undefined;

/** The handler: a fetch function, `Request` in and `Response` out. */
export const tools = createToolsHandler({
  store,
  blobStore: env.TOOLS_PROXY_FILES_DIR ? filesystemBlobStore({ directory: env.TOOLS_PROXY_FILES_DIR }) : undefined,
  toolkits: [files, ...(env.TOOLS_PROXY_TOOLKITS ? parseToolkitFile(env.TOOLS_PROXY_TOOLKITS, { source: "TOOLS_PROXY_TOOLKITS" }) : [])],
  secret: env.TOOLS_PROXY_SECRET || undefined,
  basePath: env.TOOLS_PROXY_BASE_PATH || undefined,
  publicUrl: env.TOOLS_PROXY_PUBLIC_URL || undefined,
  allowedReturnOrigins: env.TOOLS_PROXY_RETURN_ORIGINS?.split(",").filter(Boolean),
  uploads: maxUploadBytes ? { maxBytes: maxUploadBytes } : undefined,
});

/** Where the routes live: mount the handler at this path. */
export const basePath = tools.basePath;

/** The port to listen on: `PORT`, default 8787 (`PORT=0` picks a free one). */
export const port = Number(env.PORT ?? 8787);

const { key } = await issueApiKey(store, { workspaceId: "local", agentId: "agent" });
console.log(`tools-proxy: agent key ${key} (in memory: a new one at every start)`);

/** Prints where the API answers, once the server listens. */
export function announce(origin: string): void {
  console.log(`tools-proxy: listening on ${origin}${basePath}`);
}
