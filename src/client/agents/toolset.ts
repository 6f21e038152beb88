import { createToolsClient, type ToolsClient, type ToolsClientOptions } from "../client.js";
import { isToolsClientError, ToolsClientError } from "../errors.js";
import type { Tool } from "../types.js";
import { toolNameFor } from "./names.js";
import { connectionRequired, outcomeOfError, outcomeOfResult, type ToolOutcome } from "./outcome.js";
import { dropAbsentNulls, type JsonSchema, plainSchema, toStrictSchema } from "./schema.js";

/** One tool as the adapters give it to a framework. */
export interface AgentTool {
  /** The name the model calls it by: the slug where it is valid (`^[a-zA-Z_][a-zA-Z0-9_-]{0,63}$`), else a mapped one. */
  readonly name: string;
  /** The tool's slug, sent to `POST /execute`. */
  readonly slug: string;
  readonly toolkit: string;
  readonly description: string;
  /** The tool's JSON Schema, without `$schema`. */
  readonly inputSchema: JsonSchema;
  /** The same in OpenAI's strict form, or null when the schema has none (see `toStrictSchema`). */
  readonly strictInputSchema: JsonSchema | null;
  /** `readOnly`, `destructive`, `idempotent`... as the server lists them. */
  readonly annotations: Readonly<Record<string, boolean>>;
}

/** Options of a toolset's calls. */
export interface ToolsetOptions {
  /** The connection to use per toolkit (`{ github: "conn_..." }`), for an agent with several. */
  connections?: Record<string, string>;
  /**
   * When a call needs a connection the agent lacks, start one (`POST /auth`) and give the model
   * its URL to pass on to the user. Default: true. One link per toolkit is reused until it expires.
   */
  connectLinks?: boolean;
}

/** Which tools to load: an agent loads only what it needs. Each part adds to the others. */
export interface ToolSelection extends ToolsetOptions {
  /** Every tool of these toolkits. */
  toolkits?: string[];
  /** Single tools by slug, per toolkit: `{ github: ["GITHUB_CREATE_ISSUE"] }`. */
  tools?: Record<string, string[]>;
  /**
   * Tools found by a search: the best toolkits for `query` (`GET /search`, 3 by default), then the
   * best tools of each (`GET /toolkit/{toolkit}/search`, 5 by default; a toolkit none of whose
   * tools match gives its first ones). A string is `{ query }`.
   */
  search?: string | { query: string; toolkits?: number; toolsPerToolkit?: number };
  /** Stops loading. */
  signal?: AbortSignal;
}

/** Tools ready for a framework, each run through `POST /execute`. */
export interface AgentToolset {
  readonly client: ToolsClient;
  readonly tools: readonly AgentTool[];
  /** The tool the model calls `name`, or undefined. */
  get(name: string): AgentTool | undefined;
  /**
   * Runs tool `name` with `args` (an object, or a JSON string as OpenAI sends them) through
   * `POST /execute`. Resolves with the tool's data, or a ToolFailure the model can read, for
   * every failure: unknown tool, bad arguments, a failed call, a refused one, a missing
   * connection (with a link to connect), no answer. Rejects only when `signal` aborts.
   */
  run(name: string, args: unknown, options?: { signal?: AbortSignal }): Promise<ToolOutcome>;
}

/** A client, or the options to make one (`{ baseUrl, apiKey }`). */
export type ToolsSource = ToolsClient | ToolsClientOptions;

/**
 * Loads the tools `selection` names from the server and makes them a toolset. Rejects with a
 * ToolsClientError when a route fails (a toolkit that does not exist is `not_found`), and with an
 * Error naming them when `selection.tools` lists slugs a toolkit does not have.
 */
export async function loadTools(source: ToolsSource, selection: ToolSelection): Promise<AgentToolset> {
  const client = toClient(source);
  const { signal } = selection;
  const found: Tool[] = [];
  const toolkitOf = new Map<string, string>();
  const add = (toolkit: string, tools: Tool[]) => {
    for (const tool of tools) {
      if (toolkitOf.has(tool.slug)) continue;
      toolkitOf.set(tool.slug, toolkit);
      found.push(tool);
    }
  };
  for (const toolkit of selection.toolkits ?? []) add(toolkit, await allTools(client, toolkit, signal));
  for (const [toolkit, slugs] of Object.entries(selection.tools ?? {})) {
    const all = await allTools(client, toolkit, signal);
    const missing = slugs.filter((slug) => !all.some((tool) => tool.slug === slug));
    if (missing.length > 0) {
      throw new Error(
        `Toolkit "${toolkit}" has no tool ${missing.map((s) => `"${s}"`).join(", ")}; its tools: ${all.map((t) => t.slug).join(", ")}.`,
      );
    }
    add(
      toolkit,
      all.filter((tool) => slugs.includes(tool.slug)),
    );
  }
  if (selection.search) {
    const search = typeof selection.search === "string" ? { query: selection.search } : selection.search;
    const { toolkits } = await client.search({ keywords: search.query, limit: search.toolkits ?? 3 }, { signal });
    const limit = search.toolsPerToolkit ?? 5;
    for (const toolkit of toolkits) {
      const { tools } = await client.searchTools(toolkit.slug, { query: search.query, limit }, { signal });
      // The words matched the toolkit but no tool of it: its first tools, rather than none.
      add(toolkit.slug, tools.length > 0 ? tools : (await client.getToolkit(toolkit.slug, { limit }, { signal })).tools);
    }
  }
  return createToolset(
    client,
    found.map((tool) => ({ ...tool, toolkit: toolkitOf.get(tool.slug)! })),
    selection,
  );
}

/** Every tool of a toolkit, following `nextCursor`. */
async function allTools(client: ToolsClient, toolkit: string, signal: AbortSignal | undefined): Promise<Tool[]> {
  const tools: Tool[] = [];
  let cursor: string | null | undefined;
  do {
    const page = await client.getToolkit(toolkit, { limit: 200, ...(cursor ? { cursor } : {}) }, { signal });
    tools.push(...page.tools);
    cursor = page.nextCursor;
  } while (cursor);
  return tools;
}

/**
 * A toolset of tools already at hand (from `getToolkit` or `searchTools`, each with its toolkit's
 * slug), without loading anything.
 */
export function createToolset(source: ToolsSource, tools: Array<Tool & { toolkit: string }>, options: ToolsetOptions = {}): AgentToolset {
  const client = toClient(source);
  const taken = new Set<string>();
  const byName = new Map<string, AgentTool>();
  const list = tools.map((tool): AgentTool => {
    const name = toolNameFor(tool.slug, taken);
    taken.add(name);
    const agentTool: AgentTool = {
      name,
      slug: tool.slug,
      toolkit: tool.toolkit,
      description: tool.description || tool.name,
      inputSchema: plainSchema(tool.inputParameters),
      strictInputSchema: toStrictSchema(tool.inputParameters),
      annotations: tool.annotations ?? {},
    };
    byName.set(name, agentTool);
    return agentTool;
  });
  const links = new Map<string, { url: string; expiresAt: number }>();

  async function connectLink(toolkit: string, signal: AbortSignal | undefined): Promise<string | undefined> {
    if (options.connectLinks === false) return undefined;
    const known = links.get(toolkit);
    if (known && known.expiresAt > Date.now() + 60_000) return known.url;
    try {
      const started = await client.startAuthorization({ toolkit }, { signal });
      links.set(toolkit, { url: started.authorizationUrl, expiresAt: Date.parse(started.expiresAt) });
      return started.authorizationUrl;
    } catch (error) {
      if (signal?.aborted) throw error;
      return undefined; // e.g. an OAuth provider the server has no client for: the message says what to do
    }
  }

  return {
    client,
    tools: list,
    get: (name) => byName.get(name),
    async run(name, args, { signal } = {}) {
      const tool = byName.get(name);
      if (!tool) {
        return outcomeOfError(
          new ToolsClientError("not_found", `No tool is named "${name}". The tools are: ${list.map((t) => t.name).join(", ")}.`),
        );
      }
      const parsed = parseArguments(args);
      if (!parsed.ok) return outcomeOfError(new ToolsClientError("invalid_request", parsed.error));
      const connectionId = options.connections?.[tool.toolkit];
      try {
        const result = await client.execute(
          {
            tool: tool.slug,
            arguments: dropAbsentNulls(tool.inputSchema, parsed.value) as Record<string, unknown>,
            ...(connectionId ? { connection_id: connectionId } : {}),
          },
          { signal },
        );
        if (!result.successful && result.code === "connection_required") {
          return connectionRequired(
            tool.toolkit,
            result.error ?? "The connection must be reconnected.",
            await connectLink(tool.toolkit, signal),
          );
        }
        return outcomeOfResult(result);
      } catch (error) {
        if (signal?.aborted) throw error;
        if (isToolsClientError(error) && error.code === "connection_required") {
          return connectionRequired(tool.toolkit, error.message, await connectLink(tool.toolkit, signal));
        }
        return outcomeOfError(error);
      }
    },
  };
}

function parseArguments(args: unknown): { ok: true; value: Record<string, unknown> } | { ok: false; error: string } {
  let value = args ?? {};
  if (typeof value === "string") {
    try {
      value = value.trim() === "" ? {} : JSON.parse(value);
    } catch {
      return { ok: false, error: "The arguments are not valid JSON: send one JSON object." };
    }
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    return { ok: false, error: "The arguments must be one JSON object." };
  }
  return { ok: true, value: value as Record<string, unknown> };
}

function toClient(source: ToolsSource): ToolsClient {
  return "execute" in source && typeof source.execute === "function" ? source : createToolsClient(source as ToolsClientOptions);
}
