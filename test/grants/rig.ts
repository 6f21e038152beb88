import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { expect } from "vitest";
import { toNodeHandler } from "../../adapters/node.js";
import { createToolsHandler, issueApiKey, memoryStore, type ToolsStore } from "../../src/index.js";
import type { Toolkit } from "../../src/toolkits/define.js";
import { type Emulate, startEmulation } from "../catalog/flows/emulation.js";

/**
 * A token grant's flows over real HTTP: a provider's emulation on 127.0.0.1 (every host the
 * provider uses answers there, the intended host in `x-emulated-host`, as in
 * test/catalog/flows/emulation.ts) and one or more handlers, each on its own port, sharing the
 * stores given (two handlers on one store stand for two processes).
 */
export interface RigOptions {
  hosts: string[];
  emulate: Emulate;
  toolkits: Toolkit[];
  /** One store per handler; the same store twice is two processes sharing it. Default: one memory store. */
  stores?: ToolsStore[];
}

async function listen(server: Server): Promise<number> {
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return (server.address() as AddressInfo).port;
}

export async function startRig(options: RigOptions) {
  const emulation = await startEmulation(options.hosts, options.emulate);
  const { requests, fetch: emulatedFetch } = emulation;

  const stores = options.stores ?? [memoryStore()];
  const logs: string[] = [];
  const answers: string[] = [];
  const secret = `grant-rig-secret-${crypto.randomUUID()}`;
  const handlers = await Promise.all(
    stores.map(async (store, index) => {
      let app: ReturnType<typeof toNodeHandler> = (_req, res) => void res.writeHead(503).end();
      const server = createServer((req, res) => app(req, res));
      const origin = `http://127.0.0.1:${await listen(server)}`;
      const record = (level: string) => (message: string, fields?: Record<string, unknown>) =>
        void logs.push(`${index} ${level} ${message} ${JSON.stringify(fields ?? {})}`);
      const tools = createToolsHandler({
        store,
        secret,
        publicUrl: origin,
        fetch: emulatedFetch,
        toolkits: options.toolkits,
        logger: { debug: record("debug"), info: record("info"), warn: record("warn"), error: record("error") },
      });
      app = toNodeHandler(tools);
      return { server, origin, api: `${origin}${tools.basePath}` };
    }),
  );
  const { key } = await issueApiKey(stores[0]!, { workspaceId: "ws1", agentId: `agent-${crypto.randomUUID()}` });

  /** An API call of the agent to handler `on` (default the first), over HTTP. */
  async function call(method: string, path: string, body?: unknown, on = 0) {
    const response = await fetch(`${handlers[on]!.api}${path}`, {
      method,
      headers: { "x-api-key": key, ...(body === undefined ? {} : { "content-type": "application/json" }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await response.text();
    answers.push(text);
    return { status: response.status, text, json: text ? JSON.parse(text) : undefined };
  }

  /** A passthrough call to the toolkit's own API through handler `on`. */
  async function passthrough(toolkit: string, path: string, connectionId: string, on = 0) {
    const response = await fetch(`${handlers[on]!.api}/passthrough/${toolkit}/${path}`, {
      headers: { "x-api-key": key, "x-connection-id": connectionId },
    });
    const text = await response.text();
    answers.push(text);
    return { status: response.status, text };
  }

  /** The person on the connect page: opens the link, then sends `fields` with the page's anti-forgery value. */
  async function submitPage(linkUrl: string, fields: Record<string, string>) {
    const page = await fetch(linkUrl);
    const html = await page.text();
    answers.push(html);
    expect(page.status, html).toBe(200);
    const csrf = /name="csrf" value="([^"]+)"/.exec(html)?.[1] ?? "";
    const response = await fetch(linkUrl, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ csrf, ...fields }).toString(),
      redirect: "manual",
    });
    const text = await response.text();
    answers.push(text);
    return { page: html, status: response.status, text };
  }

  return {
    key,
    stores,
    requests,
    logs,
    call,
    passthrough,
    submitPage,
    /** The requests the emulation received for `host` (and `path`). */
    at: (host: string, path?: string) => requests.filter((r) => r.host === host && (path === undefined || r.path === path)),
    /** Makes the stored token of a connection expired, as time would. */
    async expire(connectionId: string) {
      const store = stores[0]!;
      const connection = (await store.getConnection(connectionId))!;
      await store.updateConnection(
        connectionId,
        { credentialsExpireAt: new Date(Date.now() - 1000), updatedAt: new Date() },
        connection.version,
      );
    },
    /** No answer of the handlers and no log line holds any of `secrets`. */
    assertNoLeaks(secrets: string[]) {
      for (const secret of secrets.filter((s) => s.length >= 8)) {
        expect(
          [...answers, ...logs].filter((o) => o.includes(secret)),
          `${secret.slice(0, 6)}… leaked`,
        ).toEqual([]);
      }
    },
    async close() {
      await Promise.all(handlers.map(({ server }) => new Promise((resolve) => server.close(resolve))));
      await emulation.close();
    },
  };
}

export type Rig = Awaited<ReturnType<typeof startRig>>;
