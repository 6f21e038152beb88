import { resolveConnection } from "../connections/resolve.js";
import type { HandlerContext } from "../context/context.js";
import { ToolsError } from "../core/errors.js";
import type { AgentPrincipal } from "../core/principal.js";
import { type ExecutionResult, failureFromError } from "../core/results.js";
import type { OutboundInit } from "../outbound/fetch.js";
import type { ConnectionRecord } from "../store/types.js";
import type { Toolkit } from "../toolkits/define.js";
import { accessConnection, type ConnectionAccess, outboundFetchFor } from "./access.js";
import { withTimeout } from "./timeout.js";

/** What the work of a call gets: the outbound fetch, the connection, the call's signal and secrets. */
export interface CallScope {
  /**
   * A fetch that can only reach the toolkit's base URLs and carries the connection's credential
   * (refreshed once after an OAuth 401), with the toolkit's retries and the call's deadline.
   */
  fetch(input: string | URL, init?: OutboundInit): Promise<Response>;
  /** The connection used; null for a toolkit without auth. */
  connection: ConnectionRecord | null;
  /** Aborts on the call's timeout or when the caller goes away. */
  signal: AbortSignal;
  /** Every secret the call has held so far (refreshed tokens included), for redaction. */
  secrets(): string[];
  /** The connection's credential as this call opened it, for work that sends requests outside `fetch` (a remote MCP session). */
  access: ConnectionAccess;
}

/** One call to a toolkit's API on behalf of an agent. */
export interface CallPlan<T> {
  /**
   * `tool`: `run` is a tool's code, so anything it throws, a refused URL included, is the tool's
   * failure. `proxy`: `run` sends the caller's own request, so a refused URL or header is the
   * caller's 400 and is thrown.
   */
  kind: "tool" | "proxy";
  /** The tool's slug, or the toolkit's for the proxy: names the call in messages and logs. */
  name: string;
  agent: AgentPrincipal;
  toolkit: Toolkit;
  /** The connection the caller named; without one, the agent's only active connection is used. */
  connectionId: string | undefined;
  /** The connection already resolved for this call (as `resolveConnection` resolves it), so that it is not looked up again. */
  connection?: ConnectionRecord | null;
  timeoutMs: number;
  /** The caller's signal: aborting it aborts the call. */
  signal: AbortSignal | undefined;
  run(scope: CallScope): Promise<T>;
}

/** How a call ended: the work's value, or its failure as an ExecutionResult. */
export type CallOutcome<T> = { connection: ConnectionRecord | null; durationMs: number; secrets: string[] } & (
  | { ok: true; value: T }
  | { ok: false; failure: ExecutionResult }
);

/**
 * Runs a call, the one path of execute and the proxy (and every other way in that calls a tool or
 * a toolkit's API): the connection is resolved (404 or 409 when there is none to use) and its
 * credential opened and refreshed if due (409, or 503 while the provider is away), then `run` gets
 * a policy-checked, credential-carrying fetch under the call's timeout. A failure of the work is
 * logged with the call's secrets redacted and returned as an ExecutionResult, classified by
 * `describeFailure`. Only what is the caller's is thrown: no connection to use, and for the proxy a
 * URL or header the policy refused (or storage that went down while the answer was staged).
 */
export async function runCall<T>(ctx: HandlerContext, plan: CallPlan<T>): Promise<CallOutcome<T>> {
  const { toolkit } = plan;
  const connection = plan.connection !== undefined ? plan.connection : await resolveConnection(ctx, plan.agent, toolkit, plan.connectionId);
  const access = await accessConnection(ctx, toolkit, connection);
  const started = performance.now();
  const done = () => ({ connection, durationMs: performance.now() - started, secrets: access.secrets() });
  try {
    const value = await withTimeout(plan.timeoutMs, plan.signal, (signal) =>
      plan.run({
        fetch: outboundFetchFor(ctx, toolkit, connection, access, { signal, deadline: started + plan.timeoutMs }),
        connection,
        signal,
        secrets: access.secrets,
        access,
      }),
    );
    return { ok: true, value, ...done() };
  } catch (error) {
    if (error instanceof ToolsError && plan.kind === "proxy") throw error;
    const subject =
      plan.kind === "tool" ? { message: "tool failed", field: "tool" } : { message: "proxy request failed", field: "toolkit" };
    ctx.logger.log("warn", subject.message, { [subject.field]: plan.name, error }, access.secrets());
    return { ok: false, failure: failureFromError(error, access.secrets(), plan.kind === "tool" ? plan.name : undefined), ...done() };
  }
}
