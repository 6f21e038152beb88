import type { z } from "zod";
import {
  AuthBodySchema,
  AuthorizationStartedSchema,
  AuthorizationStatusSchema,
  ConnectionCreatedSchema,
  type CredentialsSchema,
} from "../api/auth.js";
import { createConnection } from "../connections/create.js";
import { publicConnection } from "../connections/resolve.js";
import { ToolsError } from "../core/errors.js";
import { json } from "../core/http.js";
import { requireAgent } from "../core/principal.js";
import { type Credential, credentialProblem } from "../credentials/auth-schemes.js";
import { completeAuthorization } from "../oauth/callback.js";
import { startAuthorization } from "../oauth/start.js";
import { requireToolkit } from "../toolkits/registry.js";
import { defineRoute } from "./route.js";
import { errors } from "./schemas.js";

export const authRoutes = [
  defineRoute({
    method: "POST",
    path: "/auth",
    summary: "Connect a toolkit: start OAuth, or for apiKey, bearer and basic toolkits connect at once with credentials.",
    body: AuthBodySchema,
    responses: {
      200: {
        description: "OAuth started: open authorizationUrl in a browser, then wait on GET /auth/{authorizationId}.",
        schema: AuthorizationStartedSchema,
      },
      201: { description: "The connection, created at once.", schema: ConnectionCreatedSchema },
      ...errors(400, 401, 404),
    },
    async handle({ body, principal }, ctx) {
      const agent = requireAgent(principal);
      const toolkit = await requireToolkit(ctx.registry, body.toolkit, ctx.basePath);
      if (toolkit.auth.type === "oauth2") {
        if (body.credentials)
          throw new ToolsError(
            "invalid_request",
            `Toolkit "${toolkit.slug}" connects with OAuth 2: send no credentials, open the authorizationUrl instead.`,
          );
        return json(await startAuthorization(ctx, agent, toolkit, toolkit.auth, body));
      }
      const credential = toCredential(toolkit.auth.type, toolkit.slug, body.credentials);
      const problem = credentialProblem(toolkit.auth, credential);
      if (problem)
        throw new ToolsError("invalid_request", `credentials.${problem.field} ${problem.reason}. Check the value and send it again.`);
      const params = checkParams(toolkit.baseUrls, body.params ?? {});
      const record = await createConnection(ctx, {
        workspaceId: agent.workspaceId,
        agentId: agent.agentId,
        toolkit,
        label: body.label,
        remoteUser: body.remoteUser ?? "",
        credential,
        params,
      });
      return json({ connection: publicConnection(record) }, 201);
    },
  }),
  defineRoute({
    method: "GET",
    path: "/auth/callback",
    summary: "The OAuth provider's redirect back to the app (opened by the user's browser).",
    public: true,
    responses: {
      200: { description: "Connected: a small HTML page (JSON for non-browser clients).", contentType: "text/html" },
      303: { description: "To the returnUrl, with status=connected&connection_id=... or status=failed&error=..." },
      ...errors(400),
    },
    async handle({ request }, ctx) {
      return completeAuthorization(ctx, request);
    },
  }),
  defineRoute({
    method: "GET",
    path: "/auth/:authorizationId",
    summary: "The status of an authorization started with POST /auth, for a client that waits.",
    responses: { 200: { description: "Its status.", schema: AuthorizationStatusSchema }, ...errors(400, 401, 404) },
    async handle({ params, principal }, ctx) {
      const agent = requireAgent(principal);
      const authorization = await ctx.store.getAuthorization(params.authorizationId);
      const visible = authorization && authorization.workspaceId === agent.workspaceId && authorization.agentId === agent.agentId;
      if (!visible) throw new ToolsError("not_found", `No authorization "${params.authorizationId}" for this caller.`);
      const expired = authorization.status === "pending" && authorization.expiresAt.getTime() <= Date.now();
      return json({
        status: expired ? "expired" : authorization.status,
        ...(authorization.connectionId ? { connectionId: authorization.connectionId } : {}),
        ...(authorization.error ? { error: authorization.error } : {}),
      });
    },
  }),
];

type CredentialsInput = z.output<typeof CredentialsSchema> | undefined;

function toCredential(type: string, toolkit: string, input: CredentialsInput): Credential {
  const missing = (shape: string) =>
    new ToolsError("invalid_request", `Toolkit "${toolkit}" connects with ${type} credentials: send "credentials": ${shape}.`);
  switch (type) {
    case "apiKey":
      if (!input || !("apiKey" in input)) throw missing('{ "apiKey": "..." }');
      return { type: "apiKey", apiKey: input.apiKey };
    case "bearer":
      if (!input || !("token" in input)) throw missing('{ "token": "..." }');
      return { type: "bearer", token: input.token };
    case "basic":
      if (!input || !("username" in input)) throw missing('{ "username": "...", "password": "..." }');
      return { type: "basic", username: input.username, password: input.password };
    default:
      throw new ToolsError("invalid_request", `Toolkit "${toolkit}" needs no connection: execute its tools directly.`);
  }
}

/** Every placeholder of the toolkit's base URLs must get a value, and nothing else may be sent. */
function checkParams(baseUrls: string[], params: Record<string, string>): Record<string, string> {
  const names = new Set(baseUrls.flatMap((b) => [...b.matchAll(/\{([A-Za-z0-9_]+)\}/g)].map((m) => m[1]!)));
  for (const name of names) {
    if (!params[name]) throw new ToolsError("invalid_request", `This toolkit's URL needs "params": { "${name}": "..." }.`);
  }
  for (const name of Object.keys(params)) {
    if (!names.has(name)) throw new ToolsError("invalid_request", `params.${name} is not a placeholder of this toolkit's base URL.`);
  }
  return params;
}
