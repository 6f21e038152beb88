import { ExecuteBodySchema } from "../api/execution.js";
import type { HandlerContext } from "../context/context.js";
import { ToolsError } from "../core/errors.js";
import { asUnreachable } from "../core/failure.js";
import { json } from "../core/http.js";
import { type Principal, requireAgent } from "../core/principal.js";
import { redactData, secretForms } from "../core/redact.js";
import { success } from "../core/results.js";
import { runCall } from "../execution/call.js";
import { resolveStagedFiles } from "../execution/staged-args.js";
import { capResponseBody } from "../execution/upstream-result.js";
import type { StagedFile, ToolContext } from "../toolkits/define.js";
import { requireTool } from "../toolkits/registry.js";
import { validateWith } from "../toolkits/schemas.js";
import { openStagedFile, stageToolFile, uploadAgainHint } from "../uploads/staging.js";
import { defineRoute } from "./route.js";
import { ExecutionResultSchema, errors } from "./schemas.js";

export const executeRoutes = [
  defineRoute({
    method: "POST",
    path: "/execute",
    summary: "Run a tool with schema-checked arguments.",
    body: ExecuteBodySchema,
    responses: {
      200: { description: "The result; a tool that failed has successful: false.", schema: ExecutionResultSchema },
      ...errors(400, 401, 402, 404, 409, 429, 503),
    },
    async handle({ body, principal, request }, ctx) {
      const agent = requireAgent(principal);
      const { toolkit, tool } = await requireTool(ctx.registry, body.tool, ctx.basePath);
      // Staged files are opened (and a missing or foreign one refused) before anything else runs.
      const validated = await validateWith(tool.input, body.arguments, "arguments");
      if ("error" in validated) throw new ToolsError("invalid_request", validated.error);
      const args = await resolveStagedFiles(tool.inputParameters, validated.value, (key, path) =>
        openOwnFile(ctx, agent, key, `arguments.${path}: no`),
      );
      const outcome = await runCall(ctx, {
        kind: "tool",
        name: tool.slug,
        agent,
        toolkit,
        connectionId: body.connection_id,
        timeoutMs: toolkit.timeoutMs ?? ctx.timeouts.toolMs,
        signal: request.signal,
        run: async ({ fetch, connection, signal }) => {
          const toolContext: ToolContext = {
            fetch: async (input, init) =>
              capResponseBody(
                await fetch(input, init).catch((error: unknown) => Promise.reject(asUnreachable(error))),
                ctx.maxResponseBytes,
              ),
            files: {
              get: (file) => openOwnFile(ctx, agent, typeof file === "string" ? file : file.stagingKey, "No"),
              stage: (data, options) => stageToolFile(ctx, agent, data, options, signal),
            },
            connection: connection
              ? { id: connection.id, label: connection.label, remoteUser: connection.remoteUser, params: { ...connection.params } }
              : null,
            principal: agent,
            signal,
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
      return json(result);
    },
  }),
];

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
    throw new Error("The tool returned a value that cannot be sent as JSON (a cycle or a BigInt).");
  }
}
