/**
 * What the handler shows of itself and decides from declarations: its public properties (not its
 * internals), `await using`, a store's declared `persistent` flag, a toolkit's `kind`, the methods
 * a store must have; and one rule for what is retryable, shared by results and retries.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import {
  createToolsHandler,
  defineTool,
  defineToolkit,
  memoryBlobStore,
  memoryStore,
  none,
  ToolsError,
  type ToolsStore,
} from "../../src/index.js";
import { createHarness, type Harness } from "../support/harness.js";

const SECRET = "handler-surface-test-secret-0123456789abcdef";

describe("the handler's surface", () => {
  it("is a fetch function with basePath, registry, sweep, close, answer (for server bridges) and Symbol.asyncDispose, and nothing internal", async () => {
    const tools = createToolsHandler({ basePath: "/api/tools", toolkits: [] });
    expect(typeof tools).toBe("function");
    expect(Object.keys(tools).sort()).toEqual(["answer", "basePath", "close", "handler", "registry", "sweep"]);
    expect(Object.getOwnPropertySymbols(tools)).toEqual([Symbol.asyncDispose]);
    expect(tools.basePath).toBe("/api/tools");
    expect(await tools.registry.list()).toEqual([]);
    expect("context" in tools).toBe(false);
    await tools.close();
  });

  it("`await using` stops the sweeper when the scope ends", async () => {
    let sweeps = 0;
    const blobStore = { ...memoryBlobStore(), deleteExpired: async () => (sweeps++, 0) };
    {
      await using tools = createToolsHandler({ blobStore, sweepIntervalMs: 20 });
      await tools(new Request("http://x.test/proxy/tools/openapi.json"));
      while (sweeps === 0) await new Promise((resolve) => setTimeout(resolve, 10));
    }
    const after = sweeps;
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(sweeps).toBe(after);
  });
});

describe("the handler's sweep", () => {
  const expiredAuthorization = (id: string) => ({
    id,
    stateHash: `state_${id}`,
    workspaceId: "ws",
    agentId: "agent",
    toolkit: "t",
    label: null,
    returnUrl: null,
    secrets: "v1.x",
    status: "pending" as const,
    connectionId: null,
    error: null,
    createdAt: new Date(Date.now() - 60_000),
    expiresAt: new Date(Date.now() - 1_000),
    consumedAt: null,
  });

  it("deletes the store's expired authorizations and leases too, on its timer once it served a request", async () => {
    const store = memoryStore();
    await store.createAuthorization(expiredAuthorization("auth_swept"));
    await store.acquireLease("lease_swept", "holder", 1, new Date(Date.now() - 1_000));
    const tools = createToolsHandler({ store, sweepIntervalMs: 20 });
    await tools(new Request("http://x.test/proxy/tools/openapi.json"));
    while (await store.getAuthorization("auth_swept")) await new Promise((resolve) => setTimeout(resolve, 10));
    expect(await store.acquireLease("lease_swept", "other", 1_000, new Date()), "the expired lease was swept").toBe(true);
    await tools.close();
  });

  it("sweep() counts staged files and the store's rows alike, and with sweepIntervalMs 0 nothing runs by itself", async () => {
    const store = memoryStore();
    await store.createAuthorization(expiredAuthorization("auth_manual"));
    const tools = createToolsHandler({ store, sweepIntervalMs: 0 });
    await tools(new Request("http://x.test/proxy/tools/openapi.json"));
    expect(await store.getAuthorization("auth_manual"), "nothing swept without a timer").not.toBeNull();
    expect(await tools.sweep()).toBe(1);
    expect(await store.getAuthorization("auth_manual")).toBeNull();
  });
});

describe("declared capabilities", () => {
  it("a store that does not say it is in memory needs a secret; one that declares persistent: false does not", () => {
    const custom: ToolsStore = { ...memoryStore(), persistent: undefined };
    expect(() => createToolsHandler({ store: custom })).toThrow(/option "secret" is required with a persistent store/);
    expect(() => createToolsHandler({ store: { ...memoryStore(), persistent: true } })).toThrow(/"secret" is required/);
    expect(() => createToolsHandler({ store: memoryStore(), blobStore: { ...memoryBlobStore(), persistent: undefined } })).toThrow(
      /"secret" is required/,
    );
    expect(() => createToolsHandler({ store: memoryStore(), blobStore: memoryBlobStore(), logger: { warn: () => {} } })).not.toThrow();
  });

  it("a store missing any method of ToolsStore is refused, naming them all", () => {
    const { deleteConnection: _dropped, ...incomplete } = memoryStore();
    expect(() => createToolsHandler({ store: incomplete as ToolsStore, secret: SECRET })).toThrow(
      /option "store" must be a ToolsStore with the methods .*deleteConnection/,
    );
  });

  it("a defined toolkit (kind: toolkit) is served as it is; a plain definition is defined by the registry", async () => {
    const tool = defineTool({ slug: "K_ONE", name: "One", description: "One.", input: z.object({}), run: () => 1 });
    const defined = defineToolkit({ slug: "k", name: "K", description: "Defined.", auth: none(), tools: [tool] });
    expect(defined.kind).toBe("toolkit");
    const tools = createToolsHandler({
      toolkits: [defined, { slug: "plain", name: "Plain", description: "A definition.", auth: none(), tools: [] }],
    });
    expect(await tools.registry.get("k")).toBe(defined);
    expect((await tools.registry.get("plain"))?.kind).toBe("toolkit");
  });
});

describe("one rule for what is retryable", () => {
  let h: Harness;
  let key: string;
  beforeAll(async () => {
    h = await createHarness({
      retries: { max: 1, baseDelayMs: 1 },
      extraToolkits: () => [
        defineToolkit({
          slug: "throws",
          name: "Throws",
          description: "Tools that throw the library's errors.",
          auth: none(),
          tools: [
            defineTool({
              slug: "THROWS_UNAVAILABLE",
              name: "Unavailable",
              description: "Storage down.",
              input: z.object({}),
              run: () => Promise.reject(new ToolsError("unavailable", "Storage is down.")),
            }),
            defineTool({
              slug: "THROWS_REFUSED",
              name: "Refused",
              description: "A refused URL.",
              input: z.object({}),
              run: () => Promise.reject(new ToolsError("invalid_request", "The URL is not allowed.")),
            }),
          ],
        }),
      ],
    });
    key = (await h.issueAgentKey("agent-r")).key;
    await h.connect(key, "notes", { token: "retry-rule-token-abcdef" });
  });
  afterAll(async () => {
    h.assertNoLeaks();
    await h.close();
  });

  it.each([408, 425, 429, 500, 501, 502, 503, 504, 505])("%i: reported retryable exactly when it is retried", async (status) => {
    const before = h.upstream.requests.length;
    const res = await h.call("POST", "/proxy", {
      key,
      body: { toolkit: "notes", method: "GET", url: `${h.upstream.origin}/v1/status/${status}` },
    });
    const attempts = h.upstream.requests.length - before;
    expect(res.json).toMatchObject({ successful: false, code: "upstream_error", upstreamStatus: status });
    expect([res.json.retryable, attempts]).toEqual(res.json.retryable ? [true, 2] : [false, 1]);
    expect(res.json.retryable).toBe(status !== 501 && status !== 505);
  });

  it("a library error inside a tool keeps its code, retryable as the result-code table says", async () => {
    expect((await h.call("POST", "/execute", { key, body: { tool: "THROWS_UNAVAILABLE" } })).json).toMatchObject({
      successful: false,
      code: "unavailable",
      retryable: true,
    });
    expect((await h.call("POST", "/execute", { key, body: { tool: "THROWS_REFUSED" } })).json).toMatchObject({
      successful: false,
      code: "invalid_request",
      retryable: false,
    });
  });
});
