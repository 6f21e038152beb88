/**
 * The handler served over real HTTP (node:http, the Node adapter, 127.0.0.1, a random port) for the
 * remote MCP end-to-end tests, beside the remote MCP fixture (`remote-mcp-server.ts`).
 *
 * Its `publicUrl` is the server's own origin, so the OAuth callback the authorization server
 * redirects to is served by the same real server. Everything that leaves the handler is recorded:
 * each answer (headers and body, read as it streams), each log line and hook event. Every secret
 * that passes the handler's outbound fetch is kept (the code and PKCE verifier, access and refresh
 * tokens, client secrets and registration tokens, the bearer token sent to the MCP server), with
 * the handler secret and the agents' API keys, so that `assertNoLeaks()` looks for each of them
 * in every output. `assertNo500()` checks that no answer was a 500.
 */
import { expect } from "vitest";
import {
  createToolsHandler,
  issueApiKey,
  type Logger,
  memoryStore,
  type Toolkit,
  type ToolsEvents,
  type ToolsHandler,
  type ToolsHandlerOptions,
  type ToolsStore,
} from "../../src/index.js";
import { type ApiServer, startApiServer } from "../client/server.js";
import { authorizeWithFetch } from "./oidc-server.js";

const RUN = Math.random().toString(36).slice(2, 10);
export const E2E_SECRET = `remote-mcp-e2e-secret-${RUN}-0123456789abcdef`;

/** A unique name per run and call, for toolkit slugs and agent ids. */
let unique = 0;
export const uniqueName = (name: string) => `${name}-${RUN}-${++unique}`;

export interface RecordedAnswer {
  what: string;
  status: number;
  headers: Record<string, string>;
  /** The body as read so far (the whole body once the stream ended). */
  text: string;
}

export interface CallAnswer {
  status: number;
  headers: Headers;
  text: string;
  json: any;
}

export interface E2eOptions extends Partial<Omit<ToolsHandlerOptions, "toolkits" | "store" | "secret" | "publicUrl" | "logger">> {
  /** The toolkits, or a function of the handler's base URL that makes them (e.g. to register a client with its callback URL). */
  toolkits: Toolkit[] | ((baseUrl: string) => Promise<Toolkit[]>);
}

export type E2e = Awaited<ReturnType<typeof startE2e>>;

/** Starts the real server and mounts a handler with `toolkits`; `allowPrivateNetworks` defaults to true. */
export async function startE2e(options: E2eOptions) {
  const api: ApiServer = await startApiServer();
  const store: ToolsStore = memoryStore();
  const logs: Array<{ level: string; message: string; fields: unknown }> = [];
  const events: Array<{ event: string; payload: unknown }> = [];
  const answers: RecordedAnswer[] = [];
  const secrets = new Set<string>([E2E_SECRET]);
  /** Bearer tokens the handler sent to MCP servers, in order. */
  const bearerTokensSent: string[] = [];

  const record = (level: string) => (message: string, fields?: Record<string, unknown>) => void logs.push({ level, message, fields });
  const logger: Logger = { debug: record("debug"), info: record("info"), warn: record("warn"), error: record("error") };
  const eventNames: Array<keyof ToolsEvents> = [
    "auth.completed",
    "auth.failed",
    "token.refreshed",
    "connection.expired",
    "connection.created",
    "connection.deleted",
    "tool.executed",
    "proxy.requested",
  ];

  const { toolkits, ...handlerOptions } = options;
  const handler: ToolsHandler = createToolsHandler({
    allowPrivateNetworks: true,
    ...handlerOptions,
    store,
    secret: E2E_SECRET,
    publicUrl: api.origin,
    logger,
    fetch: recordingFetch(handlerOptions.fetch ?? fetch),
    hooks: Object.fromEntries(eventNames.map((name) => [name, (payload: unknown) => void events.push({ event: name, payload })])),
    toolkits: typeof toolkits === "function" ? await toolkits(api.baseUrl) : toolkits,
  });
  api.mount(async (request) => {
    const response = await handler(request);
    const url = new URL(request.url);
    const answer: RecordedAnswer = {
      what: `${request.method} ${url.pathname}${url.search}`,
      status: response.status,
      headers: Object.fromEntries(response.headers),
      text: "",
    };
    answers.push(answer);
    if (response.body) void readInto(response.clone(), answer);
    return response;
  });

  /** The handler's fetch: keeps every secret that passes, sent or received. */
  function recordingFetch(inner: typeof fetch): typeof fetch {
    return async (input, init) => {
      const headers = new Headers(input instanceof Request ? input.headers : undefined);
      for (const [name, value] of new Headers(init?.headers)) headers.set(name, value);
      const bearer = /^Bearer\s+(\S+)$/i.exec(headers.get("authorization") ?? "")?.[1];
      if (bearer) {
        secrets.add(bearer);
        bearerTokensSent.push(bearer);
      }
      const basic = /^Basic\s+(\S+)$/i.exec(headers.get("authorization") ?? "")?.[1];
      if (basic) {
        secrets.add(basic);
        const [, password] = /^[^:]*:(.+)$/.exec(Buffer.from(basic, "base64").toString("utf8")) ?? [];
        if (password) secrets.add(decodeURIComponent(password));
      }
      keepSecretsOf(typeof init?.body === "string" ? init.body : init?.body instanceof URLSearchParams ? init.body.toString() : "");
      const response = await inner(input, init);
      const type = response.headers.get("content-type") ?? "";
      if (type.includes("json"))
        keepSecretsOf(
          await response
            .clone()
            .text()
            .catch(() => ""),
        );
      return response;
    };
  }

  const SECRET_FIELDS = [
    "code",
    "code_verifier",
    "refresh_token",
    "access_token",
    "id_token",
    "token",
    "client_secret",
    "registration_access_token",
  ];

  /** Adds the secret fields of a form or JSON body to the secrets. */
  function keepSecretsOf(body: string): void {
    if (!body) return;
    try {
      const json = JSON.parse(body) as Record<string, unknown>;
      if (json && typeof json === "object") for (const name of SECRET_FIELDS) if (typeof json[name] === "string") secrets.add(json[name]);
      return;
    } catch {}
    for (const [name, value] of new URLSearchParams(body)) if (SECRET_FIELDS.includes(name) && value) secrets.add(value);
  }

  /** A request to the handler over HTTP; `path` is under the base path, or a whole URL. */
  async function call(method: string, path: string, opts: { key?: string; body?: unknown; accept?: string } = {}): Promise<CallAnswer> {
    const headers: Record<string, string> = {};
    if (opts.key) headers["x-api-key"] = opts.key;
    if (opts.accept) headers.accept = opts.accept;
    if (opts.body !== undefined) headers["content-type"] = "application/json";
    const url = path.startsWith("http") ? path : `${api.baseUrl}${path}`;
    const response = await fetch(url, {
      method,
      headers,
      redirect: "manual",
      body: opts.body === undefined ? undefined : JSON.stringify(opts.body),
    });
    const text = await response.text();
    let json: unknown;
    try {
      json = text ? JSON.parse(text) : undefined;
    } catch {}
    return { status: response.status, headers: response.headers, text, json };
  }

  async function issueAgentKey(agentId = uniqueName("agent"), workspaceId = "ws1") {
    const { key } = await issueApiKey(store, { workspaceId, agentId });
    secrets.add(key);
    return key;
  }

  /** POST /auth for `toolkit`; expects the 200 of a started OAuth flow. */
  async function startAuth(key: string, toolkit: string, body: Record<string, unknown> = {}) {
    const res = await call("POST", "/auth", { key, body: { toolkit, ...body } });
    expect(res.status, res.text).toBe(200);
    return res.json as { authorizationId: string; authorizationUrl: string; expiresAt: string };
  }

  /**
   * The whole flow as a browser would run it: POST /auth, sign-in and consent at the authorization
   * server (`authorize`, default over HTTP with `login`), the redirect to the callback, here.
   */
  async function connect(
    key: string,
    toolkit: string,
    login = "alice",
    authorize: (url: URL) => Promise<URL> = (url) => authorizeWithFetch(url, { login }),
  ) {
    const started = await startAuth(key, toolkit);
    const authorizationUrl = new URL(started.authorizationUrl);
    const callbackUrl = await authorize(authorizationUrl);
    const code = callbackUrl.searchParams.get("code");
    if (code) secrets.add(code);
    const callback = await call("GET", callbackUrl.href, { accept: "application/json" });
    expect(callback.status, callback.text).toBe(200);
    const status = await call("GET", `/auth/${started.authorizationId}`, { key });
    expect(status.json, status.text).toMatchObject({ status: "connected" });
    return { started, authorizationUrl, callbackUrl, connectionId: status.json.connectionId as string };
  }

  /** POST /execute. */
  const execute = (key: string, tool: string, args: Record<string, unknown> = {}, connectionId?: string) =>
    call("POST", "/execute", { key, body: { tool, arguments: args, ...(connectionId ? { connection_id: connectionId } : {}) } });

  /** Every place a secret could escape: answers (headers and bodies), log lines, hook events. */
  function outputs(): Array<{ where: string; text: string }> {
    return [
      ...answers.map((a) => ({ where: `answer ${a.what} ${a.status}`, text: `${JSON.stringify(a.headers)}\n${a.text}` })),
      ...logs.map((l) => ({ where: `log ${l.level} "${l.message}"`, text: `${l.message} ${safeJson(l.fields)}` })),
      ...events.map((e) => ({ where: `event ${e.event}`, text: safeJson(e.payload) })),
    ];
  }

  /** No answer, log line or event holds a secret; and tokens were seen, so the check had something to look for. */
  function assertNoLeaks(): void {
    const all = [...secrets].filter((s) => s.length >= 8);
    const leaks: string[] = [];
    for (const output of outputs())
      for (const secret of all) if (output.text.includes(secret)) leaks.push(`${output.where} contains ${secret.slice(0, 6)}…`);
    expect(leaks, "secrets leaked").toEqual([]);
  }

  /** No answer was a 500 (an unhandled failure). */
  function assertNo500(): void {
    expect(answers.filter((a) => a.status === 500).map((a) => `${a.what}: ${a.text.slice(0, 300)}`)).toEqual([]);
  }

  return {
    api,
    handler,
    store,
    baseUrl: api.baseUrl,
    logs,
    events,
    answers,
    bearerTokensSent,
    secrets: () => [...secrets],
    addSecret: (value: string) => void secrets.add(value),
    call,
    execute,
    issueAgentKey,
    startAuth,
    connect,
    outputs,
    assertNoLeaks,
    assertNo500,
    close: () => api.close(),
  };
}

/** Reads a cloned answer's body into `answer.text` as it streams (an SSE stream may stay open). */
async function readInto(response: Response, answer: RecordedAnswer): Promise<void> {
  const decoder = new TextDecoder();
  try {
    for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) answer.text += decoder.decode(chunk, { stream: true });
  } catch {
    // The client went away: what was read is kept.
  }
}

function safeJson(value: unknown): string {
  try {
    return JSON.stringify(value ?? {}, (_key, v) =>
      v instanceof Error ? { name: v.name, message: v.message, stack: v.stack, cause: v.cause } : v,
    );
  } catch {
    return String(value);
  }
}

/** Waits until `condition` holds (checked every 20 ms), or fails after `timeoutMs` saying `what`. */
export async function waitFor(what: string, condition: () => boolean | Promise<boolean>, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
