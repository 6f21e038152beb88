import type { HandlerContext } from "../context/context.js";
import { ToolsError } from "../core/errors.js";
import { type Credential, credentialProblem, credentialSecrets } from "../credentials/auth-schemes.js";
import { freshCredential } from "../oauth/refresh.js";
import { fillHeaders } from "../oauth/values.js";
import { createOutboundFetch } from "../outbound/fetch.js";
import { resolveRetryPolicy } from "../outbound/retry.js";
import type { ConnectionRecord } from "../store/types.js";
import { schemeFor, type Toolkit } from "../toolkits/define.js";
import { matchesHostPattern, wholeHostPlaceholder } from "../toolkits/host-input.js";

/** A connection's credential as an outbound call uses it. */
export interface ConnectionAccess {
  credential: Credential | null;
  /** Refreshes after an upstream 401 (OAuth only), for `createOutboundFetch`. */
  refreshAfterUnauthorized: ((stale: Credential) => Promise<Credential>) | undefined;
  /** Every secret this call has held, for redacting messages and logs. */
  secrets(): string[];
}

/**
 * Opens the connection's credential for one execute or proxy call, refreshing an OAuth token
 * that is about to expire first. Throws (`connection_required`) rather than return a credential
 * that cannot work, so nothing is sent upstream without one.
 */
export async function accessConnection(
  ctx: HandlerContext,
  toolkit: Toolkit,
  connection: ConnectionRecord | null,
): Promise<ConnectionAccess> {
  if (!connection) return { credential: null, refreshAfterUnauthorized: undefined, secrets: () => [] };
  let current = await freshCredential(ctx, toolkit, connection);
  const seen = new Set(credentialSecrets(current.credential, schemeFor(toolkit, current.credential.type)));
  assertSendable(toolkit, connection, current.credential);
  return {
    credential: current.credential,
    refreshAfterUnauthorized:
      current.credential.type === "oauth2"
        ? async (stale) => {
            current = await freshCredential(ctx, toolkit, current.connection, stale.type === "oauth2" ? stale.accessToken : undefined);
            for (const secret of credentialSecrets(current.credential)) seen.add(secret);
            assertSendable(toolkit, connection, current.credential);
            return current.credential;
          }
        : undefined,
    secrets: () => [...seen],
  };
}

/**
 * Refuses a stored credential that cannot go out as the scheme sends it (stored before `/auth`
 * checked it, or a provider's odd token), before anything is sent: fetch would otherwise fail
 * with an error that quotes the value.
 */
function assertSendable(toolkit: Toolkit, connection: ConnectionRecord, credential: Credential): void {
  const problem = credentialProblem(schemeFor(toolkit, credential.type, credential.mode), credential);
  if (!problem) return;
  throw new ToolsError(
    "connection_required",
    `The credential of connection "${connection.id}" cannot be used: its ${problem.field} ${problem.reason}. ` +
      `Delete the connection and connect again with POST /auth {"toolkit":"${toolkit.slug}"}.`,
  );
}

/**
 * The outbound fetch of one execute or proxy call: the toolkit's base URLs, the connection's
 * credential (refreshed once after a 401), the toolkit's or the handler's retry policy, and a
 * deadline shared by every attempt.
 */
export function outboundFetchFor(
  ctx: HandlerContext,
  toolkit: Toolkit,
  connection: ConnectionRecord | null,
  access: ConnectionAccess,
  call: { signal: AbortSignal; deadline: number },
) {
  return createOutboundFetch({
    fetch: ctx.fetch,
    toolkit: {
      baseUrls: toolkit.baseUrls,
      auth: schemeFor(toolkit, access.credential?.type, access.credential?.mode),
      headers: fillHeaders(toolkit.headers, connection?.params ?? {}),
      rateLimit: toolkit.rateLimit,
    },
    credential: access.credential,
    refreshAfterUnauthorized: access.refreshAfterUnauthorized,
    params: connection?.params ?? {},
    hosts: wholeHosts(toolkit, connection),
    signal: call.signal,
    retries: toolkit.retries ? resolveRetryPolicy(toolkit.retries) : ctx.retries,
    deadline: call.deadline,
  });
}

/**
 * The whole hosts of the toolkit's base URLs written `https://{name}/...` where `name` is a `host`
 * input, from the connection, each checked again against the input's hosts: a value that is not
 * one of them (a stored connection from before the list changed) is refused before anything is sent.
 */
function wholeHosts(toolkit: Toolkit, connection: ConnectionRecord | null): Record<string, string> {
  const hosts: Record<string, string> = {};
  for (const base of toolkit.baseUrls) {
    const name = wholeHostPlaceholder(base);
    const input = toolkit.inputs.find((i) => i.name === name && i.type === "host");
    if (!input || name === undefined) continue;
    const value = connection?.params[name]?.toLowerCase();
    if (value === undefined || !matchesHostPattern(value, input.hosts ?? [])) {
      throw new ToolsError(
        "connection_required",
        `The connection's ${input.label.toLowerCase()} is not one of the hosts ${toolkit.name} allows (${(input.hosts ?? []).join(", ")}). ` +
          `Delete the connection and connect again with POST /auth {"toolkit":"${toolkit.slug}"}.`,
      );
    }
    hosts[name] = value;
  }
  return hosts;
}
