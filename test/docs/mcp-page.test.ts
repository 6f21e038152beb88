/**
 * docs/guide/mcp.md: each client configuration the page shows (Claude Desktop through mcp-remote,
 * Cursor, VS Code) is read as that client reads it (its server entry, the URL and the headers,
 * with the client's own placeholders filled in) and used by the MCP SDK's client against a real
 * handler: the URL must be the MCP route and the header must carry the key as the server takes it.
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { describe, expect, it } from "vitest";
import { createToolsHandler, issueApiKey, memoryStore } from "../../src/index.js";
import { codeBlocks } from "./markdown.js";

const PAGE = "docs/guide/mcp.md";
const blocks = codeBlocks(PAGE).filter((b) => b.marker?.kind === "checked by" && b.lang === "json");

interface Entry {
  url: string;
  headers: Record<string, string>;
}

/** What a client makes of its config: the server's URL and headers, placeholders filled with `key`. */
function readConfig(config: Record<string, unknown>, key: string): Entry {
  if ("servers" in config) {
    // VS Code: servers.<name> { type: "http", url, headers }, ${input:id} from the inputs (asked once).
    const [server] = Object.values(config.servers as Record<string, { type: string; url: string; headers: Record<string, string> }>);
    expect(server!.type).toBe("http");
    const ids = (config.inputs as Array<{ id: string; type: string; password?: boolean }>).map((i) => {
      expect(i).toMatchObject({ type: "promptString", password: true });
      return i.id;
    });
    return { url: server!.url, headers: fill(server!.headers, (name) => (ids.includes(name.replace(/^input:/, "")) ? key : null)) };
  }
  const [server] = Object.values(config.mcpServers as Record<string, Record<string, unknown>>);
  if ("url" in server!) {
    // Cursor: mcpServers.<name> { url, headers }, ${env:NAME} from the environment.
    return {
      url: server.url as string,
      headers: fill(server.headers as Record<string, string>, (name) => (name.startsWith("env:") ? key : null)),
    };
  }
  // Claude Desktop: npx mcp-remote <url> --header "Name:value", ${NAME} from the entry's env.
  expect(server!.command).toBe("npx");
  const args = server!.args as string[];
  expect(args.slice(0, 2)).toEqual(["-y", "mcp-remote"]);
  const env = server!.env as Record<string, string>;
  const header = args[args.indexOf("--header") + 1]!;
  const [name, value] = [header.slice(0, header.indexOf(":")), header.slice(header.indexOf(":") + 1)];
  const filled = value.replace(/\$\{(\w+)\}/g, (_, variable: string) => env[variable]!.replace("pak_...", key));
  return { url: args[2]!, headers: { [name]: filled.trim() } };
}

function fill(headers: Record<string, string>, value: (placeholder: string) => string | null): Record<string, string> {
  return Object.fromEntries(
    Object.entries(headers).map(([name, text]) => [
      name,
      text.replace(/\$\{([^}]+)\}/g, (whole, placeholder: string) => value(placeholder) ?? whole),
    ]),
  );
}

describe(PAGE, () => {
  it("shows the three client configurations", () => {
    expect(blocks).toHaveLength(3);
  });

  it.each(blocks.map((block) => ({ block, at: `${block.doc}:${block.line}` })))(
    "$at connects to the MCP server and lists its tools",
    async ({ block }) => {
      const store = memoryStore();
      const tools = createToolsHandler({ store, secret: "docs-test-secret-of-at-least-thirty-two-bytes" });
      const { key } = await issueApiKey(store, { workspaceId: "docs", agentId: "agent" });
      const entry = readConfig(JSON.parse(block.code), key);
      expect(entry.url).toBe("http://127.0.0.1:8787/proxy/tools/mcp");
      expect(Object.values(entry.headers).join(" "), "every placeholder filled").not.toMatch(/\$\{|pak_\.\.\./);
      const client = new Client({ name: "docs", version: "1.0.0" });
      const transport = new StreamableHTTPClientTransport(new URL(entry.url), {
        fetch: (url, init) => tools(new Request(url, init)),
        requestInit: { headers: entry.headers },
      });
      await client.connect(transport);
      try {
        expect((await client.listTools()).tools.map((t) => t.name)).toContain("search_toolkits");
      } finally {
        await client.close();
      }
    },
  );
});
