/**
 * The toolset against a real server: selection by toolkit, by slug and by search; names and
 * schemas; every kind of failure turned into a result the model can read (a failed tool, bad
 * arguments, an unknown tool, a missing connection with its connect link, no server at all);
 * and the API key never in what the model sees.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createToolset, isToolFailure, loadTools, TOOL_NAME_PATTERN } from "../../../src/client/agents/index.js";
import { createToolsClient } from "../../../src/client/index.js";
import { type AgentServer, executeRequests, startAgentServer } from "./server.js";

let s: AgentServer;
beforeAll(async () => {
  s = await startAgentServer();
});
afterAll(() => s.close());

describe("loadTools", () => {
  it("loads whole toolkits, single tools by slug, and tools found by a search", async () => {
    expect((await loadTools(s.client, { toolkits: ["weather"] })).tools.map((t) => t.slug)).toEqual(["WEATHER_FORECAST", "WEATHER_ALERTS"]);
    expect((await loadTools(s.client, { tools: { weather: ["WEATHER_ALERTS"] } })).tools.map((t) => t.slug)).toEqual(["WEATHER_ALERTS"]);
    const found = await loadTools({ baseUrl: s.baseUrl, apiKey: s.key }, { search: { query: "notebook", toolsPerToolkit: 1 } });
    expect(found.tools.map((t) => [t.toolkit, t.slug])).toEqual([["notes", "NOTES_ADD"]]);
    const forecast = await loadTools(s.client, { search: { query: "weather forecast", toolkits: 1, toolsPerToolkit: 1 } });
    expect(forecast.tools.map((t) => t.slug)).toEqual(["WEATHER_FORECAST"]);
    const both = await loadTools(s.client, { toolkits: ["weather"], tools: { weather: ["WEATHER_FORECAST"], notes: ["NOTES_ADD"] } });
    expect(both.tools.map((t) => t.slug)).toEqual(["WEATHER_FORECAST", "WEATHER_ALERTS", "NOTES_ADD"]);
  });

  it("refuses a slug the toolkit lacks, and a toolkit that does not exist, with what exists", async () => {
    await expect(loadTools(s.client, { tools: { weather: ["WEATHER_RADAR"] } })).rejects.toThrow(
      'Toolkit "weather" has no tool "WEATHER_RADAR"; its tools: WEATHER_FORECAST, WEATHER_ALERTS.',
    );
    await expect(loadTools(s.client, { toolkits: ["nope"] })).rejects.toMatchObject({ code: "not_found", status: 404 });
  });

  it("gives each tool a valid, unique name that maps back to its slug", () => {
    const tool = { name: "T", description: "d", inputParameters: { type: "object", properties: {} } };
    const toolset = createToolset(s.client, [
      { ...tool, slug: "a.b", toolkit: "x" },
      { ...tool, slug: "a_b", toolkit: "x" },
      { ...tool, slug: "9lives", toolkit: "x" },
      { ...tool, slug: "x".repeat(80), toolkit: "x" },
      { ...tool, slug: `${"x".repeat(64)}y`, toolkit: "x" },
    ]);
    const names = toolset.tools.map((t) => t.name);
    expect(names).toEqual(["a_b", "a_b_2", "_9lives", "x".repeat(64), `${"x".repeat(62)}_2`]);
    for (const name of names) expect(name).toMatch(TOOL_NAME_PATTERN);
    expect(toolset.get("a_b_2")?.slug).toBe("a_b");
  });
});

describe("run", () => {
  it("executes through POST /execute and resolves with the tool's data", async () => {
    const toolset = await loadTools(s.client, { toolkits: ["weather"] });
    const before = executeRequests(s);
    expect(await toolset.run("WEATHER_FORECAST", '{"city":"Oslo","days":2}')).toEqual({
      ok: true,
      output: { city: "Oslo", units: "celsius", highs: [20, 21] },
    });
    expect(executeRequests(s)).toBe(before + 1);
    expect(s.executed.at(-1)).toEqual({ tool: "WEATHER_FORECAST", successful: true });
  });

  it("drops the nulls a strict schema lets the model send for optional fields", async () => {
    const toolset = await loadTools(s.client, { toolkits: ["weather"] });
    const outcome = await toolset.run("WEATHER_FORECAST", { city: "Oslo", days: null, units: null });
    expect(outcome).toMatchObject({ ok: true, output: { units: "celsius", highs: [20, 21, 22] } });
    expect(s.received.at(-1)).toEqual({ tool: "WEATHER_FORECAST", args: { city: "Oslo" } });
  });

  it("turns a failed tool into a retryable failure with its code", async () => {
    const toolset = await loadTools(s.client, { toolkits: ["weather"] });
    const outcome = await toolset.run("WEATHER_ALERTS", { region: "north" });
    expect(outcome).toEqual({
      ok: false,
      output: {
        successful: false,
        error: "The alerts service answered 503.",
        code: "upstream_error",
        retryable: true,
        retryAfterMs: 2000,
        hint: "This may succeed later: retry once after 2 seconds.",
      },
    });
    expect(isToolFailure(outcome.output)).toBe(true);
  });

  it("turns refused arguments, bad JSON and an unknown name into failures that say what to fix", async () => {
    const toolset = await loadTools(s.client, { toolkits: ["weather"] });
    const executes = executeRequests(s);
    const refused = await toolset.run("WEATHER_FORECAST", { city: "" });
    expect(refused.output).toMatchObject({ successful: false, code: "invalid_request", retryable: false });
    expect((refused.output as { error: string }).error).toContain("city");
    expect(await toolset.run("WEATHER_FORECAST", "{city")).toMatchObject({
      ok: false,
      output: { code: "invalid_request", error: "The arguments are not valid JSON: send one JSON object." },
    });
    expect(await toolset.run("WEATHER_FORECAST", "[1]")).toMatchObject({
      ok: false,
      output: { error: "The arguments must be one JSON object." },
    });
    expect(await toolset.run("WEATHER_RADAR", {})).toMatchObject({
      ok: false,
      output: { code: "not_found", error: 'No tool is named "WEATHER_RADAR". The tools are: WEATHER_FORECAST, WEATHER_ALERTS.' },
    });
    expect(executeRequests(s)).toBe(executes + 1);
  });

  it("answers a missing connection with a link that connects the toolkit, reused for the next call", async () => {
    const toolset = await loadTools(s.client, { toolkits: ["mail"] });
    const auths = () => s.server.requests.filter((r) => r.method === "POST" && r.url === "/proxy/tools/auth").length;
    const before = auths();
    const outcome = await toolset.run("MAIL_SEND", { to: "ada@example.com" });
    expect(outcome.ok).toBe(false);
    const failure = outcome.output as { connectUrl: string; hint: string; code: string; error: string };
    expect(failure.code).toBe("connection_required");
    expect(failure.error).toContain('No active connection to "mail"');
    const url = new URL(failure.connectUrl);
    expect(url.origin + url.pathname).toBe("https://auth.mail.invalid/authorize");
    expect(url.searchParams.get("redirect_uri")).toBe(`${s.server.origin}/proxy/tools/auth/callback`);
    expect(failure.hint).toBe(`Ask the user to open ${failure.connectUrl} to connect "mail", then call the tool again.`);
    expect((await toolset.run("MAIL_SEND", { to: "ada@example.com" })).output).toMatchObject({ connectUrl: failure.connectUrl });
    expect(auths()).toBe(before + 1);

    const noLinks = await loadTools(s.client, { toolkits: ["mail"], connectLinks: false });
    const plain = (await noLinks.run("MAIL_SEND", { to: "x" })).output as Record<string, unknown>;
    expect(plain).toMatchObject({ code: "connection_required", retryable: false });
    expect(plain.connectUrl).toBeUndefined();
    expect(auths()).toBe(before + 1);
  });

  it("gives a connect link for a toolkit whose credential the user types, whose page asks for the key", async () => {
    const toolset = await loadTools(s.client, { toolkits: ["notes"] });
    const failure = (await toolset.run("NOTES_ADD", { text: "hello" })).output as Record<string, unknown>;
    expect(failure).toMatchObject({ successful: false, code: "connection_required", retryable: false });
    expect(failure.connectUrl).toMatch(/\/proxy\/tools\/connect\/auth_[A-Za-z0-9_-]+\.[A-Za-z0-9_-]{43}$/);
    expect(failure.hint).toBe(`Ask the user to open ${failure.connectUrl} to connect "notes", then call the tool again.`);
    expect(s.received.some((r) => r.tool === "NOTES_ADD")).toBe(false);
  });

  it("runs with the connection once there is one, and with the one chosen per toolkit", async () => {
    const other = await startAgentServer();
    try {
      const { connection } = await other.client.connect({ toolkit: "notes", credentials: { apiKey: "notes-key" } });
      const toolset = await loadTools(other.client, { toolkits: ["notes"], connections: { notes: connection.id } });
      expect(await toolset.run("NOTES_ADD", { text: "hi" })).toEqual({ ok: true, output: { id: "note-1", text: "hi" } });
      const wrong = await loadTools(other.client, { toolkits: ["notes"], connections: { notes: "conn_nope" } });
      expect((await wrong.run("NOTES_ADD", { text: "hi" })).output).toMatchObject({ code: "not_found", retryable: false });
    } finally {
      await other.close();
    }
  });

  it("answers a server that cannot be reached with a retryable failure, never the key", async () => {
    const toolset = await loadTools(s.client, { toolkits: ["weather"] });
    const down = createToolset(createToolsClient({ baseUrl: "http://127.0.0.1:1/proxy/tools", apiKey: s.key }), [
      { ...toolset.get("WEATHER_FORECAST")!, inputParameters: toolset.get("WEATHER_FORECAST")!.inputSchema, name: "Forecast" },
    ]);
    const outcome = await down.run("WEATHER_FORECAST", { city: "Oslo" });
    expect(outcome.output).toMatchObject({ successful: false, code: "network_error", retryable: true });
    expect(JSON.stringify(outcome)).not.toContain(s.key);
    const badKey = await loadTools(s.client, { toolkits: ["weather"] });
    const refused = createToolset(createToolsClient({ baseUrl: s.baseUrl, apiKey: "pak_wrong" }), [
      { slug: "WEATHER_FORECAST", name: "F", description: "", inputParameters: badKey.tools[0]!.inputSchema, toolkit: "weather" },
    ]);
    expect((await refused.run("WEATHER_FORECAST", { city: "Oslo" })).output).toMatchObject({ code: "unauthorized", retryable: false });
  });

  it("rejects when its signal aborts, so that the framework stops", async () => {
    const toolset = await loadTools(s.client, { toolkits: ["weather"] });
    await expect(toolset.run("WEATHER_FORECAST", { city: "Oslo" }, { signal: AbortSignal.abort() })).rejects.toMatchObject({
      name: "AbortError",
    });
  });
});
