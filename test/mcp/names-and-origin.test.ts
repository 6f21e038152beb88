/**
 * The MCP names of tool slugs (valid slugs kept, others made valid, stable and unique) and the
 * Origin check of the MCP route (src/mcp/names.ts, src/mcp/origin.ts), unit by unit.
 */
import { describe, expect, it } from "vitest";
import { MCP_TOOL_NAME, mcpToolNames } from "../../src/mcp/names.js";
import { refuseForeignOrigin } from "../../src/mcp/origin.js";

/** FNV-1a 32-bit, written out from its definition, to check the suffix. */
function fnv1a(text: string): string {
  let h = 0x811c9dc5;
  for (const char of text) h = Math.imul(h ^ char.charCodeAt(0), 0x01000193);
  return (h >>> 0).toString(16).padStart(8, "0");
}

describe("MCP_TOOL_NAME", () => {
  it("takes 1 to 64 letters, digits, _ and -", () => {
    for (const ok of ["a", "A_b-9", "x".repeat(64)]) expect(MCP_TOOL_NAME.test(ok), ok).toBe(true);
    for (const bad of ["", "x".repeat(65), "a.b", "a b", ".a", "a."]) expect(MCP_TOOL_NAME.test(bad), bad).toBe(false);
  });
});

describe("mcpToolNames", () => {
  it("keeps a valid slug and maps each other character to _", () => {
    const { nameOf, slugOf } = mcpToolNames(["GITHUB_GET_USER", "misc.dotted", "a b/c"]);
    expect(nameOf.get("GITHUB_GET_USER")).toBe("GITHUB_GET_USER");
    expect(nameOf.get("misc.dotted")).toBe("misc_dotted");
    expect(nameOf.get("a b/c")).toBe("a_b_c");
    expect(slugOf.get("misc_dotted")).toBe("misc.dotted");
    expect(slugOf.get("GITHUB_GET_USER")).toBe("GITHUB_GET_USER");
    expect(slugOf.size).toBe(3);
  });

  it("never gives a valid slug's name to another, whatever the order", () => {
    for (const slugs of [
      ["misc.dotted", "misc_dotted"],
      ["misc_dotted", "misc.dotted"],
    ]) {
      const { nameOf } = mcpToolNames(slugs);
      expect(nameOf.get("misc_dotted")).toBe("misc_dotted");
      expect(nameOf.get("misc.dotted")).toBe(`misc_dotted_${fnv1a("misc.dotted")}`);
    }
  });

  it("cuts a name over 64 characters to 55 and adds _ and the slug's 8-digit hash", () => {
    const long = `${"a".repeat(70)}.x`;
    const name = mcpToolNames([long]).nameOf.get(long)!;
    expect(name).toBe(`${"a".repeat(55)}_${fnv1a(long)}`);
    expect(name).toHaveLength(64);
    expect(MCP_TOOL_NAME.test(name)).toBe(true);
    const exact = "b".repeat(64);
    expect(mcpToolNames([`${exact.slice(0, 63)}.`]).nameOf.get(`${exact.slice(0, 63)}.`)).toBe(`${"b".repeat(63)}_`);
  });

  it("gives the hash with leading zeros, and different slugs different names", () => {
    const slugs = Array.from({ length: 300 }, (_, i) => `${"c".repeat(64)}${i}`);
    const { nameOf } = mcpToolNames(slugs);
    expect(new Set(nameOf.values()).size).toBe(300);
    for (const slug of slugs) expect(nameOf.get(slug)).toBe(`${"c".repeat(55)}_${fnv1a(slug)}`);
    // A slug whose hash starts with 0 keeps the zero (padStart).
    const zero = Array.from({ length: 5000 }, (_, i) => `z.${i}`).find((slug) => fnv1a(slug).startsWith("0"))!;
    expect(zero).toBeDefined();
    const taken = zero.replace(".", "_");
    expect(mcpToolNames([taken, zero]).nameOf.get(zero)).toBe(`${taken}_${fnv1a(zero)}`);
  });
});

describe("refuseForeignOrigin", () => {
  const request = (origin?: string) => new Request("https://app.test/mcp", { method: "POST", headers: origin ? { origin } : {} });

  it("lets a request without Origin, from an allowed origin, or any when * is allowed go on", () => {
    expect(refuseForeignOrigin(request(), { browserOrigins: [] })).toBeNull();
    expect(refuseForeignOrigin(request("https://app.test"), { browserOrigins: ["https://other.test", "https://app.test"] })).toBeNull();
    expect(refuseForeignOrigin(request("https://evil.test"), { browserOrigins: "*" })).toBeNull();
  });

  it("refuses another origin with 403 and a JSON-RPC error without an id", async () => {
    const refused = refuseForeignOrigin(request("https://evil.test"), { browserOrigins: ["https://app.test"] })!;
    expect(refused.status).toBe(403);
    expect(refused.headers.get("content-type")).toBe("application/json; charset=utf-8");
    expect(await refused.json()).toEqual({
      jsonrpc: "2.0",
      error: {
        code: -32000,
        message:
          "This MCP server does not accept requests from pages of this origin. Its operator can allow the origin with the publicUrl or cors option.",
      },
      id: null,
    });
  });
});
