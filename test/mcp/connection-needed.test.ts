/**
 * What connectionNeeded tells an agent whose call needs a connection (src/mcp/results.ts): an
 * OAuth sign-in or a connect link with its lifetime and the sentence for the user; why connecting
 * could not start for OAuth; the `npx tools-proxy auth` command for a typed credential. Starting
 * the authorization (POST /auth's connectToolkit) is stubbed here; handler.test.ts proves it over HTTP.
 */
import { beforeEach, describe, expect, it, vi } from "vitest";
import type { HandlerContext } from "../../src/context/context.js";
import { ToolsError } from "../../src/core/errors.js";
import type { AgentPrincipal } from "../../src/core/principal.js";
import { connectionNeeded } from "../../src/mcp/results.js";
import type { Toolkit } from "../../src/toolkits/define.js";

// A plain stub rather than vi.fn: a vi.fn rejection failed the test here although connectionNeeded caught it.
const stub = vi.hoisted(() => ({ calls: [] as unknown[][], next: async (): Promise<unknown> => null }));
vi.mock("../../src/routes/auth.js", () => ({
  connectToolkit: (...args: unknown[]) => {
    stub.calls.push(args);
    return stub.next();
  },
}));
/** What the stubbed connectToolkit answers next. */
const answers = (value: unknown) => {
  stub.next = async () => value;
};
const fails = (error: Error) => {
  stub.next = async () => {
    throw error;
  };
};

const ctx = { basePath: "/proxy/tools" } as unknown as HandlerContext;
const agent = { workspaceId: "ws", agentId: "agent-1" } as unknown as AgentPrincipal;
const oauthKit = { slug: "notes", name: "Notes", auth: { type: "oauth2" } } as unknown as Toolkit;
const keyKit = { slug: "keyed", name: "Keyed", auth: { type: "apiKey" } } as unknown as Toolkit;
const refusal = new ToolsError("connection_required", "No connection to Notes.");
const inMinutes = (m: number) => new Date(Date.now() + m * 60_000 + 1_000).toISOString();

beforeEach(() => {
  stub.calls = [];
});

describe("connectionNeeded", () => {
  it("starts the authorization for this agent and toolkit", async () => {
    answers({ authorizationUrl: "https://idp.test/authorize?x=1", expiresAt: inMinutes(10) });
    await connectionNeeded(ctx, agent, oauthKit, refusal);
    expect(stub.calls).toEqual([[ctx, agent, { toolkit: "notes" }]]);
  });

  it("gives an OAuth sign-in URL with its lifetime and the sentence to tell the user", async () => {
    const url = "https://idp.test/authorize?state=s";
    answers({ authorizationUrl: url, expiresAt: inMinutes(7) });
    expect(await connectionNeeded(ctx, agent, oauthKit, refusal)).toStrictEqual({
      content: [
        {
          type: "text",
          text:
            "No connection to Notes.\n\n" +
            `To connect Notes, the user opens this URL in a browser and approves access (it works once, for 7 minutes): ${url}\n\n` +
            `Tell the user: "I need access to Notes to do this. Please open this link, sign in and approve, then tell me when you are done: ${url}". ` +
            "Then call the tool again.",
        },
      ],
      structuredContent: { error: "No connection to Notes.", code: "connection_required", retryable: false, authorizationUrl: url },
      isError: true,
    });
  });

  it("gives a connect link (a page under basePath/connect/) as a place to enter the credential", async () => {
    const url = "https://app.test/proxy/tools/connect/auth_abc";
    answers({ authorizationUrl: url, expiresAt: inMinutes(30) });
    const result = await connectionNeeded(ctx, agent, keyKit, refusal);
    expect(result.content[0]!.text).toBe(
      "No connection to Notes.\n\n" +
        `To connect Keyed, the user opens this URL in a browser and enters the credential (it works once, for 30 minutes): ${url}\n\n` +
        `Tell the user: "I need access to Keyed to do this. Please open this link, enter the Keyed credential there, then tell me when you are done: ${url}". ` +
        "Then call the tool again.",
    );
    expect(result.structuredContent).toStrictEqual({
      error: "No connection to Notes.",
      code: "connection_required",
      retryable: false,
      authorizationUrl: url,
    });
  });

  it("takes a URL whose path only resembles the connect page's elsewhere as OAuth", async () => {
    const url = "https://idp.test/other/connect/x";
    answers({ authorizationUrl: url, expiresAt: inMinutes(10) });
    expect((await connectionNeeded(ctx, agent, oauthKit, refusal)).content[0]!.text).toContain(
      "approves access (it works once, for 10 minutes)",
    );
  });

  it("says why an OAuth connection could not start, with no URL", async () => {
    fails(new ToolsError("invalid_request", "Set publicUrl to connect with OAuth."));
    expect(await connectionNeeded(ctx, agent, oauthKit, refusal)).toStrictEqual({
      content: [
        { type: "text", text: "No connection to Notes.\n\nConnecting Notes could not start: Set publicUrl to connect with OAuth." },
      ],
      structuredContent: { error: "No connection to Notes.", code: "connection_required", retryable: false },
      isError: true,
    });
  });

  it("gives the npx tools-proxy auth command for a typed credential when no link could be made", async () => {
    fails(new ToolsError("invalid_request", "Set publicUrl."));
    expect(await connectionNeeded(ctx, agent, keyKit, refusal)).toStrictEqual({
      content: [
        {
          type: "text",
          text:
            "No connection to Notes.\n\n" +
            'Keyed connects with a credential a person types (apiKey). Tell the user: "I need a connection to Keyed: please connect it with ' +
            '`npx tools-proxy auth keyed`, or in the app that gave me this server." Then call the tool again.',
        },
      ],
      structuredContent: { error: "No connection to Notes.", code: "connection_required", retryable: false },
      isError: true,
    });
  });

  it("adds nothing when connecting created a connection rather than a URL", async () => {
    answers({ id: "conn_1" });
    const result = await connectionNeeded(ctx, agent, oauthKit, refusal);
    expect(result.content[0]!.text).toBe("No connection to Notes.");
    expect(result.structuredContent).toStrictEqual({ error: "No connection to Notes.", code: "connection_required", retryable: false });
  });
});
