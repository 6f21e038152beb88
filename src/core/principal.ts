import { ToolsError } from "./errors.js";

/** A value or a Promise of it. Implementations may return either; callers always `await`. */
export type Awaitable<T> = T | Promise<T>;

/** Who is calling: resolved from the API key of a request. */
export interface Principal {
  workspaceId: string;
  /** The agent acting. For a service key without `x-agent-id`, null. */
  agentId: string | null;
  keyId: string;
  kind: "agent" | "service";
}

/**
 * Which connections a principal sees: an agent its own; a service key without `x-agent-id` every
 * connection of its workspace. As a store filter, and as a test of one record.
 */
export function connectionScope(principal: Principal): { workspaceId: string; agentId?: string } {
  return principal.agentId === null
    ? { workspaceId: principal.workspaceId }
    : { workspaceId: principal.workspaceId, agentId: principal.agentId };
}

/** Whether `principal` may see a record owned by this workspace and agent (see `connectionScope`). */
export function canSee(principal: Principal, owner: { workspaceId: string; agentId: string }): boolean {
  return owner.workspaceId === principal.workspaceId && (principal.agentId === null || owner.agentId === principal.agentId);
}

/** A principal acting for one agent: an agent key, or a service key with `x-agent-id`. */
export type AgentPrincipal = Principal & { agentId: string };

/**
 * Returns the principal when it acts for an agent. A service key without `x-agent-id` may only
 * read toolkits and list connections, so anything else throws `invalid_request` telling it how
 * to name the agent.
 */
export function requireAgent(principal: Principal): AgentPrincipal {
  if (principal.agentId === null) {
    throw new ToolsError(
      "invalid_request",
      "This route acts for an agent: with a workspace service key, send the header x-agent-id naming the agent, " +
        "or use the agent's own key.",
    );
  }
  return principal as AgentPrincipal;
}
