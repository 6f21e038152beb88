import type { z } from "zod";
import type { ExecuteBodySchema } from "../api/execution.js";
import type { HandlerContext } from "../context/context.js";
import { ToolsError } from "../core/errors.js";
import { asUnreachable } from "../core/failure.js";
import type { AgentPrincipal, Principal } from "../core/principal.js";
import { redactData, secretForms } from "../core/redact.js";
import { type ExecutionResult, success } from "../core/results.js";
import type { ConnectionRecord } from "../store/types.js";
import type { StagedFile, Tool, ToolContext, Toolkit } from "../toolkits/define.js";
import { validateWith } from "../toolkits/schemas.js";
import { openStagedFile, stageToolFile, uploadAgainHint } from "../uploads/staging.js";
import { type CallScope, runCall } from "./call.js";
import { resolveStagedFiles } from "./staged-args.js";
import { capResponseBody } from "./upstream-result.js";

/** What `POST /execute` takes, once the tool is found: its arguments and the connection to use. */
export type ExecuteRequest = Omit<z.output<typeof ExecuteBodySchema>, "tool">;

/**
 * The tool to execute and its toolkit, and for a tool that is not run by its own `run` (a remote
 * MCP server's), the work that runs it with the call's scope instead, which gives a value parsed
 * from JSON (taken as it is, where a tool's own value is copied through JSON).
 */
export interface FoundTool {
  toolkit: Toolkit;
  tool: Tool;
  run?: (args: unknown, scope: CallScope) => Promise<unknown>;
  /** The connection the call runs on, when finding the tool resolved it already (a remote tool's, from its connection's list). */
  connection?: ConnectionRecord | null;
}

/**
 * Runs one tool for an agent: the path of `POST /execute` and of every other way in that executes
 * a tool (the MCP server). Arguments are checked against the tool's schema and staged files opened
 * first (`invalid_request` when they do not fit), then the call runs through `runCall` (a 404 or
 * 409 is thrown when there is no connection to use), its answer is redacted of the connection's
 * secrets, and `tool.executed` is reported. A failure of the tool itself is the returned
 * ExecutionResult, never thrown.
 */
export async function executeTool(
  ctx: HandlerContext,
  agent: AgentPrincipal,
  found: FoundTool,
  request: ExecuteRequest,
  signal: AbortSignal | undefined,
): Promise<ExecutionResult> {
  const { toolkit, tool } = found;
  const validated = await validateWith(tool.input, request.arguments, "arguments");
  if ("error" in validated) throw new ToolsError("invalid_request", validated.error);
  // Staged files are opened (and a missing or foreign one refused) before anything else runs.
  const args = await resolveStagedFiles(tool.inputParameters, validated.value, (key, path) =>
    openOwnFile(ctx, agent, key, `arguments.${path}: no`),
  );
  const outcome = await runCall(ctx, {
    kind: "tool",
    name: tool.slug,
    agent,
    toolkit,
    connectionId: request.connection_id,
    connection: found.connection,
    timeoutMs: toolkit.timeoutMs ?? ctx.timeouts.toolMs,
    signal,
    run: async (scope) => {
      // A value parsed from an answer's JSON is JSON already: it is not copied through JSON again.
      if (found.run) return (await found.run(args, scope)) ?? null;
      const { fetch, connection, signal, secrets } = scope;
      const toolContext: ToolContext = {
        fetch: async (input, init) =>
          capResponseBody(
            await fetch(input, withTokenChoice(init, tool.credential)).catch((error: unknown) => Promise.reject(asUnreachable(error))),
            ctx.maxResponseBytes,
          ),
        files: {
          get: (file) => openOwnFile(ctx, agent, typeof file === "string" ? file : file.stagingKey, "No"),
          // A file a tool stages may hold what an upstream echoed: the call's secrets are masked in it.
          stage: (data, options) => stageToolFile(ctx, agent, data, options, secretForms(secrets()), signal),
        },
        connection: connection
          ? { id: connection.id, label: connection.label, remoteUser: connection.remoteUser, params: { ...connection.params } }
          : null,
        principal: agent,
        signal,
        rateLimit: toolkit.rateLimit,
      };
      return toJsonValue(await tool.run(args, toolContext));
    },
  });
  // An upstream that echoes the credential (a query key in a URL it returns) must not hand it to the agent.
  const result = outcome.ok ? success(redactData(outcome.value, secretForms(outcome.secrets))) : outcome.failure;
  ctx.emit("tool.executed", {
    principal: agent,
    tool: tool.slug,
    toolkit: toolkit.slug,
    connectionId: outcome.connection?.id ?? null,
    successful: result.successful,
    durationMs: outcome.durationMs,
  });
  return result;
}

/** The agent's staged file `key`; an unknown, expired or foreign key is a 400 whose message starts with `lead`. */
async function openOwnFile(ctx: HandlerContext, agent: Principal, key: string, lead: string): Promise<StagedFile> {
  const file = await openStagedFile(ctx, agent, key);
  if (!file)
    throw new ToolsError(
      "invalid_request",
      `${lead} staged file "${key}" for this agent (unknown or expired); ${uploadAgainHint(ctx.basePath)}.`,
    );
  return file;
}

/** What a tool returned, as JSON would carry it; a value JSON cannot carry is a tool failure. */
function toJsonValue(value: unknown): unknown {
  if (value === undefined) return null;
  try {
    return JSON.parse(JSON.stringify(value)) ?? null;
  } catch {
    throw new Error("The tool returned a value that cannot be sent as JSON (a cycle, a BigInt, or nesting thousands of levels deep).");
  }
}

/** The request of a tool that uses one of the connection's further tokens where it keeps one (see `OutboundInit.preferToken`). */
function withTokenChoice<T>(init: T, name: string | undefined): T {
  return name === undefined ? init : ({ ...init, preferToken: name } as T);
}
