import { z } from "zod";
import { accessConnection, outboundFetchFor } from "../connections/access.js";
import { resolveConnection } from "../connections/resolve.js";
import type { HandlerContext } from "../context.js";
import { ToolsError } from "../errors.js";
import { failureFromError, success, withTimeout, type ExecutionResult } from "../execution/result.js";
import { findStagedFileKeys } from "../execution/staged-args.js";
import { json, validate } from "../http.js";
import { capResponseBody } from "../outbound/response.js";
import type { Principal } from "../store/types.js";
import type { ToolContext } from "../toolkits/define.js";
import { openStagedFile } from "../uploads/staging.js";
import { requireAgent } from "./agent.js";
import { defineRoute } from "./route.js";
import { ExecutionResultSchema, errors, idParam } from "./schemas.js";

const ExecuteBodySchema = z.object({
  tool: idParam.meta({ description: "Tool slug." }),
  arguments: z.record(z.string(), z.unknown()).default({}).meta({ description: "The tool's arguments, checked against its inputParameters." }),
  connection_id: idParam.optional().meta({ description: "Connection to use; required when the agent has several." }),
});

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
      const found = await ctx.registry.getTool(body.tool);
      if (!found) throw new ToolsError("not_found", `No tool "${body.tool}". Find tools with GET ${ctx.basePath}/toolkit/{toolkit}/search?query=...`);
      const { toolkit, tool } = found;
      const args = validate(tool.input, body.arguments, "arguments");
      await checkStagedFiles(ctx, agent, findStagedFileKeys(tool.inputParameters, body.arguments));
      const connection = await resolveConnection(ctx, agent, toolkit, body.connection_id);
      const access = await accessConnection(ctx, toolkit, connection);

      const started = performance.now();
      const timeoutMs = toolkit.timeoutMs ?? ctx.timeouts.toolMs;
      let result: ExecutionResult;
      try {
        const data = await withTimeout(timeoutMs, request.signal, (signal) => {
          const outbound = outboundFetchFor(ctx, toolkit, connection, access, { signal, deadline: started + timeoutMs });
          const toolContext: ToolContext = {
            fetch: async (input, init) => capResponseBody(await outbound(input, init), ctx.maxResponseBytes),
            files: {
              async get(key) {
                const file = await openStagedFile(ctx, agent, key);
                if (!file) throw new ToolsError("invalid_request", `No staged file "${key}" for this agent (unknown or expired); upload it with POST ${ctx.basePath}/upload.`);
                return file;
              },
            },
            connection: connection ? { id: connection.id, label: connection.label, remoteUser: connection.remoteUser, params: { ...connection.params } } : null,
            principal: agent,
            signal,
          };
          return Promise.resolve(tool.run(args, toolContext));
        });
        result = success(toJsonValue(data));
      } catch (error) {
        ctx.logger.log("warn", "tool failed", { tool: tool.slug, error }, access.secrets());
        result = failureFromError(error, access.secrets(), tool.slug);
      }
      ctx.emit("tool.executed", {
        principal: agent,
        tool: tool.slug,
        toolkit: toolkit.slug,
        connectionId: connection?.id ?? null,
        successful: result.successful,
        durationMs: performance.now() - started,
      });
      return json(result);
    },
  }),
];

/** Staged files named in the arguments must exist and belong to the agent: otherwise a 400. */
async function checkStagedFiles(ctx: HandlerContext, agent: Principal, keys: Array<{ path: string; key: string }>): Promise<void> {
  for (const { path, key } of keys) {
    const file = await openStagedFile(ctx, agent, key);
    if (!file) {
      throw new ToolsError("invalid_request", `arguments.${path}: no staged file "${key}" for this agent (unknown or expired); upload it with POST ${ctx.basePath}/upload.`);
    }
  }
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
