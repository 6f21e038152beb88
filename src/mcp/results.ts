import type { HandlerContext } from "../context/context.js";
import type { ToolsError } from "../core/errors.js";
import type { AgentPrincipal } from "../core/principal.js";
import type { ExecutionResult } from "../core/results.js";
import { connectToolkit } from "../routes/auth.js";
import type { Toolkit } from "../toolkits/define.js";

/** A `tools/call` answer (the 2025-11-25 `CallToolResult`). */
export interface McpCallResult {
  [key: string]: unknown;
  content: Array<{ type: "text"; text: string }>;
  structuredContent?: Record<string, unknown>;
  isError?: boolean;
}

/**
 * A tool's ExecutionResult as MCP answers it. Success: the data as JSON text, and as
 * `structuredContent` (an object as it is; any other value as `{ value }`, since MCP's structured
 * content is an object). Failure: `isError`, the error with its code and what to do about
 * retrying, and those fields as `structuredContent`.
 */
export function fromExecution(result: ExecutionResult): McpCallResult {
  if (result.successful) {
    const data = result.data;
    const structured =
      typeof data === "object" && data !== null && !Array.isArray(data) ? (data as Record<string, unknown>) : { value: data };
    return { content: [{ type: "text", text: JSON.stringify(data) }], structuredContent: structured };
  }
  const { data: _data, successful: _successful, ...failure } = result;
  return { content: [{ type: "text", text: `${result.error}${retryAdvice(result)}` }], structuredContent: failure, isError: true };
}

/** The sentence after a failure's message: its code, and whether and when to retry. */
function retryAdvice(result: ExecutionResult): string {
  const code = result.code ? ` (code ${result.code})` : "";
  if (!result.retryable) return `${code} Retrying the same call will not help.`;
  const wait = result.retryAfterMs !== undefined ? `after ${Math.ceil(result.retryAfterMs / 1000)} seconds` : "in a moment";
  return `${code} The same call may succeed if retried ${wait}.`;
}

/** A refusal of the call (bad arguments, no connection, a foreign staged file) as a tool error with its code. */
export function fromRefusal(error: ToolsError): McpCallResult {
  return {
    content: [{ type: "text", text: error.message }],
    structuredContent: { error: error.message, code: error.code, retryable: error.code === "unavailable" },
    isError: true,
  };
}

/**
 * The tool error of a call that needs a connection the agent lacks. An authorization is started
 * for the agent, as `POST /auth` without credentials does: an OAuth sign-in, or a connect link
 * whose page asks the person for the key. Its URL is in the text with what to tell the user. When
 * it cannot start (no publicUrl, an unconfigured provider), the reason is given instead, and for
 * a credential a person types, the command that connects it.
 */
export async function connectionNeeded(
  ctx: HandlerContext,
  agent: AgentPrincipal,
  toolkit: Toolkit,
  refusal: ToolsError,
): Promise<McpCallResult> {
  const lines = [refusal.message];
  let authorizationUrl: string | undefined;
  let minutes = 10;
  try {
    const started = await connectToolkit(ctx, agent, { toolkit: toolkit.slug });
    if ("authorizationUrl" in started) {
      authorizationUrl = started.authorizationUrl;
      minutes = Math.round((Date.parse(started.expiresAt) - Date.now()) / 60_000);
    }
  } catch (error) {
    if (toolkit.auth.type === "oauth2") lines.push(`Connecting ${toolkit.name} could not start: ${(error as Error).message}`);
  }
  const oauth = authorizationUrl !== undefined && !new URL(authorizationUrl).pathname.startsWith(`${ctx.basePath}/connect/`);
  if (authorizationUrl) {
    const act = oauth ? "sign in and approve" : `enter the ${toolkit.name} credential there`;
    lines.push(
      `To connect ${toolkit.name}, the user opens this URL in a browser and ${oauth ? "approves access" : "enters the credential"} (it works once, for ${minutes} minutes): ${authorizationUrl}`,
      `Tell the user: "I need access to ${toolkit.name} to do this. Please open this link, ${act}, then tell me when you are done: ${authorizationUrl}". ` +
        "Then call the tool again.",
    );
  } else if (toolkit.auth.type !== "oauth2") {
    lines.push(
      `${toolkit.name} connects with a credential a person types (${toolkit.auth.type}). Tell the user: ` +
        `"I need a connection to ${toolkit.name}: please connect it with \`npx tools-proxy auth ${toolkit.slug}\`, or in the app that gave me this server." ` +
        "Then call the tool again.",
    );
  }
  return {
    content: [{ type: "text", text: lines.join("\n\n") }],
    structuredContent: { error: refusal.message, code: refusal.code, retryable: false, ...(authorizationUrl ? { authorizationUrl } : {}) },
    isError: true,
  };
}
