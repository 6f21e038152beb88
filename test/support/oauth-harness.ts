/**
 * An in-process tools-proxy handler wired to the real OpenID Connect fixture
 * (test/support/oidc-server.ts), for the OAuth tests under test/oauth/.
 *
 * It records every response, log line and hook event, and every secret the flow handles: the
 * handler's outbound fetch is wrapped so each token request's code, code_verifier and refresh
 * token, and each token response's access, refresh and ID tokens, become secrets that
 * `assertNoLeaks()` looks for in every output (with the client secret, the handler secret and
 * the API keys).
 */
import { expect } from "vitest";
import { z } from "zod";
import { createCredentialCipher } from "../../src/credentials/cipher.js";
import { openCredential } from "../../src/credentials/sealing.js";
import {
  createToolsHandler,
  defineTool,
  defineToolkit,
  issueApiKey,
  type LeaseStore,
  type Logger,
  memoryStore,
  type OAuth2Scheme,
  oauth2,
  type Toolkit,
  ToolRunError,
  type ToolsEvents,
  type ToolsHandler,
  type ToolsStore,
} from "../../src/index.js";
import type { AuthorizeOptions, OidcServer } from "./oidc-server.js";

const RUN = Math.random().toString(36).slice(2, 10);
/** The handler secret (>= 32 bytes). */
export const OAUTH_TEST_SECRET = `oauth-test-secret-${RUN}-0123456789abcdef0123`;
export const PUBLIC_URL = "https://app.test";
export const CALLBACK_URL = `${PUBLIC_URL}/proxy/tools/auth/callback`;
/** An extra origin a returnUrl may use. */
export const RETURN_ORIGIN = "https://dashboard.test";
export const SCOPES = ["openid", "profile", "email", "offline_access", "notes:read", "notes:write"];

/** The OIDC fixture as an OAuth 2 scheme (every endpoint, this client, `SCOPES`); `auth` overrides fields. */
export function fixtureAuth(as: OidcServer, auth: Partial<OAuth2Scheme> = {}): OAuth2Scheme {
  return oauth2({
    authorizationUrl: as.endpoints.authorization,
    tokenUrl: as.endpoints.token,
    clientId: as.clientId,
    clientSecret: as.clientSecret,
    scopes: SCOPES,
    issuer: as.issuer,
    userInfoUrl: as.endpoints.userinfo,
    revocationUrl: as.endpoints.revocation,
    ...auth,
  });
}

/**
 * The fixture's protected API as an OAuth 2 toolkit. `prefix` keeps tool slugs unique when several
 * variants are registered; `auth` overrides fields of the scheme.
 */
export function notesToolkit(as: OidcServer, options: { slug?: string; prefix?: string; auth?: Partial<OAuth2Scheme> } = {}): Toolkit {
  const slug = options.slug ?? "notes";
  const prefix = options.prefix ?? "NOTES";
  return defineToolkit({
    slug,
    name: `Notes ${slug}`,
    description: "The OIDC fixture's protected notes API.",
    baseUrl: as.apiBaseUrl,
    auth: fixtureAuth(as, options.auth),
    tools: [
      defineTool({
        slug: `${prefix}_ME`,
        name: "Me",
        description: "Reads the account behind the token from the API.",
        input: z.object({}),
        run: async (_args, ctx) => {
          const response = await ctx.fetch(`${as.apiBaseUrl}/me`);
          if (!response.ok)
            throw new ToolRunError(`The API answered ${response.status}.`, { code: "upstream_error", upstreamStatus: response.status });
          return response.json();
        },
      }),
    ],
  });
}

export interface OAuthHarnessOptions {
  as: OidcServer;
  /** Default: one `notesToolkit(as)`. */
  toolkits?: Toolkit[];
  store?: ToolsStore;
  /** The handler's `leases` option (default: the store's own leases). */
  leases?: LeaseStore;
  publicUrl?: string;
  allowedReturnOrigins?: string[];
  /** Runs before every outbound request of the handler (to the provider or the API). */
  beforeFetch?: (url: string, init?: RequestInit) => void | Promise<void>;
}

export type OAuthHarness = Awaited<ReturnType<typeof createOAuthHarness>>;

export async function createOAuthHarness(options: OAuthHarnessOptions) {
  const { as } = options;
  const store = options.store ?? memoryStore();
  const logs: Array<{ level: string; message: string; fields: unknown }> = [];
  const events: Array<{ event: keyof ToolsEvents; payload: unknown }> = [];
  const responses: Array<{ what: string; status: number; headers: Record<string, string>; text: string }> = [];
  const secrets = new Set<string>([OAUTH_TEST_SECRET, as.clientSecret]);
  const authorizationIds: string[] = [];

  const record = (level: string) => (message: string, fields?: Record<string, unknown>) => void logs.push({ level, message, fields });
  const logger: Logger = { debug: record("debug"), info: record("info"), warn: record("warn"), error: record("error") };
  const hook = (event: keyof ToolsEvents) => (payload: unknown) => void events.push({ event, payload });
  const names: Array<keyof ToolsEvents> = [
    "auth.completed",
    "auth.failed",
    "token.refreshed",
    "connection.expired",
    "connection.created",
    "connection.deleted",
    "tool.executed",
    "proxy.requested",
  ];

  /** The handler's fetch: records every secret of the token endpoint's requests and answers. */
  const recordingFetch: typeof fetch = async (input, init) => {
    const url = input instanceof Request ? input.url : String(input);
    await options.beforeFetch?.(url, init);
    if (url === as.endpoints.token || url === as.endpoints.revocation) {
      const form = new URLSearchParams(typeof init?.body === "string" || init?.body instanceof URLSearchParams ? init.body : "");
      for (const name of ["code", "code_verifier", "refresh_token", "token"]) if (form.get(name)) secrets.add(form.get(name)!);
    }
    const response = await fetch(input, init);
    if (url === as.endpoints.token) {
      const body = (await response
        .clone()
        .json()
        .catch(() => ({}))) as Record<string, unknown>;
      for (const name of ["access_token", "refresh_token", "id_token"]) if (typeof body[name] === "string") secrets.add(body[name]);
    }
    return response;
  };

  const publicUrl = options.publicUrl ?? PUBLIC_URL;
  const handler: ToolsHandler = createToolsHandler({
    store,
    ...(options.leases ? { leases: options.leases } : {}),
    secret: OAUTH_TEST_SECRET,
    publicUrl,
    allowedReturnOrigins: options.allowedReturnOrigins ?? [RETURN_ORIGIN],
    logger,
    fetch: recordingFetch,
    hooks: Object.fromEntries(names.map((name) => [name, hook(name)])),
    toolkits: options.toolkits ?? [notesToolkit(as)],
  });
  const basePath = handler.basePath;
  // The handler keeps its cipher to itself; the same secret makes the same keys, for reading what it stored.
  const cipher = createCredentialCipher(OAUTH_TEST_SECRET);

  async function send(request: Request) {
    const response = await handler(request);
    const text = await response.text();
    const url = new URL(request.url);
    responses.push({
      what: `${request.method} ${url.pathname}`,
      status: response.status,
      headers: Object.fromEntries(response.headers),
      text,
    });
    let json: any;
    try {
      json = text ? JSON.parse(text) : undefined;
    } catch {
      json = undefined;
    }
    return { status: response.status, headers: response.headers, text, json };
  }

  /** The handler as a fetch function (for a real server) that records each answer for assertNoLeaks. */
  async function recordingHandler(request: Request): Promise<Response> {
    const response = await handler(request);
    const url = new URL(request.url);
    responses.push({
      what: `${request.method} ${url.pathname}`,
      status: response.status,
      headers: Object.fromEntries(response.headers),
      text: await response.clone().text(),
    });
    return response;
  }

  function call(method: string, path: string, opts: { key?: string; body?: unknown } = {}) {
    const headers = new Headers();
    if (opts.key) headers.set("x-api-key", opts.key);
    if (opts.body !== undefined) headers.set("content-type", "application/json");
    const body = opts.body === undefined ? undefined : JSON.stringify(opts.body);
    return send(new Request(`${publicUrl}${basePath}${path}`, { method, headers, body }));
  }

  /** The provider's redirect, as the browser (accept text/html) or a script would open it. */
  function callback(url: URL | string, accept = "application/json") {
    const code = new URL(url).searchParams.get("code");
    if (code) secrets.add(code);
    return send(new Request(url, { headers: { accept } }));
  }

  async function issueAgentKey(agentId: string, workspaceId = "ws1") {
    const { key } = await issueApiKey(store, { workspaceId, agentId });
    secrets.add(key);
    return key;
  }

  /** POST /auth; expects the 200 of a started OAuth flow. */
  async function startAuth(key: string, body: Record<string, unknown> = {}) {
    const res = await call("POST", "/auth", { key, body: { toolkit: "notes", ...body } });
    expect(res.status, res.text).toBe(200);
    authorizationIds.push(res.json.authorizationId);
    return res.json as { authorizationId: string; authorizationUrl: string; expiresAt: string };
  }

  /** The whole flow: start, sign in and consent at the provider, open the callback. */
  async function connect(key: string, body: Record<string, unknown> = {}, authorize: AuthorizeOptions = {}) {
    const started = await startAuth(key, body);
    const callbackUrl = await as.authorizeWithFetch(started.authorizationUrl, authorize);
    const response = await callback(callbackUrl);
    const status = await call("GET", `/auth/${started.authorizationId}`, { key });
    return { started, callbackUrl, response, status: status.json, connectionId: status.json.connectionId as string };
  }

  /** The decrypted stored credential of a connection. */
  async function credentialOf(connectionId: string) {
    const connection = await store.getConnection(connectionId);
    if (!connection) throw new Error(`no connection ${connectionId}`);
    const credential = await openCredential({ cipher, logger: { log() {} } }, connection);
    if (credential.type !== "oauth2") throw new Error("not an OAuth credential");
    return credential;
  }

  /** Payloads of the recorded hook events named `event`, once pending hooks have run. */
  async function eventsOf<E extends keyof ToolsEvents>(event: E): Promise<Array<ToolsEvents[E]>> {
    await new Promise((resolve) => setImmediate(resolve));
    return events.filter((e) => e.event === event).map((e) => e.payload as ToolsEvents[E]);
  }

  /** Every secret seen so far, including every token the fixture's API and revocation endpoint received. */
  function allSecrets(): string[] {
    for (const r of as.apiRequests) if (r.accessToken) secrets.add(r.accessToken);
    for (const r of as.revocations) if (r.token) secrets.add(r.token);
    return [...secrets].filter((s) => s.length >= 8);
  }

  /** No response (headers and body), log line or hook event contains a secret. */
  function assertNoLeaks(): void {
    const outputs = [
      ...responses.map((r) => ({ where: `response ${r.what} ${r.status}`, text: `${JSON.stringify(r.headers)}\n${r.text}` })),
      ...logs.map((l) => ({ where: `log ${l.level} "${l.message}"`, text: `${l.message} ${JSON.stringify(l.fields ?? {})}` })),
      ...events.map((e) => ({ where: `event ${e.event}`, text: JSON.stringify(e.payload) })),
    ];
    const leaks: string[] = [];
    for (const output of outputs)
      for (const secret of allSecrets()) if (output.text.includes(secret)) leaks.push(`${output.where} contains ${secret.slice(0, 6)}…`);
    expect(leaks, "secrets leaked").toEqual([]);
    // Each connection's flow really went through the recorder, so the check had tokens to look for.
    expect(responses.length).toBeGreaterThan(0);
  }

  return {
    as,
    handler,
    recordingHandler,
    store,
    cipher,
    basePath,
    logs,
    events,
    responses,
    authorizationIds,
    send,
    call,
    callback,
    issueAgentKey,
    startAuth,
    connect,
    credentialOf,
    eventsOf,
    secrets: allSecrets,
    addSecret: (value: string) => void secrets.add(value),
    assertNoLeaks,
  };
}

/** Every connection of the caller, as GET /connections lists it. */
export async function listConnections(h: OAuthHarness, key: string): Promise<Array<Record<string, any>>> {
  const res = await h.call("GET", "/connections", { key });
  expect(res.status, res.text).toBe(200);
  return res.json.connections;
}

/** The fixture's token requests from index `from` on, as `[grantType, status]` pairs. */
export function tokenCalls(as: OidcServer, from: number): Array<[string, number | undefined]> {
  return as.tokenRequests.slice(from).map((r) => [r.grantType, r.status]);
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
