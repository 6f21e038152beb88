/**
 * A toolkit's tool as MCP's `tools/list` describes it (src/mcp/tools.ts): schema, title, hints,
 * icon only when a client can load it, and the staging sentence when an argument is a file.
 */
import { describe, expect, it } from "vitest";
import { mcpTool, stagingHint, takesFiles } from "../../src/mcp/tools.js";
import type { Tool, Toolkit } from "../../src/toolkits/define.js";

const ctx = { basePath: "/api", publicUrl: new URL("https://app.test/ignored") };
const FILE = { type: "object", properties: { doc: { type: "string", format: "tools-proxy-staging-key" } } };
const tool = (extra: Partial<Tool> = {}) =>
  ({ slug: "T", name: "Title", description: "Does it.", inputParameters: { type: "object", properties: {} }, ...extra }) as Tool;
const toolkit = (icon?: string) => ({ slug: "k", name: "K", ...(icon === undefined ? {} : { icon }) }) as unknown as Toolkit;

describe("stagingHint and takesFiles", () => {
  it("names the upload URL on publicUrl's origin under basePath, or only the path without one", () => {
    expect(stagingHint(ctx)).toBe(
      'Files: an argument of format "tools-proxy-staging-key" takes a staging key. Upload the file first with POST https://app.test/api/upload (multipart/form-data, the file in the part "file", the same API key) and pass the stagingKey it answers.',
    );
    expect(stagingHint({ basePath: "", publicUrl: null })).toContain("with POST /upload (multipart");
  });

  it("sees a staged-file argument at any depth, and nothing else", () => {
    expect(takesFiles(FILE)).toBe(true);
    expect(takesFiles({ type: "object", properties: { a: { type: "array", items: FILE } } })).toBe(true);
    expect(takesFiles({ type: "object", properties: { a: { type: "string", format: "uri" } } })).toBe(false);
  });
});

describe("mcpTool", () => {
  it("has the name given, the tool's name as title, its description and an object schema", () => {
    const described = mcpTool(ctx, toolkit(), tool({ inputParameters: { properties: { n: { type: "number" } } } }), "T_1");
    expect(described).toStrictEqual({
      name: "T_1",
      title: "Title",
      description: "Does it.",
      inputSchema: { properties: { n: { type: "number" } }, type: "object" },
    });
  });

  it("adds the staging sentence when an argument is a file", () => {
    expect(mcpTool(ctx, toolkit(), tool({ inputParameters: FILE }), "T").description).toBe(`Does it. ${stagingHint(ctx)}`);
  });

  it("gives each hint the tool sets, false included, and none it does not", () => {
    expect(
      mcpTool(ctx, toolkit(), tool({ annotations: { readOnly: false, destructive: true, idempotent: false, openWorld: true } }), "T")
        .annotations,
    ).toStrictEqual({ readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: true });
    expect(mcpTool(ctx, toolkit(), tool({ annotations: {} }), "T").annotations).toStrictEqual({});
    expect(mcpTool(ctx, toolkit(), tool({ annotations: { readOnly: true } }), "T").annotations).toStrictEqual({ readOnlyHint: true });
  });

  it("gives the toolkit's icon when it is an http(s) URL, typed as SVG when it is one", () => {
    expect(mcpTool(ctx, toolkit("https://icons.test/k.svg"), tool(), "T").icons).toStrictEqual([
      { src: "https://icons.test/k.svg", mimeType: "image/svg+xml" },
    ]);
    expect(mcpTool(ctx, toolkit("http://icons.test/k.png"), tool(), "T").icons).toStrictEqual([{ src: "http://icons.test/k.png" }]);
    expect(mcpTool(ctx, toolkit("catalog:github"), tool(), "T").icons).toStrictEqual([
      { src: "https://app.test/api/icons/github.svg", mimeType: "image/svg+xml" },
    ]);
  });

  it("gives no icon a client cannot load: none, a data URL, a path", () => {
    for (const icon of [undefined, "", "data:image/svg+xml,<svg/>", "/icons/k.svg", "xhttps://icons.test/k.svg"]) {
      expect(mcpTool(ctx, toolkit(icon), tool(), "T"), String(icon)).not.toHaveProperty("icons");
    }
    expect(mcpTool({ basePath: "", publicUrl: null }, toolkit("catalog:github"), tool(), "T")).not.toHaveProperty("icons");
  });
});
