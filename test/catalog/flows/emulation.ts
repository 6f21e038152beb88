import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { expect } from "vitest";
import { toNodeHandler } from "../../../adapters/node.js";
import { catalogToolkit } from "../../../src/catalog/index.js";
import { createToolsHandler, issueApiKey, memoryStore, type ToolsHandler } from "../../../src/index.js";
import type { Toolkit } from "../../../src/toolkits/define.js";

/**
 * Local emulations of real providers, for end-to-end flows through the handler over real HTTP.
 *
 * A provider's emulation answers on one local port for every host the provider uses
 * (`github.com`, `api.github.com`): the handler's `fetch` option sends each request for those
 * hosts there, with the host it was meant for in `x-emulated-host`. The catalog's definitions keep
 * their real URLs. The "browser" of a test opens the authorization URL the same way and follows
 * the emulation's redirect to the handler's callback, which is served by a real `node:http` server.
 */

/** A request the emulation received, as the provider would have seen it. */
export interface EmulatedRequest {
  method: string;
  host: string;
  path: string;
  query: URLSearchParams;
  /** The request target as sent (path and query, not decoded). */
  target: string;
  headers: Record<string, string>;
  body: string;
  /** The body's bytes. */
  bytes: Buffer;
}

export interface EmulatedAnswer {
  status?: number;
  headers?: Record<string, string>;
  /** An object is sent as JSON; a string or bytes as they are. */
  body?: unknown;
}

export type Emulate = (request: EmulatedRequest) => EmulatedAnswer | Promise<EmulatedAnswer>;

/** The request's body read as form fields. */
export function form(request: EmulatedRequest): Record<string, string> {
  return Object.fromEntries(new URLSearchParams(request.body));
}

/** The request's body read as JSON. */
export function jsonBody(request: EmulatedRequest): Record<string, unknown> {
  return JSON.parse(request.body) as Record<string, unknown>;
}

/**
 * The `Authorization: Basic` pair of a request as sent, or null: base64-decoded, never
 * percent-decoded, since the providers emulated here read it raw, as their documentation builds it
 * (a client id sent form-encoded, `a%2Db` for `a-b`, is another client to them).
 */
export function basicPair(request: EmulatedRequest): [string, string] | null {
  const match = /^Basic (.+)$/.exec(request.headers.authorization ?? "");
  if (!match) return null;
  const decoded = Buffer.from(match[1]!, "base64").toString("utf8");
  const colon = decoded.indexOf(":");
  return [decoded.slice(0, colon), decoded.slice(colon + 1)];
}

/** The `Authorization` header a provider that documents `base64(client_id:client_secret)` expects, byte for byte. */
export function basicHeader(clientId: string, clientSecret: string): string {
  return `Basic ${Buffer.from(`${clientId}:${clientSecret}`, "utf8").toString("base64")}`;
}

/** A token no test run shares with another: emulated providers mint these. */
export function mint(prefix: string): string {
  return `${prefix}${crypto.randomUUID().replaceAll("-", "")}`;
}

async function readBody(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

async function listen(server: Server): Promise<number> {
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return (server.address() as AddressInfo).port;
}

export interface FlowOptions {
  /** The catalog provider's slug. */
  provider: string;
  /** Every host of the provider the handler may call. */
  hosts: string[];
  emulate: Emulate;
  /** The deployer's client id and secret (default: generated). */
  clientId?: string;
  clientSecret?: string;
  /** Overrides of the catalog's URLs, as a deployer would give them. */
  overrides?: Parameters<typeof catalogToolkit>[1];
  /** A toolkit to serve instead of the catalog's (a generic provider built with defineToolkit), given the client. */
  toolkit?: (client: { clientId: string; clientSecret: string }) => Toolkit;
}

/**
 * A provider's emulation on 127.0.0.1: one server for every host in `hosts`, the requests it
 * received, and a `fetch` that sends a request for one of those hosts there (the intended host in
 * `x-emulated-host`) and refuses any other host.
 */
export async function startEmulation(hosts: readonly string[], emulate: Emulate) {
  const requests: EmulatedRequest[] = [];
  const server = createServer(async (req, res) => {
    const url = new URL(req.url ?? "/", "http://emulated.test");
    const headers = Object.fromEntries(Object.entries(req.headers).map(([k, v]) => [k, Array.isArray(v) ? v.join(", ") : (v ?? "")]));
    const bytes = await readBody(req);
    const request: EmulatedRequest = {
      method: req.method ?? "GET",
      host: headers["x-emulated-host"] ?? "",
      path: url.pathname,
      query: url.searchParams,
      target: req.url ?? "/",
      headers,
      body: bytes.toString("utf8"),
      bytes,
    };
    requests.push(request);
    try {
      const answer = await emulate(request);
      const raw = answer.body === undefined || typeof answer.body === "string" || answer.body instanceof Uint8Array;
      const body = answer.body === undefined ? "" : raw ? (answer.body as string | Uint8Array) : JSON.stringify(answer.body);
      const type = raw ? {} : { "content-type": "application/json; charset=utf-8" };
      res.writeHead(answer.status ?? 200, { ...type, ...answer.headers });
      res.end(body);
    } catch (error) {
      res.writeHead(500, { "content-type": "text/plain" });
      res.end(`emulation error: ${(error as Error).message}`);
    }
  });
  const port = await listen(server);

  /** Sends a request for one of the provider's hosts to its emulation instead. */
  const emulatedFetch: typeof fetch = async (input, init) => {
    const target = new URL(input instanceof Request ? input.url : String(input));
    if (!hosts.includes(target.hostname)) throw new TypeError(`fetch failed: ${target.hostname} is not emulated`);
    const headers = new Headers(input instanceof Request ? input.headers : undefined);
    for (const [name, value] of new Headers(init?.headers)) headers.set(name, value);
    headers.set("x-emulated-host", target.hostname);
    const local = new URL(`${target.pathname}${target.search}`, `http://127.0.0.1:${port}`);
    const request = input instanceof Request ? input : undefined;
    return fetch(local, {
      method: init?.method ?? request?.method ?? "GET",
      headers,
      body: init?.body ?? (request?.body as BodyInit | null | undefined) ?? null,
      redirect: "manual",
      signal: init?.signal ?? null,
      ...(init?.body instanceof ReadableStream ? { duplex: "half" } : {}),
    } as RequestInit);
  };
  return {
    requests,
    port,
    fetch: emulatedFetch,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/**
 * Starts the provider's emulation and a handler serving the catalog provider over real HTTP.
 * Returns helpers that act as the agent (API calls with its key) and as the person's browser.
 */
export async function startFlow(options: FlowOptions) {
  const emulation = await startEmulation(options.hosts, options.emulate);
  const { requests, fetch: emulatedFetch } = emulation;

  const clientId = options.clientId ?? mint("client-");
  const clientSecret = options.clientSecret ?? mint("secret-");
  const toolkit = options.toolkit
    ? options.toolkit({ clientId, clientSecret })
    : catalogToolkit(options.provider, { clientId, clientSecret, ...options.overrides });
  const store = memoryStore();
  const logs: string[] = [];
  const record = (level: string) => (message: string, fields?: Record<string, unknown>) =>
    void logs.push(`${level} ${message} ${JSON.stringify(fields ?? {})}`);
  let app: ReturnType<typeof toNodeHandler> = (_req, res) => void res.writeHead(503).end();
  const server = createServer((req, res) => app(req, res));
  const port = await listen(server);
  const origin = `http://127.0.0.1:${port}`;
  const tools: ToolsHandler = createToolsHandler({
    store,
    secret: `flow-secret-${mint("")}`,
    publicUrl: origin,
    fetch: emulatedFetch,
    toolkits: [toolkit],
    logger: { debug: record("debug"), info: record("info"), warn: record("warn"), error: record("error") },
  });
  app = toNodeHandler(tools);
  const { key } = await issueApiKey(store, { workspaceId: "ws1", agentId: "agent-1" });
  const answers: string[] = [];

  /** An API call of the agent, over HTTP. */
  async function call(method: string, path: string, body?: unknown) {
    const response = await fetch(`${origin}${tools.basePath}${path}`, {
      method,
      headers: { "x-api-key": key, ...(body === undefined ? {} : { "content-type": "application/json" }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await response.text();
    answers.push(text);
    return { status: response.status, text, json: text ? JSON.parse(text) : undefined };
  }

  /**
   * The person's browser: opens the authorization URL at the provider (its emulation decides and
   * redirects back), then follows that redirect to the handler's callback.
   */
  async function consent(authorizationUrl: string): Promise<{ status: number; text: string; callback: URL }> {
    const atProvider = await emulatedFetch(authorizationUrl);
    expect(atProvider.status, await atProvider.clone().text()).toBe(302);
    const callback = new URL(atProvider.headers.get("location")!);
    expect(callback.origin).toBe(origin);
    const response = await fetch(callback, { headers: { accept: "application/json" } });
    const text = await response.text();
    answers.push(text);
    return { status: response.status, text, callback };
  }

  /** Starts OAuth, consents and returns the new connection as GET /connections lists it. */
  async function connect(body: Record<string, unknown> = {}) {
    const started = await call("POST", "/auth", { toolkit: options.provider, ...body });
    expect(started.status, started.text).toBe(200);
    const authorizationUrl = new URL(started.json.authorizationUrl);
    const done = await consent(authorizationUrl.href);
    expect(done.status, done.text).toBe(200);
    const status = await call("GET", `/auth/${started.json.authorizationId}`);
    expect(status.json.status, status.text).toBe("connected");
    const listed = await call("GET", `/connections?toolkit=${options.provider}`);
    const connection = listed.json.connections.find((c: { id: string }) => c.id === status.json.connectionId);
    return { authorizationUrl, connection: connection as { id: string; remoteUser: string; config: Record<string, string> } };
  }

  /**
   * The person on the connect page of a link (`POST /auth` without credentials): opens it, then
   * submits `fields` with the page's form token. Returns the page and the answer to the submit.
   */
  async function submitConnectPage(authorizationUrl: string, fields: Record<string, string>) {
    const opened = await fetch(authorizationUrl);
    const page = await opened.text();
    answers.push(page);
    const csrf = /name="csrf" value="([^"]+)"/.exec(page)?.[1] ?? "";
    const response = await fetch(authorizationUrl, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ csrf, ...fields }).toString(),
      redirect: "manual",
    });
    const text = await response.text();
    answers.push(text);
    return { page, status: response.status, text };
  }

  /** A request of the agent through the passthrough route (`path` after /passthrough/{toolkit}). */
  async function passthrough(path: string, init: { method?: string; headers?: Record<string, string>; body?: string } = {}) {
    const response = await fetch(`${origin}${tools.basePath}/passthrough/${path}`, {
      method: init.method ?? "GET",
      headers: { "x-api-key": key, ...init.headers },
      body: init.body,
      redirect: "manual",
    });
    const text = await response.text();
    answers.push(text);
    return { status: response.status, text, headers: response.headers };
  }

  /** No answer of the handler and no log line holds any of `secrets`. */
  function assertNoLeaks(secrets: string[]): void {
    const outputs = [...answers, ...logs];
    for (const secret of secrets.filter((s) => s.length >= 8)) {
      expect(
        outputs.filter((o) => o.includes(secret)),
        `${secret.slice(0, 6)}… leaked`,
      ).toEqual([]);
    }
  }

  return {
    toolkit,
    clientId,
    clientSecret,
    origin,
    /** The agent's API key, and the Tools API's address (for requests `call` does not send: uploads, file reads). */
    key,
    apiUrl: `${origin}${tools.basePath}`,
    requests,
    logs,
    call,
    consent,
    connect,
    submitConnectPage,
    passthrough,
    assertNoLeaks,
    /** The requests the emulation received for `host`, from index `from` on. */
    at: (host: string, path?: string) => requests.filter((r) => r.host === host && (path === undefined || r.path === path)),
    callbackUrl: `${origin}${tools.basePath}/auth/callback`,
    async close() {
      await new Promise((resolve) => server.close(resolve));
      await emulation.close();
    },
  };
}

export type Flow = Awaited<ReturnType<typeof startFlow>>;

/**
 * The authorization endpoint of an emulated provider: checks what every provider checks (its
 * client id, the exact redirect URI) and redirects back with a code and the state, plus `extra`
 * parameters some providers add (QuickBooks' realmId). Returns the code it issued.
 */
export function authorize(
  request: EmulatedRequest,
  expected: { clientId: string; redirectUri: string },
  issue: (code: string) => void,
  extra: Record<string, string> = {},
): EmulatedAnswer {
  if (request.query.get("client_id") !== expected.clientId) return { status: 400, body: "unknown client_id" };
  if (request.query.get("redirect_uri") !== expected.redirectUri) return { status: 400, body: "redirect_uri mismatch" };
  const code = mint("code-");
  issue(code);
  const back = new URL(expected.redirectUri);
  back.searchParams.set("code", code);
  back.searchParams.set("state", request.query.get("state")!);
  for (const [name, value] of Object.entries(extra)) back.searchParams.set(name, value);
  return { status: 302, headers: { location: back.href } };
}
