import { ExecuteBodySchema } from "../api/execution.js";
import { json } from "../core/http.js";
import { requireAgent } from "../core/principal.js";
import { executeTool } from "../execution/execute-tool.js";
import { findRemoteTool } from "../remote-mcp/view.js";
import { requireTool } from "../toolkits/registry.js";
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
      // A remote MCP toolkit's tool is found in the tools its server lists for the caller's connection.
      const remote = await findRemoteTool(ctx, agent, body.tool, body.connection_id, request.signal);
      if (remote) return json(await executeTool(ctx, agent, remote, { ...body, connection_id: remote.connectionId }, request.signal));
      const found = await requireTool(ctx.registry, body.tool, ctx.basePath);
      return json(await executeTool(ctx, agent, found, body, request.signal));
    },
  }),
];
