import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { z } from "zod";
import {
  createToolsHandler,
  defineTool,
  defineToolkit,
  memoryBlobStore,
  memoryStore,
  none,
  type ToolsHandlerOptions,
  type ToolsStore,
} from "../../src/index.js";
import { createHarness, expectError, type Harness, TEST_SECRET } from "../support/harness.js";

const secret = TEST_SECRET;

function thrown(options: unknown): TypeError {
  try {
    createToolsHandler(options as ToolsHandlerOptions);
  } catch (error) {
    expect(error).toBeInstanceOf(TypeError);
    return error as TypeError;
  }
  throw new Error("createToolsHandler did not throw");
}

const tool = (slug: string) => defineTool({ slug, name: slug, description: "", input: z.object({}), run: () => null });

/** A store that is not in memory: every method of the interface, and no in-memory marker. */
function persistentLookingStore(): ToolsStore {
  const inner = memoryStore();
  const methods = Object.keys(inner) as Array<keyof ToolsStore>;
  return Object.fromEntries(
    methods.map((m) => [m, (...args: unknown[]) => (inner[m] as (...a: unknown[]) => unknown)(...args)]),
  ) as unknown as ToolsStore;
}

describe("createToolsHandler validates its options", () => {
  it.each([
    ["a short secret", { secret: "too-short" }, /option "secret" must be at least 32 bytes/],
    ["a short secret in a rotation list", { secret: [secret, "short"] }, /option "secret\.1" must be at least 32 bytes/],
    ["an empty secret list", { secret: [] }, /option "secret"/],
    ["a relative basePath", { secret, basePath: "proxy/tools" }, /option "basePath" must be a path/],
    ["a basePath with a trailing slash", { secret, basePath: "/proxy/tools/" }, /option "basePath"/],
    ["a basePath with a space", { secret, basePath: "/proxy tools" }, /option "basePath"/],
    ["a publicUrl that is no URL", { secret, publicUrl: "app.example.com" }, /option "publicUrl" must be an absolute URL/],
    ["a publicUrl of another scheme", { secret, publicUrl: "ftp://app.example.com" }, /option "publicUrl" must use http or https/],
    ["an unknown option", { secret, secrets: secret }, /unknown option "secrets"; check the spelling/],
    ["a store that is not a store", { secret, store: {} }, /option "store" must be a ToolsStore with the methods/],
    ["a blob store that is not one", { secret, blobStore: { put() {} } }, /option "blobStore" must be a BlobStore/],
    ["a zero timeout", { secret, timeouts: { toolMs: 0 } }, /option "timeouts\.toolMs"/],
    ["an unknown timeout", { secret, timeouts: { tool: 5 } }, /unknown option "timeouts.tool"/],
    [
      "a bad upload type",
      { secret, uploads: { allowedContentTypes: ["images"] } },
      /option "uploads\.allowedContentTypes\.0" must be a media type/,
    ],
    ["a hook that is not a function", { secret, hooks: { "tool.executed": "log" } }, /option "hooks\.tool\.executed" must be a function/],
    ["a refresh lease under 100 ms", { secret, refreshLeaseMs: 10 }, /option "refreshLeaseMs" must be at least 100/],
    ["a fractional refresh lease", { secret, refreshLeaseMs: 1500.5 }, /option "refreshLeaseMs" must be a whole number/],
  ])("throws a TypeError for %s", (_name, options, message) => {
    const error = thrown(options);
    expect(error.message).toMatch(/^createToolsHandler: /);
    expect(error.message).toMatch(message);
  });

  it("requires a secret with a persistent store, naming the option and how to make one", () => {
    expect(thrown({ store: persistentLookingStore() }).message).toMatch(
      /option "secret" is required with a persistent store.*openssl rand/,
    );
    expect(() => createToolsHandler({ store: persistentLookingStore(), secret })).not.toThrow();
  });

  it("needs no secret with in-memory stores, and warns through the logger", () => {
    const warn = vi.fn();
    expect(() => createToolsHandler({ store: memoryStore(), blobStore: memoryBlobStore(), logger: { warn } })).not.toThrow();
    expect(warn).toHaveBeenCalledWith(expect.stringMatching(/no secret given/), undefined);
    const consoleWarn = vi.spyOn(console, "warn").mockImplementation(() => {});
    try {
      expect(() => createToolsHandler()).not.toThrow();
      expect(consoleWarn).toHaveBeenCalledWith(expect.stringMatching(/Pass `secret` in production/));
    } finally {
      consoleWarn.mockRestore();
    }
  });

  it("throws when two toolkits share a tool slug or a slug", () => {
    const a = defineToolkit({ slug: "a", name: "A", description: "", auth: none(), tools: [tool("SHARED")] });
    const b = defineToolkit({ slug: "b", name: "B", description: "", auth: none(), tools: [tool("SHARED")] });
    expect(() => createToolsHandler({ secret, toolkits: [a, b] })).toThrow(/Tool slug "SHARED" is defined by both "a" and "b"/);
    expect(() => createToolsHandler({ secret, toolkits: [a, { ...a }] })).toThrow(/Two toolkits have the slug "a"/);
    expect(thrown({ secret, toolkits: [{ name: "no slug" }] }).message).toMatch(/option "toolkits/);
  });
});

describe("a custom basePath", () => {
  let h: Harness;
  beforeAll(async () => {
    h = await createHarness({ basePath: "/api/tools" });
  });
  afterAll(async () => {
    h.assertNoLeaks();
    await h.close();
  });

  it("serves the routes there and nowhere else", async () => {
    const key = (await h.issueAgentKey("agent-a")).key;
    const search = await h.call("GET", "http://tools.test/api/tools/search?keywords=calc", { key });
    expect(search.status).toBe(200);
    expect(search.json.toolkits[0].slug).toBe("calc");
    const run = await h.call("POST", "/execute", { key, body: { tool: "CALC_ADD", arguments: { a: 40, b: 2 } } });
    expect(run.json).toEqual({ data: { sum: 42 }, error: null, successful: true });
    expectError(await h.call("GET", "http://tools.test/proxy/tools/search", { key }), 404, "not_found");
    expectError(await h.call("GET", "http://tools.test/api/toolsearch", { key }), 404, "not_found");
    const missing = await h.call("GET", "/nope", { key });
    expectError(missing, 404, "not_found", /\/api\/tools\/openapi\.json/);
  });

  it("an empty basePath serves at the root", async () => {
    const root = await createHarness({ basePath: "" });
    const key = (await root.issueAgentKey("agent-a")).key;
    expect((await root.call("GET", "http://tools.test/search", { key })).status).toBe(200);
    root.assertNoLeaks();
    await root.close();
  });
});
