import type { z } from "zod";
import {
  AuthBodySchema,
  AuthorizationStartedSchema,
  AuthorizationStatusSchema,
  ConnectionCreatedSchema,
  type CredentialsSchema,
} from "../api/auth.js";
import { startConnectLink } from "../connect-link/link.js";
import { verifyCredential } from "../connect-link/verify.js";
import { checkConfig, checkOrigins, missingInputs } from "../connections/config.js";
import { createConnection } from "../connections/create.js";
import { publicConnection } from "../connections/resolve.js";
import type { HandlerContext } from "../context/context.js";
import { ToolsError } from "../core/errors.js";
import { json } from "../core/http.js";
import { type AgentPrincipal, requireAgent } from "../core/principal.js";
import { type AuthScheme, type Credential, credentialProblem, modeId } from "../credentials/auth-schemes.js";
import { credentialFromFields, fieldsOf, fieldsProblem } from "../credentials/fields.js";
import { type GrantScheme, isGrantType } from "../credentials/grant-schemes.js";
import { grantSecrets } from "../grants/index.js";
import { completeAuthorization } from "../oauth/callback.js";
import { startAuthorization } from "../oauth/start.js";
import { resolveMcpAuthorization } from "../remote-mcp/resolve.js";
import type { Toolkit } from "../toolkits/define.js";
import { requireToolkit } from "../toolkits/registry.js";
import { defineRoute } from "./route.js";
import { errors } from "./schemas.js";

export const authRoutes = [
  defineRoute({
    method: "POST",
    path: "/auth",
    summary:
      "Connect a toolkit: start OAuth, make a connect link a person opens to type the credential, or for apiKey, bearer and basic toolkits connect at once with credentials.",
    body: AuthBodySchema,
    responses: {
      200: {
        description:
          "OAuth started, or a connect link made (no credentials sent): open authorizationUrl in a browser, then wait on GET /auth/{authorizationId}.",
        schema: AuthorizationStartedSchema,
      },
      201: { description: "The connection, created at once.", schema: ConnectionCreatedSchema },
      ...errors(400, 401, 404),
    },
    async handle({ body, principal }, ctx) {
      const connected = await connectToolkit(ctx, requireAgent(principal), body);
      return "connection" in connected ? json(connected, 201) : json(connected);
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

/**
 * Connects a toolkit for an agent, as `POST /auth` does (and the MCP server's connect tool): an
 * OAuth toolkit gets a started authorization (`{ authorizationId, authorizationUrl, expiresAt }`),
 * a mode with fields a person types (`fieldsOf`) without `credentials` (or an OAuth toolkit whose
 * inputs are missing) a connect link in the same shape, and with `credentials` the connection made at once (`{ connection }`). Throws the 400 or 404 that
 * the route answers.
 */
export async function connectToolkit(
  ctx: HandlerContext,
  agent: AgentPrincipal,
  body: z.output<typeof AuthBodySchema>,
): Promise<z.output<typeof AuthorizationStartedSchema> | z.output<typeof ConnectionCreatedSchema>> {
  const toolkit = await requireToolkit(ctx.registry, body.toolkit, ctx.basePath);
  const scheme = chooseMode(toolkit, body.mode, body.credentials);
  // A mode whose deployer value is unset (Trello's TOOLS_PROXY_TRELLO_KEY) says which variable to set.
  if (scheme.type !== "oauth2" && "unconfigured" in scheme && scheme.unconfigured)
    throw new ToolsError("invalid_request", scheme.unconfigured);
  const given = body.config ?? body.params ?? {};
  // A credential a person types, without credentials in the request: a connect link, where the
  // person also gives any inputs still missing.
  // Defaults are not applied yet: the page shows each as the choice made, which the person may change.
  if (!body.credentials && fieldsOf(scheme).length > 0) {
    const config = checkConfig(toolkit, scheme, given, {
      partial: true,
      defaults: false,
      allowPrivateNetworks: ctx.origins?.allowPrivateNetworks,
    });
    await checkOrigins(toolkit, config, ctx.origins);
    return startConnectLink(ctx, agent, toolkit, scheme, {
      label: body.label,
      returnUrl: body.returnUrl,
      config,
      remoteUser: body.remoteUser,
    });
  }
  if (scheme.type === "oauth2" && !body.credentials) {
    if (missingInputs(toolkit, scheme, given)) {
      const config = checkConfig(toolkit, scheme, given, {
        partial: true,
        defaults: false,
        allowPrivateNetworks: ctx.origins?.allowPrivateNetworks,
      });
      await checkOrigins(toolkit, config, ctx.origins);
      return startConnectLink(ctx, agent, toolkit, scheme, { label: body.label, returnUrl: body.returnUrl, config });
    }
  }
  const config = checkConfig(toolkit, scheme, given, { allowPrivateNetworks: ctx.origins?.allowPrivateNetworks });
  await checkOrigins(toolkit, config, ctx.origins);
  if (scheme.type === "oauth2") {
    if (body.credentials)
      throw new ToolsError(
        "invalid_request",
        `Toolkit "${toolkit.slug}" connects with OAuth 2: send no credentials, open the authorizationUrl instead.`,
      );
    // A remote MCP server's mode is discovered first: its endpoints, its client, the resource.
    if (scheme.discovery) {
      const { scheme: concrete, discovered } = await resolveMcpAuthorization(ctx, toolkit, scheme);
      return startAuthorization(ctx, agent, toolkit, concrete, { ...body, config, discovered });
    }
    return startAuthorization(ctx, agent, toolkit, scheme, { ...body, config });
  }
  const credential: Credential = isGrantType(scheme.type)
    ? {
        type: scheme.type,
        secrets: grantSecrets(toolkit.slug, scheme as GrantScheme, body.credentials as Record<string, string> | undefined),
      }
    : credentialFor(toolkit, scheme, body.credentials);
  const problem = credentialProblem(scheme, credential);
  if (problem)
    throw new ToolsError("invalid_request", `credentials.${problem.field} ${problem.reason}. Check the value and send it again.`);
  const account = await verifyCredential(ctx, toolkit, scheme, credential, config);
  const record = await createConnection(ctx, {
    workspaceId: agent.workspaceId,
    agentId: agent.agentId,
    toolkit,
    label: body.label,
    remoteUser: account.remoteUser ?? body.remoteUser ?? "",
    credential: account.credential ?? credential,
    ...(account.credentialsExpireAt === undefined ? {} : { credentialsExpireAt: account.credentialsExpireAt }),
    params: { ...config, ...account.config },
  });
  return { connection: publicConnection(record) };
}

type CredentialsInput = z.output<typeof CredentialsSchema> | undefined;

/** The credential the request's `credentials` make for this way to connect, or the 400 naming what is wrong. */
function credentialFor(toolkit: Toolkit, scheme: AuthScheme, input: CredentialsInput): Credential {
  const fields = fieldsOf(scheme);
  if (fields.length === 0)
    throw new ToolsError("invalid_request", `Toolkit "${toolkit.slug}" needs no connection: execute its tools directly.`);
  const shape = `{ ${fields.map((f) => `"${f.name}": "..."`).join(", ")} }`;
  const problem = input ? fieldsProblem(scheme, input) : "credentials are missing";
  if (problem)
    throw new ToolsError(
      "invalid_request",
      `Toolkit "${toolkit.slug}" connects with mode "${modeId(scheme)}" here: ${problem}. Send "credentials": ${shape}.`,
    );
  return credentialFromFields(scheme, input!)!;
}

/**
 * The way to connect: the mode asked for (by its id), else the first that fits the request (with
 * credentials, the first mode whose fields are exactly their keys, `{ token }` a bearer mode even
 * where a basic mode comes first, else the first mode taking credentials; without, the toolkit's first).
 */
function chooseMode(toolkit: Toolkit, mode: string | undefined, credentials: CredentialsInput): AuthScheme {
  if (mode) {
    const chosen = toolkit.authModes.find((m) => modeId(m) === mode);
    if (chosen) return chosen;
    const modes = toolkit.authModes.map(modeId).join(", ");
    throw new ToolsError("invalid_request", `Toolkit "${toolkit.slug}" cannot connect with mode "${mode}"; its modes: ${modes}.`);
  }
  if (credentials) {
    const keys = Object.keys(credentials);
    const fits = (m: AuthScheme) => {
      const fields = fieldsOf(m);
      return (
        fields.length > 0 && keys.every((k) => fields.some((f) => f.name === k)) && fields.every((f) => f.optional || keys.includes(f.name))
      );
    };
    return toolkit.authModes.find(fits) ?? toolkit.authModes.find((m) => fieldsOf(m).length > 0) ?? toolkit.auth;
  }
  return toolkit.auth;
}
