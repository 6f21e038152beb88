/**
 * A remote MCP server's tools as agents use them, end to end over real HTTP (see
 * end-to-end.test.ts): our own `/mcp` called by the MCP SDK's own `Client` over the network
 * (`?toolkits=` and the meta-tools), an AI SDK agent loop through the `tools-proxy/client`
 * adapter, and the code flow signed in by a real browser (Chromium). Each agent sees the tools of
 * its own connection only.
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { generateText, stepCountIs } from "ai";
import { MockLanguageModelV4 } from "ai/test";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { mcpToolkit } from "../../src/catalog/index.js";
import { aiSdkTools } from "../../src/client/agents/ai-sdk.js";
import { loadTools } from "../../src/client/agents/index.js";
import { defineToolkit, type Toolkit } from "../../src/index.js";
import { CHROMIUM_MISSING, chromiumAvailable, keepBrowserLocal, launchChromium, signInAndConsent } from "../support/oidc-browser.js";
import { type E2e, startE2e, uniqueName, waitFor } from "../support/remote-mcp-e2e.js";
import { DEFAULT_USERS, type RemoteMcp, startRemoteMcp } from "../support/remote-mcp-server.js";

let remote: RemoteMcp;
let toolkit: Toolkit;
/** The catalog's Linear MCP entry, its server moved to the fixture. */
let catalogEntry: Toolkit;
let e: E2e;
let alice: string;
let bob: string;
const clients: Client[] = [];

beforeAll(async () => {
  remote = await startRemoteMcp();
  toolkit = defineToolkit({
    slug: uniqueName("notes"),
    name: "Fixture notes",
    description: "The fixture's notes MCP server.",
    mcp: remote.url,
  });
  // The catalog's own definition (name, icon, aliases, categories, docs), pointed at the fixture: its
  // MCP authorization mode is then made for the fixture's URL.
  catalogEntry = defineToolkit({ ...mcpToolkit("linear", { slug: uniqueName("linear-mcp") }), mcp: remote.url, auth: undefined });
  e = await startE2e({ toolkits: [toolkit, catalogEntry], timeouts: { toolMs: 30_000 } });
  alice = await e.issueAgentKey();
  bob = await e.issueAgentKey();
  await e.connect(alice, toolkit.slug, "alice");
  await e.connect(bob, toolkit.slug, "bob");
}, 60_000);

afterAll(async () => {
  await Promise.all(clients.map((client) => client.close().catch(() => undefined)));
  e.assertNo500();
  e.assertNoLeaks();
  expect(e.bearerTokensSent.length).toBeGreaterThan(0);
  expect(remote.authorizationServer?.serverErrors).toEqual([]);
  await e?.close();
  await remote?.close();
});

/** The SDK's client connected to our /mcp over HTTP with an agent's key. */
async function ourMcp(key: string, query = ""): Promise<Client> {
  const client = new Client({ name: "end-to-end", version: "1.0.0" });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${e.baseUrl}/mcp${query}`), {
      requestInit: { headers: { authorization: `Bearer ${key}` } },
    }),
  );
  clients.push(client);
  return client;
}

const textOf = (result: Record<string, unknown>) =>
  ((result.content ?? []) as Array<{ text?: string }>).map((c) => c.text ?? "").join("\n");

describe("our /mcp, called by the MCP SDK's own client over HTTP", () => {
  it("?toolkits= lists the connection's remote tools and calls them, with the structured result", async () => {
    const client = await ourMcp(alice, `?toolkits=${toolkit.slug}`);
    const { tools } = await client.listTools();
    expect(tools).toHaveLength(DEFAULT_USERS.alice!.length);
    for (const tool of tools) expect(tool.name).toMatch(/^[A-Za-z0-9_-]{1,64}$/);
    const add = tools.find((t) => t.title === "Add a note")!;
    expect(add).toMatchObject({
      description: expect.stringContaining("Adds a note for the caller"),
      inputSchema: { type: "object", required: ["title"] },
      annotations: { readOnlyHint: false, destructiveHint: false },
    });
    const title = `via our mcp ${uniqueName("t")}`;
    const result = await client.callTool({ name: add.name, arguments: { title } });
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent).toEqual({ id: expect.stringMatching(/^alice-\d+$/), title });
    expect(remote.notes("alice").map((n) => n.title)).toContain(title);

    const fails = tools.find((t) => t.description === "Always answers with a tool error (isError: true).")!;
    const failed = await client.callTool({ name: fails.name, arguments: {} });
    expect(failed.isError).toBe(true);
    expect(textOf(failed)).toContain("the note service is unavailable");
  });

  it("bob's client lists bob's tools, never alice's admin report", async () => {
    const client = await ourMcp(bob, `?toolkits=${toolkit.slug}`);
    const { tools } = await client.listTools();
    expect(tools).toHaveLength(DEFAULT_USERS.bob!.length);
    expect(tools.map((t) => t.title ?? t.description)).not.toContain("Admin report");
    expect(JSON.stringify(tools)).not.toContain("admin_report");
    const echo = tools.find((t) => t.description === "Returns its text and the caller's user name.")!;
    const result = await client.callTool({ name: echo.name, arguments: { text: "bob here" } });
    expect(result.structuredContent).toEqual({ text: "bob here", user: "bob" });
  });

  it("the meta-tools find, describe and execute a remote tool", async () => {
    const client = await ourMcp(alice);
    const found = await client.callTool({ name: "search_tools", arguments: { toolkit: toolkit.slug, query: "echo text user" } });
    expect(found.isError).toBeFalsy();
    const slugs = (found.structuredContent as { tools: Array<{ slug: string }> }).tools.map((t) => t.slug);
    expect(slugs).toContain(`${toolkit.slug}.echo`);
    const described = await client.callTool({ name: "get_tool", arguments: { tool: `${toolkit.slug}.add_note` } });
    expect(described.structuredContent).toMatchObject({ toolkit: toolkit.slug, inputParameters: { required: ["title"] } });
    const run = await client.callTool({ name: "execute_tool", arguments: { tool: `${toolkit.slug}.echo`, arguments: { text: "meta" } } });
    expect(run.isError).toBeFalsy();
    expect(run.structuredContent).toEqual({ text: "meta", user: "alice" });

    // bob's meta-tools do not find or run alice's admin report.
    const bobs = await ourMcp(bob);
    const bobFound = await bobs.callTool({ name: "search_tools", arguments: { toolkit: toolkit.slug, query: "admin report" } });
    expect(JSON.stringify(bobFound.structuredContent)).not.toContain("admin_report");
    const calls = remote.stats.toolCalls.admin_report ?? 0;
    const refused = await bobs.callTool({ name: "execute_tool", arguments: { tool: `${toolkit.slug}.admin_report`, arguments: {} } });
    expect(refused.isError).toBe(true);
    expect(remote.stats.toolCalls.admin_report ?? 0).toBe(calls);
  });
});

describe("a catalog provider's MCP entry", () => {
  it("is found by the provider's name and serves the connection's tools", { timeout: 60_000 }, async () => {
    const key = await e.issueAgentKey();
    await e.connect(key, catalogEntry.slug, "bob");
    const details = await e.call("GET", `/toolkit/${catalogEntry.slug}`, { key });
    expect(details.json, details.text).toMatchObject({ name: "Linear (MCP)", docsUrl: expect.stringMatching(/^https:\/\//) });
    expect(details.json.tools.map((t: { slug: string }) => t.slug).sort()).toEqual(
      DEFAULT_USERS.bob!.map((n) => `${catalogEntry.slug}.${n}`).sort(),
    );
    const found = await e.call("GET", "/search?keywords=linear%20mcp", { key });
    expect(found.json.toolkits[0]).toMatchObject({ slug: catalogEntry.slug, connected: true, toolCount: DEFAULT_USERS.bob!.length });
    const echo = await e.execute(key, `${catalogEntry.slug}.echo`, { text: "catalog" });
    expect(echo.json, echo.text).toMatchObject({ successful: true, data: { text: "catalog", user: "bob" } });
  });
});

describe("an agent loop through the tools-proxy/client AI SDK adapter", () => {
  it("the model calls remote tools by name; the results come back to it", async () => {
    const toolset = await loadTools({ baseUrl: e.baseUrl, apiKey: alice }, { toolkits: [toolkit.slug] });
    const nameOf = (remoteName: string) => toolset.tools.find((t) => t.slug === `${toolkit.slug}.${remoteName}`)!.name;
    expect(toolset.tools.map((t) => t.slug).sort()).toEqual(DEFAULT_USERS.alice!.map((n) => `${toolkit.slug}.${n}`).sort());
    const title = `from the model ${uniqueName("t")}`;
    const usage = {
      inputTokens: { total: 1, noCache: 1, cacheRead: undefined, cacheWrite: undefined },
      outputTokens: { total: 1, text: 1, reasoning: undefined },
    };
    const model = new MockLanguageModelV4({
      doGenerate: [
        {
          content: [
            { type: "tool-call", toolCallId: "call_1", toolName: nameOf("add_note"), input: JSON.stringify({ title }) },
            { type: "tool-call", toolCallId: "call_2", toolName: nameOf("always_fails"), input: "{}" },
          ],
          finishReason: { unified: "tool-calls", raw: "tool_calls" },
          usage,
          warnings: [],
        },
        { content: [{ type: "text", text: "Noted." }], finishReason: { unified: "stop", raw: "stop" }, usage, warnings: [] },
      ],
    });
    const result = await generateText({
      model,
      tools: aiSdkTools(toolset, { strict: true }),
      stopWhen: stepCountIs(4),
      prompt: "Add a note.",
    });
    expect(result.text).toBe("Noted.");
    const outputs = Object.fromEntries(result.steps.flatMap((step) => step.toolResults.map((r) => [r.toolCallId, r.output])));
    expect(outputs.call_1).toEqual({ id: expect.stringMatching(/^alice-\d+$/), title });
    expect(outputs.call_2).toMatchObject({ successful: false, error: expect.stringContaining("the note service is unavailable") });
    expect(remote.notes("alice").map((n) => n.title)).toContain(title);
    // The model's tools carried the remote schemas.
    const given = model.doGenerateCalls[0]!.tools ?? [];
    expect(given.map((t) => t.name)).toContain(nameOf("add_note"));
  });
});

const BROWSER = "the code flow signed in by Chromium: the browser lands on our callback, and the connection's tools work";
describe.skipIf(!chromiumAvailable)(
  `a remote MCP server connected in a real browser${chromiumAvailable ? "" : ` (${CHROMIUM_MISSING})`}`,
  () => {
    it(BROWSER, { timeout: 120_000 }, async () => {
      const key = await e.issueAgentKey();
      const started = await e.startAuth(key, toolkit.slug);
      const browser = await launchChromium();
      try {
        const context = await browser.newContext();
        await keepBrowserLocal(context);
        const page = await context.newPage();
        await page.goto(started.authorizationUrl);
        const landed = await signInAndConsent(page, { login: "bob", timeoutMs: 30_000 });
        expect(`${landed.origin}${landed.pathname}`).toBe(`${e.baseUrl}/auth/callback`);
        const code = landed.searchParams.get("code");
        if (code) e.addSecret(code);
      } finally {
        await browser.close();
      }
      let status: { status?: string; connectionId?: string } = {};
      await waitFor("the browser's callback to connect", async () => {
        status = (await e.call("GET", `/auth/${started.authorizationId}`, { key })).json;
        return status.status !== "pending";
      });
      expect(status).toMatchObject({ status: "connected", connectionId: expect.any(String) });
      const echo = await e.execute(key, `${toolkit.slug}.echo`, { text: "from the browser's connection" });
      expect(echo.json, echo.text).toMatchObject({ successful: true, data: { text: "from the browser's connection", user: "bob" } });
    });
  },
);
