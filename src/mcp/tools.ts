import { STAGED_FILE_FORMAT } from "../api/staged-file.js";
import type { HandlerContext } from "../context/context.js";
import { iconUrl } from "../routes/icons.js";
import type { JsonSchema, Tool, Toolkit } from "../toolkits/define.js";

/** A tool as MCP's `tools/list` describes it (the 2025-11-25 `Tool`). */
export interface McpTool {
  name: string;
  title?: string;
  description: string;
  inputSchema: { type: "object"; [key: string]: unknown };
  annotations?: { readOnlyHint?: boolean; destructiveHint?: boolean; idempotentHint?: boolean; openWorldHint?: boolean };
  icons?: Array<{ src: string; mimeType?: string }>;
}

/** The sentence a tool description gets when an argument is a staged file: how to get a staging key. */
export function stagingHint(ctx: Pick<HandlerContext, "basePath" | "publicUrl">): string {
  const upload = `${ctx.publicUrl?.origin ?? ""}${ctx.basePath}/upload`;
  return (
    `Files: an argument of format "${STAGED_FILE_FORMAT}" takes a staging key. Upload the file first with ` +
    `POST ${upload} (multipart/form-data, the file in the part "file", the same API key) and pass the stagingKey it answers.`
  );
}

/** Whether any argument of the schema is a staged file. */
export function takesFiles(schema: JsonSchema): boolean {
  return JSON.stringify(schema).includes(`"format":"${STAGED_FILE_FORMAT}"`);
}

/**
 * A toolkit's tool as an MCP tool named `name`: its input schema is the tool's `inputParameters`,
 * its hints its annotations, its icon the toolkit's (when it is an absolute http(s) URL, which is
 * all a client can load), and its description says how to stage a file when it takes one.
 */
export function mcpTool(ctx: Pick<HandlerContext, "basePath" | "publicUrl">, toolkit: Toolkit, tool: Tool, name: string): McpTool {
  const icon = toolkit.icon ? iconUrl(toolkit.icon, ctx) : "";
  const hints = tool.annotations;
  return {
    name,
    title: tool.name,
    description: `${tool.description}${takesFiles(tool.inputParameters) ? ` ${stagingHint(ctx)}` : ""}`,
    inputSchema: { ...tool.inputParameters, type: "object" },
    ...(hints
      ? {
          annotations: {
            ...(hints.readOnly !== undefined ? { readOnlyHint: hints.readOnly } : {}),
            ...(hints.destructive !== undefined ? { destructiveHint: hints.destructive } : {}),
            ...(hints.idempotent !== undefined ? { idempotentHint: hints.idempotent } : {}),
            ...(hints.openWorld !== undefined ? { openWorldHint: hints.openWorld } : {}),
          },
        }
      : {}),
    ...(/^https?:\/\//.test(icon) ? { icons: [{ src: icon, ...(icon.endsWith(".svg") ? { mimeType: "image/svg+xml" } : {}) }] } : {}),
  };
}
