/**
 * The CLI prints the server's error sentences with their HTTP words (routes, fields) swapped for
 * its commands and flags (src/cli/server-words.ts). Each case here makes a real handler say the
 * sentence, so that a change of wording on either side fails here rather than letting HTTP words
 * back into the CLI's messages; the rest of the sentence (ids, labels) must survive.
 */
import { describe, expect, it } from "vitest";
import { demoToolkit } from "../../src/cli/demo-toolkit.js";
import { inCliWords } from "../../src/cli/server-words.js";
import { apiKey, createToolsHandler, defineToolkit, issueApiKey, memoryStore } from "../../src/index.js";

const HTTP_WORDS =
  /\b(GET|POST) \/|connection_id|"params"|\bparams\.\w|"config"|\bconfig\.\w|bodyFile|"body"|nextCursor|\b(query|body)\.\w/;

async function setup() {
  const store = memoryStore();
  const shop = defineToolkit({
    slug: "shop",
    name: "Shop",
    description: "",
    baseUrl: "https://{shop}.shop.test",
    auth: apiKey({ in: "header", name: "x-key" }),
    tools: [],
  });
  const tools = createToolsHandler({
    store,
    toolkits: [demoToolkit("http://127.0.0.1:9"), shop],
    secret: "server-words-test-secret-0123456789abcdef",
  });
  const { key } = await issueApiKey(store, { workspaceId: "w", agentId: "a" });
  const call = async (method: string, path: string, body?: unknown) => {
    const response = await tools(
      new Request(`http://local/proxy/tools${path}`, {
        method,
        headers: { "x-api-key": key, ...(body === undefined ? {} : { "content-type": "application/json" }) },
        body: body === undefined ? undefined : JSON.stringify(body),
      }),
    );
    return ((await response.json()) as { error: string }).error;
  };
  return { call };
}

describe("the server's sentences in the CLI's words", () => {
  it("swaps every route and field the server names for a command or flag, and keeps the rest", async () => {
    const { call } = await setup();
    const connect = () => call("POST", "/auth", { toolkit: "demo", credentials: { apiKey: "demo-key" }, label: `Label ${Math.random()}` });
    const required = await call("POST", "/execute", { tool: "DEMO_LIST_NOTES", arguments: {} });
    await connect();
    const notes = "http://127.0.0.1:9/demo-api/v1/notes";
    const stagedBodyFile = await call("POST", "/proxy", { toolkit: "demo", method: "POST", url: notes, bodyFile: `stg_${"A".repeat(43)}` });
    const getWithBodyFile = await call("POST", "/proxy", { toolkit: "demo", method: "GET", url: notes, bodyFile: `stg_${"A".repeat(43)}` });
    const getWithBody = await call("POST", "/proxy", { toolkit: "demo", method: "GET", url: notes, body: "x" });
    await connect();
    const ambiguous = await call("POST", "/execute", { tool: "DEMO_LIST_NOTES", arguments: {} });
    const cases: Array<[string, string]> = [
      [required, 'Connect it first with "tools-proxy auth demo".'],
      [ambiguous, "Pass --connection ID to choose one."],
      [
        await call("POST", "/execute", { tool: "DEMO_LIST_NOTES", arguments: {}, connection_id: "conn_nope" }),
        'List yours with "tools-proxy connections --toolkit demo".',
      ],
      [await call("DELETE", "/connections/conn_nope"), 'List yours with "tools-proxy connections".'],
      [await call("GET", "/toolkit/demo?connection_id=conn_nope"), 'List yours with "tools-proxy connections".'],
      [await call("GET", "/toolkit/nope"), 'Find toolkits with "tools-proxy search WORDS".'],
      [await call("POST", "/execute", { tool: "NOPE_TOOL", arguments: {} }), 'Find tools with "tools-proxy toolkit search TOOLKIT WORDS".'],
      [
        await call("POST", "/execute", { tool: "DEMO_WORD_COUNT", arguments: { file: `stg_${"A".repeat(43)}` } }),
        'upload it again with "tools-proxy upload FILE"',
      ],
      [await call("GET", `/files/stg_${"A".repeat(43)}`), 'upload it again with "tools-proxy upload FILE".'],
      [await call("GET", "/search?cursor=garbage"), "pass a cursor that an earlier page printed, unchanged."],
      [await call("POST", "/auth", { toolkit: "shop", credentials: { apiKey: "k" } }), "needs --param shop=VALUE:"],
      [
        await call("POST", "/auth", { toolkit: "shop", credentials: { apiKey: "k" }, config: { shop: "a", other: "b" } }),
        "--param other is not an input",
      ],
      [
        await call("POST", "/auth", { toolkit: "shop", credentials: { apiKey: "k" }, config: { shop: "a.b" } }),
        "--param shop is not valid",
      ],
      [stagedBodyFile, "--body-file: "],
      [getWithBodyFile, "or leave out --body-file."],
      [getWithBody, "or leave out --body."],
      [await call("GET", "/search?limit=500"), "--limit"],
      [await call("POST", "/execute", { tool: "DEMO_LIST_NOTES", arguments: {}, connection_id: "x".repeat(200) }), "--connection"],
    ];
    for (const [server, expected] of cases) {
      expect(server, "the server's own words").toMatch(HTTP_WORDS);
      const cli = inCliWords(server);
      expect(cli, server).toContain(expected);
      expect(cli, server).not.toMatch(HTTP_WORDS);
    }
    // The sentence keeps what only the server knows: here, the ids and labels of the connections.
    expect(inCliWords(ambiguous)).toMatch(
      /^Several active connections to "demo": conn_\S+ \("Label [\d.]+"\), conn_\S+ \("Label [\d.]+"\)\. Pass --connection ID/,
    );
  });

  it("leaves a sentence with no HTTP words as it is", () => {
    expect(inCliWords("Invalid API key. Check that the key is complete and has not been revoked.")).toBe(
      "Invalid API key. Check that the key is complete and has not been revoked.",
    );
  });
});
