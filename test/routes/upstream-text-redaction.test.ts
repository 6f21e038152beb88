/**
 * Text an upstream writes reaches the agent's answer and the log only redacted. A credential the
 * library never held (an upstream quoting its own backend's `Authorization` header) is caught by its
 * shape; a connection's key that is not well-formed UTF-16 (JSON can carry an unpaired surrogate)
 * neither breaks a call nor escapes redaction in the spelling the upstream echoes.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { defineTool, defineToolkit, none, ToolRunError } from "../../src/index.js";
import { createHarness, type Harness } from "../support/harness.js";

let h: Harness;
let key: string;
let gossip: Server;
let gossipUrl: string;
const BACKEND_TOKEN = `bkd-${Math.random().toString(36).slice(2)}-0123456789`;

beforeAll(async () => {
  // Answers 502 quoting the credential its own backend refused, after the scheme given in `?scheme=`.
  gossip = createServer((req, res) => {
    const scheme = new URL(req.url ?? "/", "http://x").searchParams.get("scheme") ?? "Bearer ";
    res.writeHead(502, { "content-type": "text/plain" }).end(`backend refused "Authorization: ${scheme}${BACKEND_TOKEN}"`);
  });
  await new Promise<void>((resolve) => gossip.listen(0, "127.0.0.1", resolve));
  gossipUrl = `http://127.0.0.1:${(gossip.address() as AddressInfo).port}`;
  h = await createHarness({
    extraToolkits: () => [
      defineToolkit({
        slug: "gossip",
        name: "Gossip",
        description: "An API whose errors quote its backend's credentials.",
        baseUrl: gossipUrl,
        auth: none(),
        tools: [
          defineTool({
            slug: "GOSSIP_READ",
            name: "Read",
            description: "Fails with the upstream's error text.",
            input: z.object({ scheme: z.string() }),
            run: async (args, ctx) => {
              const response = await ctx.fetch(`/read?scheme=${encodeURIComponent(args.scheme)}`);
              throw new ToolRunError(`Upstream answered ${response.status}: ${await response.text()}`, { upstreamStatus: response.status });
            },
          }),
        ],
      }),
    ],
  });
  key = (await h.issueAgentKey("agent-text")).key;
  h.addSecret(BACKEND_TOKEN);
});
afterAll(async () => {
  h.assertNoLeaks();
  await new Promise((resolve) => gossip.close(resolve));
  await h.close();
});

describe("a credential the library never held, quoted in an upstream's error", () => {
  it.each([
    ["Bearer ", "Bearer"],
    ["bearer\t", "bearer"],
    ["Basic  ", "Basic"],
  ])("after %j: the answer's error and the log line say [redacted]", async (scheme, word) => {
    const logMark = h.logs.length;
    const res = await h.call("POST", "/execute", { key, body: { tool: "GOSSIP_READ", arguments: { scheme } } });
    expect(res.json).toMatchObject({ successful: false, upstreamStatus: 502 });
    expect(res.json.error).toBe(`Upstream answered 502: backend refused "Authorization: ${word} [redacted]"`);
    const logged = h.logs.slice(logMark).filter((l) => l.message === "tool failed");
    expect(logged).toHaveLength(1);
    expect((logged[0]!.fields!.error as { message: string }).message).toBe(res.json.error);
  });
});

describe("a query key with an unpaired surrogate", () => {
  it("is refused nowhere on the way: proxy and execute answer, and the echoed key is redacted as the upstream spelled it", async () => {
    const raw = '{"toolkit":"acmeq","label":"odd","credentials":{"apiKey":"qk-\\ud800-0123456789"}}';
    const created = await h.call("POST", "/auth", { key, rawBody: raw, headers: { "content-type": "application/json" } });
    expect(created.status, created.text).toBe(201);
    const connectionId = created.json.connection.id;
    h.addSecret("qk-%EF%BF%BD-0123456789");

    const proxied = await h.call("POST", "/proxy", {
      key,
      body: { toolkit: "acmeq", method: "GET", url: `${h.upstream.origin}/v1/reflect?page=2`, connection_id: connectionId },
    });
    expect(proxied.status, proxied.text).toBe(200);
    expect(proxied.json).toMatchObject({ successful: true, data: { self: "/v1/reflect?page=2&api_key=[redacted]" } });

    const executed = await h.call("POST", "/execute", { key, body: { tool: "ACMEQ_PING", connection_id: connectionId } });
    expect(executed.status, executed.text).toBe(200);
    expect(executed.json).toMatchObject({ successful: true, data: { ok: true } });
    expect(h.logs.filter((l) => l.level === "error")).toEqual([]);
    await h.store.deleteConnection(connectionId);
  });
});
