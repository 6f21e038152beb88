import { z } from "zod";
import { apiKey } from "../credentials/auth-schemes.js";
import { defineTool, defineToolkit, stagedFile, type Toolkit } from "../toolkits/define.js";
import { upstreamError } from "../toolkits/provider-requests.js";
import { DEMO_API_PATH, DEMO_KEY_HEADER } from "./demo-api.js";

/**
 * The `demo` toolkit that `tools-proxy serve` bundles, so the whole flow works on a machine with
 * no account anywhere. Its API is the demo API (`demo-api.ts`) on the serve process's own
 * server, reached at `origin` (e.g. `http://127.0.0.1:8787`). It connects with the API key
 * `demo-key`, sent as `x-demo-key` like any API-key toolkit, and every tool uses that connection:
 *
 * - `DEMO_WORD_COUNT` counts the lines, words and bytes of an uploaded text file;
 * - `DEMO_CREATE_NOTE` and `DEMO_LIST_NOTES` call the demo API through `ctx.fetch`.
 */
export function demoToolkit(origin: string): Toolkit {
  return defineToolkit({
    slug: "demo",
    name: "Demo",
    description:
      "An offline demo: notes kept by a small API inside the server, and a word count of an uploaded file. " +
      "Connect with the API key demo-key.",
    baseUrl: `${origin}${DEMO_API_PATH}`,
    auth: apiKey({ in: "header", name: DEMO_KEY_HEADER }),
    tools: [
      defineTool({
        slug: "DEMO_WORD_COUNT",
        name: "Count words",
        description: "Counts the lines, words and bytes of a staged text file, like `wc`.",
        input: z.object({ file: stagedFile("Staging key of the text file, from POST /proxy/tools/upload.") }),
        annotations: { readOnly: true, idempotent: true },
        async run({ file }, ctx) {
          const staged = await ctx.files.get(file);
          const bytes = await staged.bytes();
          const text = new TextDecoder().decode(bytes);
          const words = text.split(/\s+/).filter(Boolean).length;
          const lines = text.match(/\n/g)?.length ?? 0;
          return { filename: staged.filename, contentType: staged.contentType, lines, words, bytes: bytes.byteLength };
        },
      }),
      defineTool({
        slug: "DEMO_CREATE_NOTE",
        name: "Create note",
        description: "Stores a note in the demo API and returns it with its id.",
        input: z.object({ text: z.string().min(1).max(1000).meta({ description: "The note's text." }) }),
        annotations: { readOnly: false, destructive: false },
        async run({ text }, ctx) {
          const response = await ctx.fetch("/notes", {
            method: "POST",
            headers: { "content-type": "application/json" },
            body: JSON.stringify({ text }),
          });
          if (!response.ok) throw await upstreamError(response);
          return response.json();
        },
      }),
      defineTool({
        slug: "DEMO_LIST_NOTES",
        name: "List notes",
        description: "Lists the notes stored in the demo API, oldest first.",
        input: z.object({}),
        annotations: { readOnly: true, idempotent: true },
        async run(_args, ctx) {
          const response = await ctx.fetch("/notes");
          if (!response.ok) throw await upstreamError(response);
          return response.json();
        },
      }),
    ],
  });
}
