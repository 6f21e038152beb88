import type { Tool as McpListedTool } from "@modelcontextprotocol/sdk/types.js";
import type { JsonSchema, Tool, ToolAnnotations } from "../toolkits/define.js";
import { validationCopy } from "../toolkits/json.js";
import { assertCheckable, zodValidatorOf } from "../toolkits/json-schema-validator.js";
import type { StandardSchemaV1 } from "../toolkits/schemas.js";
import { remoteToolSlugs } from "./names.js";

/** A remote MCP server's tool as this toolkit serves it: a `Tool` with the name the server calls it by. */
export interface RemoteTool extends Tool {
  /** The tool's name on the server, sent by `tools/call`. */
  remoteName: string;
}

/**
 * The tools a server listed, as `Tool`s of `toolkit`: slugs from `remoteToolSlugs`, the input
 * schema as the server gave it, `name` from its title, annotations from its hints. A tool without
 * a usable name or an object input schema, or whose schema nests deeper than `MAX_SCHEMA_DEPTH`
 * (no real schema does; such a one would overflow the stack of whatever walks it, down to the
 * JSON of an answer), is left out. Their `run` is never called: a remote tool runs through its
 * connection's session (see `remoteRunner`).
 */
export function remoteTools(toolkit: string, listed: readonly McpListedTool[]): RemoteTool[] {
  const usable = listed.filter(
    (tool) =>
      typeof tool.name === "string" && tool.name !== "" && isRecord(tool.inputSchema) && depthWithin(tool.inputSchema, MAX_SCHEMA_DEPTH),
  );
  const slugs = remoteToolSlugs(
    toolkit,
    usable.map((tool) => tool.name),
  );
  const seen = new Set<string>();
  const tools: RemoteTool[] = [];
  for (const tool of usable) {
    if (seen.has(tool.name)) continue;
    seen.add(tool.name);
    tools.push(remoteTool(slugs.get(tool.name)!, tool));
  }
  return tools;
}

function remoteTool(slug: string, tool: McpListedTool): RemoteTool {
  const inputParameters = { ...(tool.inputSchema as JsonSchema), type: "object" };
  const annotations = annotationsOf(tool.annotations);
  return {
    slug,
    remoteName: tool.name,
    name: textOr(tool.title, textOr(tool.annotations?.title, tool.name)),
    description: textOr(tool.description, ""),
    inputParameters,
    input: validatorOf(inputParameters),
    ...(annotations ? { annotations } : {}),
    run: () => {
      throw new Error("A remote MCP tool runs through its connection's session.");
    },
  };
}

/** How deep a remote tool's input schema may nest (objects and arrays), past which the tool is left out. */
export const MAX_SCHEMA_DEPTH = 64;

/** Whether `value` nests at most `max` levels of objects and arrays, found without recursion. */
function depthWithin(value: unknown, max: number): boolean {
  const pending: Array<[unknown, number]> = [[value, 1]];
  while (pending.length > 0) {
    const [item, depth] = pending.pop()!;
    if (typeof item !== "object" || item === null) continue;
    if (depth > max) return false;
    for (const child of Object.values(item)) pending.push([child, depth + 1]);
  }
  return true;
}

/**
 * The validator of a remote tool's arguments: its JSON Schema, read as a JSON toolkit's is
 * (without `default` and the keywords zod cannot express), made on the tool's first call. A schema
 * that cannot be checked here (a pattern RE2 cannot match, a reference cycle, a type or reference
 * zod cannot read) accepts any object: the server validates its own, and a server's schema is
 * not the deployer's to fix.
 */
function validatorOf(schema: JsonSchema): StandardSchemaV1 {
  let validator: StandardSchemaV1 | undefined;
  try {
    assertCheckable(schema);
  } catch {
    validator = ANY_OBJECT;
  }
  return {
    "~standard": {
      version: 1,
      vendor: "tools-proxy",
      validate(value) {
        if (!validator) {
          try {
            validator = zodValidatorOf(validationCopy(schema) as JsonSchema);
          } catch {
            validator = ANY_OBJECT;
          }
        }
        return validator["~standard"].validate(value);
      },
    },
  };
}

const ANY_OBJECT: StandardSchemaV1 = {
  "~standard": {
    version: 1,
    vendor: "tools-proxy",
    validate: (value) =>
      isRecord(value) ? { value } : { issues: [{ message: "Invalid input: expected an object of the tool's arguments" }] },
  },
};

function annotationsOf(hints: McpListedTool["annotations"]): ToolAnnotations | undefined {
  if (!hints) return undefined;
  const annotations: ToolAnnotations = {};
  if (typeof hints.readOnlyHint === "boolean") annotations.readOnly = hints.readOnlyHint;
  if (typeof hints.destructiveHint === "boolean") annotations.destructive = hints.destructiveHint;
  if (typeof hints.idempotentHint === "boolean") annotations.idempotent = hints.idempotentHint;
  if (typeof hints.openWorldHint === "boolean") annotations.openWorld = hints.openWorldHint;
  return Object.keys(annotations).length ? annotations : undefined;
}

function textOr(value: unknown, fallback: string): string {
  return typeof value === "string" && value.trim() !== "" ? value : fallback;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
