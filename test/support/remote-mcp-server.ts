/**
 * A real remote MCP server behind a real authorization server, for the remote-MCP tests and bench.
 *
 * The MCP server is the official SDK's `McpServer` over `StreamableHTTPServerTransport` (stateful
 * sessions with `Mcp-Session-Id`, or stateless), plus the older HTTP+SSE transport (`GET /sse`,
 * `POST /messages`), on `node:http` at 127.0.0.1 with a random port. By default it requires
 * `Authorization: Bearer` access tokens issued for its own resource by node-oidc-provider (see
 * `oidc-server.ts`: dynamic client registration, PKCE S256, resource indicators, rotating refresh
 * tokens, revocation, RFC 8414 and OpenID discovery), checks them with `jose` against the
 * provider's JWKS (issuer, audience = the endpoint's resource, expiry, grant not revoked), and
 * answers a missing or bad token with 401 and `WWW-Authenticate: Bearer resource_metadata="<url>"`,
 * its RFC 9728 protected resource metadata naming the authorization server. Static bearer tokens,
 * or no auth, are options for tests that do not need OAuth.
 *
 * Each user sees their own tools (alice: notes, an admin report, echo, failing tools; bob: notes
 * and echo; carol: names that collide once made to fit a slug), which a test may change at runtime
 * (open sessions get `notifications/tools/list_changed`). Counters record requests, `initialize`s,
 * calls per tool and 401s; fault modes answer huge or malformed JSON-RPC, and the resource metadata
 * can be bent (another authorization server, a `resource` that does not match).
 *
 * ```ts
 * const remote = await startRemoteMcp();                       // OAuth, AS on the same origin
 * // A token the way the spec says (401 → metadata → registration → PKCE code flow with resource):
 * const token = await obtainToken(remote, { login: "alice" });
 * // ...or the SDK's own client, authorized by the SDK's own OAuth code (the bench's baseline):
 * const { client } = await connectSdkClient(remote, { login: "alice" });
 * await client.callTool({ name: "add_note", arguments: { title: "hi" } }); // structuredContent { id, title }
 * remote.setUserTools("alice", ["list_notes"]);                // open sessions get list_changed
 * remote.setFault({ kind: "not-json", times: 1 });              // the next tools/call answers garbage
 * remote.setAccessTokenTtl(1);                                   // tokens issued from now expire in 1 s
 * expect(remote.stats.toolCalls.add_note).toBe(1);
 * await client.close();
 * await remote.close();
 * ```
 *
 * A client under test that runs its own code flow hands the authorization URL to
 * `remote.authorizationServer.authorizeWithFetch(url, { login })` (or drives it in Chromium with
 * `oidc-browser.ts`) and gets back the redirect URL with `code`. JWT access tokens cannot be revoked
 * at the revocation endpoint (`400 unsupported_token_type`, as RFC 7009 allows); revoking the
 * refresh token revokes the grant, which the server checks on every request. Use
 * `accessTokenFormat: "opaque"` for access tokens that can be revoked and introspected themselves.
 */
import { createHash, randomBytes, randomUUID } from "node:crypto";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { type OAuthClientProvider, UnauthorizedError } from "@modelcontextprotocol/sdk/client/auth.js";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { SSEClientTransport } from "@modelcontextprotocol/sdk/client/sse.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { McpServer, type RegisteredTool } from "@modelcontextprotocol/sdk/server/mcp.js";
import { SSEServerTransport } from "@modelcontextprotocol/sdk/server/sse.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import type { OAuthClientInformationMixed, OAuthClientMetadata, OAuthTokens } from "@modelcontextprotocol/sdk/shared/auth.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { createRemoteJWKSet, jwtVerify } from "jose";
import { z } from "zod";
import { authorizeWithFetch, type OidcServer, startOidcServer } from "./oidc-server.js";

/** Options of {@link startRemoteMcp}. */
export interface RemoteMcpOptions {
  /**
   * How requests are authenticated. `"oauth"` (default): access tokens from the fixture's
   * authorization server for this server's resource. `{ bearerTokens }`: fixed tokens, each mapped
   * to a user (no authorization server is started; a 401 names no resource metadata). `"none"`:
   * every request is `anonymousUser`.
   */
  auth?: "oauth" | "none" | { bearerTokens: Record<string, string> };
  /**
   * Where the authorization server lives with `"oauth"`: on the MCP server's own origin (default,
   * as most vendors do), or `"separate"`: its own port, i.e. another origin that a client must be
   * told to allow.
   */
  authorizationServer?: "same-origin" | "separate";
  /** Access token format: `"jwt"` (default, verified with the JWKS) or `"opaque"` (checked in the provider's store). */
  accessTokenFormat?: "jwt" | "opaque";
  /** Initial access-token lifetime in seconds. Default 3600. See {@link RemoteMcp.setAccessTokenTtl}. */
  accessTokenTtl?: number;
  /** Stateless Streamable HTTP: no `Mcp-Session-Id`, a fresh server per request (so no list_changed). Default false. */
  stateless?: boolean;
  /** POST answers as plain JSON instead of an SSE stream (`enableJsonResponse`). Default false. */
  jsonResponse?: boolean;
  /** Tool names per user (see {@link TOOL_NAMES}); replaces the default map. Unknown users see no tools. */
  users?: Record<string, string[]>;
  /** The user of every request with `auth: "none"`. Default `"alice"`. */
  anonymousUser?: string;
}

/** The fault the server answers matching requests with (Streamable HTTP POSTs only). */
export type RemoteMcpFault = (
  | { kind: "huge-response" /** Size of the (valid JSON-RPC) answer in bytes. */; bytes: number }
  | { kind: "not-json" }
  | { kind: "not-jsonrpc" }
  | { kind: "jsonrpc-error"; code?: number; message?: string }
  | { kind: "endless-sse" }
  | { kind: "http-status"; status: number }
) & {
  /** JSON-RPC methods the fault applies to. Default `["tools/call"]`. */
  methods?: string[];
  /** How many requests get it before the server behaves again. Default: until `setFault(undefined)`. */
  times?: number;
};

/** What the server has seen since start (or {@link RemoteMcp.resetStats}). */
export interface RemoteMcpStats {
  /** HTTP requests to the MCP endpoints (`/mcp`, `/sse`, `/messages`), metadata excluded. */
  requests: number;
  /** JSON-RPC `initialize` requests received. */
  initializes: number;
  /** `tools/call` requests received, per tool name (faulted ones included). */
  toolCalls: Record<string, number>;
  /** JSON-RPC requests and notifications received, per method. */
  methods: Record<string, number>;
  /** 401 answers (missing, bad, expired or revoked token). */
  unauthorized: number;
  /** Requests whose token's user differs from the user the session was opened by (answered 403). */
  sessionUserMismatches: number;
  /** Requests answered by a fault. */
  faults: number;
  /** `notifications/tools/list_changed` sent to open sessions. */
  listChangedSent: number;
}

/** An open session, as the server sees it. */
export interface RemoteMcpSession {
  id: string;
  user: string;
  transport: "streamable-http" | "sse";
}

/** A running remote MCP server (and, with OAuth, its authorization server). */
export interface RemoteMcp {
  /** Origin of the MCP server, `http://127.0.0.1:<port>`. */
  origin: string;
  /** The Streamable HTTP endpoint, `<origin>/mcp`; also its resource identifier (RFC 8707). */
  url: string;
  /** The HTTP+SSE endpoint, `<origin>/sse` (messages go to `<origin>/messages?sessionId=`); also its resource identifier. */
  sseUrl: string;
  /** RFC 9728 metadata of `url`: `<origin>/.well-known/oauth-protected-resource/mcp`. */
  resourceMetadataUrl: string;
  /** RFC 9728 metadata of `sseUrl`: `<origin>/.well-known/oauth-protected-resource/sse`. */
  sseResourceMetadataUrl: string;
  /** The authorization server (`auth: "oauth"` only). Its `issuer` is `origin` unless `authorizationServer: "separate"`. */
  authorizationServer: OidcServer | undefined;
  /** The scope this server's resource accepts (`"mcp:tools"`), listed in its metadata. */
  scope: string;
  /** Live counters; see {@link RemoteMcpStats}. */
  stats: RemoteMcpStats;
  resetStats(): void;
  /** The tool names `user` currently sees. */
  userTools(user: string): string[];
  /**
   * Replaces the tools `user` sees (names from {@link TOOL_NAMES}); every open session of that user
   * gets `notifications/tools/list_changed` (once per added or removed tool).
   */
  setUserTools(user: string, names: string[]): void;
  /** Notes stored per user by `add_note` (each user starts with one). */
  notes(user: string): Array<{ id: string; title: string; body?: string }>;
  /** Answers matching requests with a fault from now on; `undefined` restores normal answers. */
  setFault(fault: RemoteMcpFault | undefined): void;
  /**
   * Fields merged over the protected resource metadata (both endpoints), e.g.
   * `{ authorization_servers: [other.issuer] }` or `{ resource: "https://elsewhere.test/mcp" }`;
   * a field set to `undefined` is removed. `undefined` restores the real document.
   */
  setResourceMetadata(overrides: Record<string, unknown> | undefined): void;
  /**
   * Whether a 401's `WWW-Authenticate` names `resource_metadata` (default true). With false a
   * client must find the metadata at its well-known path, as the MCP spec's fallback says.
   */
  setChallengeResourceMetadata(include: boolean): void;
  /** Lifetime in seconds of access tokens issued from now on (`auth: "oauth"`). */
  setAccessTokenTtl(seconds: number): void;
  /** Open sessions. */
  sessions(): RemoteMcpSession[];
  /** Ends every session: later requests with their `Mcp-Session-Id` get 404, as after a server restart. */
  closeSessions(): Promise<void>;
  /** Closes every session, stream and server (the authorization server too) and waits. */
  close(): Promise<void>;
}

/** Every tool the server knows; users see a subset. */
export const TOOL_NAMES = [
  "list_notes",
  "add_note",
  "admin_report",
  "echo",
  "always_fails",
  "throws",
  "slow",
  "a.b",
  "a_b",
  "a b",
  "a/b",
  "long_".repeat(40),
] as const;

/** The default tools per user. */
export const DEFAULT_USERS: Readonly<Record<string, readonly string[]>> = {
  alice: ["list_notes", "add_note", "admin_report", "echo", "always_fails", "throws", "slow"],
  bob: ["list_notes", "add_note", "echo"],
  carol: ["a.b", "a_b", "a b", "a/b", "long_".repeat(40)],
};

const SCOPE = "mcp:tools";
const MCP_PATH = "/mcp";
const SSE_PATH = "/sse";
const MESSAGES_PATH = "/messages";
const PRM_PREFIX = "/.well-known/oauth-protected-resource";

interface Session {
  id: string;
  user: string;
  kind: "streamable-http" | "sse";
  server: McpServer;
  tools: Map<string, RegisteredTool>;
  transport: StreamableHTTPServerTransport | SSEServerTransport;
}

/** Starts the MCP server (and its authorization server with `auth: "oauth"`) on 127.0.0.1. */
export async function startRemoteMcp(options: RemoteMcpOptions = {}): Promise<RemoteMcp> {
  const auth = options.auth ?? "oauth";
  const users = new Map<string, string[]>(Object.entries(options.users ?? DEFAULT_USERS).map(([u, names]) => [u, [...names]]));
  const notes = new Map<string, Array<{ id: string; title: string; body?: string }>>();
  const sessions = new Map<string, Session>();
  const endlessStreams = new Set<ServerResponse>();
  const stats = emptyStats();
  let fault: (RemoteMcpFault & { remaining: number }) | undefined;
  let metadataOverrides: Record<string, unknown> | undefined;
  let challengeNamesMetadata = true;

  let origin = "";
  let as: OidcServer | undefined;
  let ownServer: Server | undefined;
  const handle = (req: IncomingMessage, res: ServerResponse, url: URL) => route(req, res, url);

  if (auth === "oauth") {
    const sameOrigin = options.authorizationServer !== "separate";
    as = await startOidcServer({
      redirectUris: [],
      dynamicRegistration: true,
      authorizationServerMetadata: true,
      // Known to registration too: a client may register with the scope the metadata lists.
      extraScopes: [SCOPE],
      accessTokenTtl: options.accessTokenTtl ?? 3600,
      resourceServer: (resource) =>
        isOwnResource(resource) ? { scope: SCOPE, accessTokenFormat: options.accessTokenFormat ?? "jwt" } : undefined,
      ...(sameOrigin ? { extraRoutes: handle } : {}),
    });
    if (sameOrigin) origin = as.issuer;
  }
  if (!origin) {
    ownServer = createServer((req, res) => {
      void handle(req, res, new URL(req.url ?? "/", origin)).then((answered) => {
        if (!answered) res.writeHead(404, { "content-type": "text/plain" }).end("not found");
      });
    });
    await new Promise<void>((resolve, reject) => {
      ownServer?.once("error", reject);
      ownServer?.listen(0, "127.0.0.1", () => resolve());
    });
    origin = `http://127.0.0.1:${(ownServer.address() as AddressInfo).port}`;
  }
  const url = `${origin}${MCP_PATH}`;
  const sseUrl = `${origin}${SSE_PATH}`;
  const metadataUrlOf = (resource: string) => `${origin}${PRM_PREFIX}${new URL(resource).pathname}`;
  const jwks = as ? createRemoteJWKSet(new URL(as.endpoints.jwks)) : undefined;

  function isOwnResource(resource: string): boolean {
    const parsed = URL.parse(resource);
    return parsed !== null && (parsed.href === url || parsed.href === sseUrl);
  }

  /** Answers MCP, SSE and metadata requests; false for anything else (the authorization server's). */
  async function route(req: IncomingMessage, res: ServerResponse, requestUrl: URL): Promise<boolean> {
    const path = requestUrl.pathname;
    try {
      if (path === `${PRM_PREFIX}${MCP_PATH}` || path === `${PRM_PREFIX}${SSE_PATH}`) {
        resourceMetadata(res, path === `${PRM_PREFIX}${MCP_PATH}` ? url : sseUrl);
        return true;
      }
      if (path === MCP_PATH) await streamableHttp(req, res);
      else if (path === SSE_PATH && req.method === "GET") await openSse(req, res);
      else if (path === MESSAGES_PATH && req.method === "POST") await sseMessage(req, res, requestUrl);
      else return false;
    } catch (error) {
      if (!res.headersSent) res.writeHead(500, { "content-type": "text/plain" });
      res.end(`fixture error: ${error instanceof Error ? error.message : String(error)}`);
    }
    return true;
  }

  function resourceMetadata(res: ServerResponse, resource: string): void {
    const document: Record<string, unknown> = {
      resource,
      authorization_servers: as ? [as.issuer] : [],
      scopes_supported: [SCOPE],
      bearer_methods_supported: ["header"],
      resource_name: "Fixture notes MCP server",
      ...metadataOverrides,
    };
    for (const [key, value] of Object.entries(document)) if (value === undefined) delete document[key];
    res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(document));
  }

  /** The user the request's bearer token stands for, or a 401 answer (then undefined). */
  async function authenticate(req: IncomingMessage, res: ServerResponse, resource: string): Promise<string | undefined> {
    stats.requests += 1;
    if (auth === "none") return options.anonymousUser ?? "alice";
    const token = /^Bearer\s+(\S+)\s*$/i.exec(req.headers.authorization ?? "")?.[1];
    const user = token === undefined ? undefined : await userOf(token, resource);
    if (user !== undefined) return user;
    stats.unauthorized += 1;
    const parts = [`Bearer realm="mcp"`];
    if (as && challengeNamesMetadata) parts.push(`resource_metadata="${metadataUrlOf(resource)}"`);
    if (token !== undefined) parts.push(`error="invalid_token"`, `error_description="the access token is invalid, expired or revoked"`);
    else if (as) parts.push(`scope="${SCOPE}"`);
    res.writeHead(401, { "content-type": "application/json", "www-authenticate": parts.join(", ") });
    res.end(
      JSON.stringify({
        error: token === undefined ? "invalid_request" : "invalid_token",
        error_description: "a valid bearer token is required",
      }),
    );
    return undefined;
  }

  async function userOf(token: string, resource: string): Promise<string | undefined> {
    if (typeof auth === "object") return Object.hasOwn(auth.bearerTokens, token) ? auth.bearerTokens[token] : undefined;
    if (!as || !jwks) return undefined;
    if ((options.accessTokenFormat ?? "jwt") === "opaque") {
      const stored = await as.provider.AccessToken.find(token);
      const audiences = [stored?.aud].flat();
      if (!stored || stored.isExpired || !audiences.includes(resource) || !stored.grantId) return undefined;
      return (await as.provider.Grant.find(stored.grantId)) ? stored.accountId : undefined;
    }
    try {
      const { payload } = await jwtVerify(token, jwks, {
        issuer: as.issuer,
        audience: resource,
        typ: "at+jwt",
        algorithms: ["ES256"],
        clockTolerance: 0,
      });
      const grantId = payload.grant_id;
      if (typeof grantId !== "string" || typeof payload.sub !== "string") return undefined;
      return (await as.provider.Grant.find(grantId)) ? payload.sub : undefined;
    } catch {
      return undefined;
    }
  }

  // -------------------------------------------------------------------------------------------
  // Streamable HTTP.
  // -------------------------------------------------------------------------------------------

  async function streamableHttp(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const user = await authenticate(req, res, url);
    if (user === undefined) return;
    const body = req.method === "POST" ? await readJson(req) : { value: undefined, invalid: false };
    if (body.invalid) {
      jsonRpcError(res, 400, -32700, "Parse error: the body is not JSON");
      return;
    }
    const messages = [body.value].flat().filter(isObject);
    count(messages);
    if (req.method === "POST" && serveFault(res, messages)) return;

    if (options.stateless) {
      const server = buildServer(user);
      const transport = new StreamableHTTPServerTransport({
        sessionIdGenerator: undefined,
        enableJsonResponse: options.jsonResponse === true,
      });
      res.on("close", () => {
        void transport.close();
        void server.server.close();
      });
      await server.server.connect(transport);
      await transport.handleRequest(req, res, body.value);
      return;
    }

    const sessionId = req.headers["mcp-session-id"];
    if (typeof sessionId === "string") {
      const session = sessions.get(sessionId);
      if (session?.kind !== "streamable-http") {
        jsonRpcError(res, 404, -32001, "Session not found");
        return;
      }
      if (session.user !== user) {
        stats.sessionUserMismatches += 1;
        jsonRpcError(res, 403, -32000, "this session belongs to another user");
        return;
      }
      await (session.transport as StreamableHTTPServerTransport).handleRequest(req, res, body.value);
      return;
    }
    if (req.method !== "POST" || !messages.some((m) => m.method === "initialize")) {
      jsonRpcError(res, 400, -32000, "Bad Request: no valid session id");
      return;
    }
    const built = buildSession(user);
    const transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      enableJsonResponse: options.jsonResponse === true,
      onsessioninitialized: (id) => {
        sessions.set(id, { ...built, id, kind: "streamable-http", transport });
      },
    });
    transport.onclose = () => {
      if (transport.sessionId) sessions.delete(transport.sessionId);
    };
    await built.server.connect(transport);
    await transport.handleRequest(req, res, body.value);
  }

  /** Answers with the current fault if it applies to these messages; true when it did. */
  function serveFault(res: ServerResponse, messages: Array<Record<string, unknown>>): boolean {
    if (!fault || fault.remaining <= 0) return false;
    const methods = fault.methods ?? ["tools/call"];
    const message = messages.find((m) => typeof m.method === "string" && methods.includes(m.method));
    if (!message) return false;
    fault.remaining -= 1;
    stats.faults += 1;
    const id = message.id ?? null;
    switch (fault.kind) {
      case "not-json":
        res.writeHead(200, { "content-type": "application/json" }).end("{ this is not json ]]");
        break;
      case "not-jsonrpc":
        res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ hello: "world", id }));
        break;
      case "jsonrpc-error":
        res.writeHead(200, { "content-type": "application/json" });
        res.end(
          JSON.stringify({
            jsonrpc: "2.0",
            id,
            error: { code: fault.code ?? -32603, message: fault.message ?? "injected by the fixture" },
          }),
        );
        break;
      case "http-status":
        res.writeHead(fault.status, { "content-type": "text/plain" }).end(`injected status ${fault.status}`);
        break;
      case "endless-sse":
        endlessStreams.add(res);
        res.on("close", () => endlessStreams.delete(res));
        res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
        res.write(": this stream never ends\n\n");
        break;
      case "huge-response":
        void writeHuge(res, id, fault.bytes);
        break;
    }
    return true;
  }

  function count(messages: Array<Record<string, unknown>>): void {
    for (const message of messages) {
      if (typeof message.method !== "string") continue;
      stats.methods[message.method] = (stats.methods[message.method] ?? 0) + 1;
      if (message.method === "initialize") stats.initializes += 1;
      if (message.method === "tools/call") {
        const name = isObject(message.params) && typeof message.params.name === "string" ? message.params.name : "";
        stats.toolCalls[name] = (stats.toolCalls[name] ?? 0) + 1;
      }
    }
  }

  // -------------------------------------------------------------------------------------------
  // HTTP+SSE (the 2024-11-05 transport).
  // -------------------------------------------------------------------------------------------

  async function openSse(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const user = await authenticate(req, res, sseUrl);
    if (user === undefined) return;
    const built = buildSession(user);
    const transport = new SSEServerTransport(MESSAGES_PATH, res);
    sessions.set(transport.sessionId, { ...built, id: transport.sessionId, kind: "sse", transport });
    transport.onclose = () => sessions.delete(transport.sessionId);
    await built.server.connect(transport);
  }

  async function sseMessage(req: IncomingMessage, res: ServerResponse, requestUrl: URL): Promise<void> {
    const user = await authenticate(req, res, sseUrl);
    if (user === undefined) return;
    const session = sessions.get(requestUrl.searchParams.get("sessionId") ?? "");
    if (session?.kind !== "sse") {
      res.writeHead(404, { "content-type": "text/plain" }).end("Session not found");
      return;
    }
    if (session.user !== user) {
      stats.sessionUserMismatches += 1;
      res.writeHead(403, { "content-type": "text/plain" }).end("this session belongs to another user");
      return;
    }
    const body = await readJson(req);
    count([body.value].flat().filter(isObject));
    await (session.transport as SSEServerTransport).handlePostMessage(req, res, body.value);
  }

  // -------------------------------------------------------------------------------------------
  // The MCP server and its tools.
  // -------------------------------------------------------------------------------------------

  function buildSession(user: string): { user: string; server: McpServer; tools: Map<string, RegisteredTool> } {
    const server = new McpServer({ name: "fixture-notes", version: "1.0.0" }, { capabilities: { tools: { listChanged: true } } });
    // Installs the tools/list and tools/call handlers even for a user with no tools.
    server.registerTool("placeholder", { description: "" }, () => ({ content: [] })).remove();
    const tools = new Map<string, RegisteredTool>();
    for (const name of users.get(user) ?? []) tools.set(name, registerTool(server, name, user));
    return { user, server, tools };
  }

  function buildServer(user: string): McpServer {
    return buildSession(user).server;
  }

  function notesOf(user: string) {
    let list = notes.get(user);
    if (!list) {
      list = [{ id: `${user}-1`, title: `${user}'s first note` }];
      notes.set(user, list);
    }
    return list;
  }

  function registerTool(server: McpServer, name: string, user: string): RegisteredTool {
    return quietToolNameWarnings(() => defineTool(server, name, user, notesOf));
  }

  function setUserTools(user: string, names: string[]): void {
    for (const name of names)
      if (!(TOOL_NAMES as readonly string[]).includes(name)) throw new TypeError(`setUserTools: unknown tool ${name}`);
    users.set(user, [...names]);
    for (const session of sessions.values()) {
      if (session.user !== user) continue;
      for (const [name, tool] of session.tools) {
        if (names.includes(name)) continue;
        tool.remove();
        session.tools.delete(name);
        stats.listChangedSent += 1;
      }
      for (const name of names) {
        if (session.tools.has(name)) continue;
        session.tools.set(name, registerTool(session.server, name, user));
        stats.listChangedSent += 1;
      }
    }
  }

  async function closeSessions(): Promise<void> {
    const open = [...sessions.values()];
    sessions.clear();
    await Promise.all(open.map((s) => s.server.close().catch(() => undefined)));
  }

  return {
    origin,
    url,
    sseUrl,
    resourceMetadataUrl: metadataUrlOf(url),
    sseResourceMetadataUrl: metadataUrlOf(sseUrl),
    authorizationServer: as,
    scope: SCOPE,
    stats,
    resetStats: () => Object.assign(stats, emptyStats()),
    userTools: (user) => [...(users.get(user) ?? [])],
    setUserTools,
    notes: (user) => notesOf(user).map((n) => ({ ...n })),
    setFault(next) {
      fault = next ? { ...next, remaining: next.times ?? Number.POSITIVE_INFINITY } : undefined;
    },
    setResourceMetadata(overrides) {
      metadataOverrides = overrides ? { ...overrides } : undefined;
    },
    setChallengeResourceMetadata(include) {
      challengeNamesMetadata = include;
    },
    setAccessTokenTtl(seconds) {
      if (!as) throw new TypeError("setAccessTokenTtl: this server does not use OAuth");
      as.setAccessTokenTtl(seconds);
    },
    sessions: () => [...sessions.values()].map((s) => ({ id: s.id, user: s.user, transport: s.kind })),
    closeSessions,
    async close() {
      for (const res of endlessStreams) res.destroy();
      await closeSessions();
      if (ownServer) {
        const server = ownServer;
        await new Promise<void>((resolve) => {
          server.closeAllConnections();
          server.close(() => resolve());
        });
      }
      await as?.close();
    },
  };
}

/** Registers one tool of the catalogue on `server`, as `user` sees it. */
function defineTool(
  server: McpServer,
  name: string,
  user: string,
  notesOf: (user: string) => Array<{ id: string; title: string; body?: string }>,
): RegisteredTool {
  const noteShape = { id: z.string(), title: z.string() };
  switch (name) {
    case "list_notes":
      return server.registerTool(
        name,
        {
          title: "List notes",
          description: "Lists the caller's notes, newest last.",
          inputSchema: { limit: z.number().int().min(1).max(100).optional().describe("At most this many notes.") },
          outputSchema: { notes: z.array(z.object(noteShape)) },
          annotations: { title: "List notes", readOnlyHint: true, openWorldHint: false },
        },
        ({ limit }) => {
          const list = notesOf(user)
            .slice(-(limit ?? 100))
            .map(({ id, title }) => ({ id, title }));
          return { content: [{ type: "text", text: JSON.stringify({ notes: list }) }], structuredContent: { notes: list } };
        },
      );
    case "add_note":
      return server.registerTool(
        name,
        {
          title: "Add a note",
          description: "Adds a note for the caller and returns it.",
          inputSchema: { title: z.string().min(1).describe("The note's title."), body: z.string().optional() },
          outputSchema: noteShape,
          annotations: { title: "Add a note", readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
        },
        ({ title, body }) => {
          const list = notesOf(user);
          const note = { id: `${user}-${list.length + 1}`, title, ...(body === undefined ? {} : { body }) };
          list.push(note);
          return { content: [{ type: "text", text: `Added note ${note.id}` }], structuredContent: { id: note.id, title } };
        },
      );
    case "admin_report":
      return server.registerTool(
        name,
        { title: "Admin report", description: "Counts every user's notes (administrators only).", annotations: { readOnlyHint: true } },
        () => ({ content: [{ type: "text", text: `report for ${user}: ${notesOf(user).length} notes` }] }),
      );
    case "echo":
      return server.registerTool(
        name,
        {
          description: "Returns its text and the caller's user name.",
          inputSchema: { text: z.string() },
          outputSchema: { text: z.string(), user: z.string() },
        },
        ({ text }) => ({ content: [{ type: "text", text }], structuredContent: { text, user } }),
      );
    case "always_fails":
      return server.registerTool(
        name,
        { description: "Always answers with a tool error (isError: true)." },
        (): CallToolResult => ({ content: [{ type: "text", text: "the note service is unavailable" }], isError: true }),
      );
    case "throws":
      return server.registerTool(name, { description: "Throws inside the tool (the SDK answers isError: true)." }, () => {
        throw new Error("the tool threw");
      });
    case "slow":
      return server.registerTool(
        name,
        { description: "Answers after `ms` milliseconds.", inputSchema: { ms: z.number().int().min(0).max(60_000) } },
        async ({ ms }) => {
          await new Promise((resolve) => setTimeout(resolve, ms));
          return { content: [{ type: "text", text: `waited ${ms} ms` }] };
        },
      );
    default:
      if (!(TOOL_NAMES as readonly string[]).includes(name)) throw new TypeError(`unknown fixture tool ${name}`);
      return server.registerTool(name, { description: `The tool named ${JSON.stringify(name)}.` }, () => ({
        content: [{ type: "text", text: `called ${name}` }],
      }));
  }
}

// ---------------------------------------------------------------------------------------------
// Getting a token as an MCP client would: discovery, registration, the code flow with PKCE.
// ---------------------------------------------------------------------------------------------

/** Options of {@link obtainToken}. */
export interface ObtainTokenOptions {
  /** Who signs in. Default `"alice"`. */
  login?: string;
  /** The endpoint to get a token for: `"streamable-http"` (`url`, default) or `"sse"` (`sseUrl`). */
  transport?: "streamable-http" | "sse";
  /** Redirect URI to register (never contacted). Default `http://127.0.0.1:1/callback`. */
  redirectUri?: string;
  /** Plays the user; default {@link authorizeWithFetch}. See {@link Authorize}. */
  authorize?: Authorize;
}

/**
 * Plays the user at the authorization URL and resolves with the URL the authorization server
 * redirects back to (with `code`). {@link authorizeWithFetch} does it over HTTP; with Chromium:
 * `async (url, login) => { await page.goto(url.href); return signInAndConsent(page, { login }); }`
 * (see `oidc-browser.ts`).
 */
export type Authorize = (authorizationUrl: URL, login: string) => Promise<URL>;

const fetchAuthorize: Authorize = (authorizationUrl, login) => authorizeWithFetch(authorizationUrl, { login });

/** Tokens from {@link obtainToken}. */
export interface ObtainedToken {
  accessToken: string;
  refreshToken: string | undefined;
  /** Seconds, as the token endpoint said. */
  expiresIn: number;
  scope: string;
  /** The dynamically registered public client. */
  clientId: string;
  /** The resource the token is for. */
  resource: string;
  tokenEndpoint: string;
  /** Exchanges the refresh token for new tokens (with `resource`). */
  refresh(): Promise<ObtainedToken>;
}

/**
 * Gets an access token for `remote` the way the MCP authorization spec says: an unauthenticated
 * request for its 401 and `resource_metadata`, the protected resource metadata, the authorization
 * server's RFC 8414 metadata, dynamic registration of a public client, the code flow with PKCE
 * S256 and `resource` (sign-in and consent driven over HTTP), and the token request.
 */
export async function obtainToken(remote: RemoteMcp, options: ObtainTokenOptions = {}): Promise<ObtainedToken> {
  const endpoint = options.transport === "sse" ? remote.sseUrl : remote.url;
  const redirectUri = options.redirectUri ?? "http://127.0.0.1:1/callback";
  const challenge = await fetch(endpoint, { method: options.transport === "sse" ? "GET" : "POST" });
  await challenge.body?.cancel();
  const metadataUrl = /resource_metadata="([^"]+)"/.exec(challenge.headers.get("www-authenticate") ?? "")?.[1];
  if (challenge.status !== 401 || !metadataUrl) throw new Error(`expected a 401 with resource_metadata, got ${challenge.status}`);
  const prm = (await getJson(metadataUrl)) as { resource: string; authorization_servers: string[] };
  const issuer = new URL(prm.authorization_servers[0] ?? "");
  const asMetadata = (await getJson(new URL("/.well-known/oauth-authorization-server", issuer))) as Record<string, string>;
  const registration = await postJson(asMetadata.registration_endpoint ?? "", {
    client_name: "remote-mcp fixture client",
    redirect_uris: [redirectUri],
    grant_types: ["authorization_code", "refresh_token"],
    response_types: ["code"],
    token_endpoint_auth_method: "none",
  });
  const clientId = String(registration.client_id);
  const verifier = randomBytes(32).toString("base64url");
  const authorization = new URL(asMetadata.authorization_endpoint ?? "");
  authorization.search = new URLSearchParams({
    response_type: "code",
    client_id: clientId,
    redirect_uri: redirectUri,
    code_challenge: createHash("sha256").update(verifier).digest("base64url"),
    code_challenge_method: "S256",
    state: randomBytes(8).toString("base64url"),
    resource: prm.resource,
    scope: remote.scope,
  }).toString();
  const callback = await (options.authorize ?? fetchAuthorize)(authorization, options.login ?? "alice");
  const code = callback.searchParams.get("code");
  if (!code) throw new Error(`the authorization failed: ${callback.searchParams.get("error")}`);
  const tokenEndpoint = asMetadata.token_endpoint ?? "";
  return tokenRequest(tokenEndpoint, clientId, prm.resource, {
    grant_type: "authorization_code",
    code,
    redirect_uri: redirectUri,
    code_verifier: verifier,
  });
}

async function tokenRequest(
  tokenEndpoint: string,
  clientId: string,
  resource: string,
  form: Record<string, string>,
): Promise<ObtainedToken> {
  const response = await fetch(tokenEndpoint, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({ ...form, client_id: clientId, resource }),
  });
  const body = (await response.json()) as Record<string, unknown>;
  if (!response.ok) throw new Error(`the token endpoint answered ${response.status} ${String(body.error)}`);
  const refreshToken = typeof body.refresh_token === "string" ? body.refresh_token : undefined;
  return {
    accessToken: String(body.access_token),
    refreshToken,
    expiresIn: Number(body.expires_in),
    scope: String(body.scope ?? ""),
    clientId,
    resource,
    tokenEndpoint,
    refresh: () => {
      if (!refreshToken) throw new Error("no refresh token was issued");
      return tokenRequest(tokenEndpoint, clientId, resource, { grant_type: "refresh_token", refresh_token: refreshToken });
    },
  };
}

async function getJson(url: string | URL): Promise<unknown> {
  const response = await fetch(url);
  if (!response.ok) throw new Error(`GET ${String(url)} answered ${response.status}`);
  return response.json();
}

async function postJson(url: string, body: unknown): Promise<Record<string, unknown>> {
  const response = await fetch(url, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
  if (!response.ok) throw new Error(`POST ${url} answered ${response.status}: ${await response.text()}`);
  return (await response.json()) as Record<string, unknown>;
}

// ---------------------------------------------------------------------------------------------
// The SDK's own client, authorized by the SDK's own OAuth code (the "direct" baseline).
// ---------------------------------------------------------------------------------------------

const SDK_REDIRECT_URI = "http://127.0.0.1:1/sdk-callback";

/**
 * An `OAuthClientProvider` for the SDK's client transports that keeps everything in memory and
 * plays the user with {@link authorizeWithFetch} when the SDK redirects to the authorization server.
 */
export class FixtureOAuthProvider implements OAuthClientProvider {
  /** The URL the authorization server last redirected back to (with `code`). */
  callback: URL | undefined;
  #client: OAuthClientInformationMixed | undefined;
  #tokens: OAuthTokens | undefined;
  #verifier = "";

  constructor(
    readonly login: string,
    private readonly authorize: Authorize = fetchAuthorize,
  ) {}

  get redirectUrl(): string {
    return SDK_REDIRECT_URI;
  }

  get clientMetadata(): OAuthClientMetadata {
    return {
      client_name: "remote-mcp fixture SDK client",
      redirect_uris: [SDK_REDIRECT_URI],
      grant_types: ["authorization_code", "refresh_token"],
      response_types: ["code"],
      token_endpoint_auth_method: "none",
    };
  }

  clientInformation(): OAuthClientInformationMixed | undefined {
    return this.#client;
  }

  saveClientInformation(client: OAuthClientInformationMixed): void {
    this.#client = client;
  }

  tokens(): OAuthTokens | undefined {
    return this.#tokens;
  }

  saveTokens(tokens: OAuthTokens): void {
    this.#tokens = tokens;
  }

  async redirectToAuthorization(authorizationUrl: URL): Promise<void> {
    this.callback = await this.authorize(authorizationUrl, this.login);
  }

  saveCodeVerifier(verifier: string): void {
    this.#verifier = verifier;
  }

  codeVerifier(): string {
    return this.#verifier;
  }
}

/** Options of {@link connectSdkClient}. */
export interface ConnectSdkClientOptions {
  /** Who signs in (`auth: "oauth"`). Default `"alice"`. */
  login?: string;
  /** The bearer token to send instead of OAuth (static-bearer servers). */
  bearerToken?: string;
  /** Default `"streamable-http"`. */
  transport?: "streamable-http" | "sse";
  /** Plays the user; default {@link authorizeWithFetch}. */
  authorize?: Authorize;
}

/**
 * The SDK's `Client` connected to `remote` as the SDK does it: with `auth: "oauth"` its transport's
 * `authProvider` discovers, registers and runs the code flow ({@link FixtureOAuthProvider} signs in
 * as `login`), then connects again with the token; otherwise with `bearerToken`, if any.
 * Close the client when done.
 */
export async function connectSdkClient(
  remote: RemoteMcp,
  options: ConnectSdkClientOptions = {},
): Promise<{ client: Client; oauth: FixtureOAuthProvider | undefined }> {
  const endpoint = new URL(options.transport === "sse" ? remote.sseUrl : remote.url);
  const oauth =
    remote.authorizationServer && options.bearerToken === undefined
      ? new FixtureOAuthProvider(options.login ?? "alice", options.authorize)
      : undefined;
  const transportOptions = oauth
    ? { authProvider: oauth }
    : options.bearerToken === undefined
      ? {}
      : { requestInit: { headers: { authorization: `Bearer ${options.bearerToken}` } } };
  const makeTransport = () =>
    options.transport === "sse"
      ? new SSEClientTransport(endpoint, transportOptions)
      : new StreamableHTTPClientTransport(endpoint, transportOptions);
  const client = new Client({ name: "remote-mcp-fixture-client", version: "1.0.0" });
  const first = makeTransport();
  try {
    await client.connect(first);
    return { client, oauth };
  } catch (error) {
    if (!(error instanceof UnauthorizedError) || !oauth?.callback) throw error;
  }
  const code = oauth.callback.searchParams.get("code");
  if (!code) throw new Error(`the authorization failed: ${oauth.callback.searchParams.get("error")}`);
  await first.finishAuth(code);
  const authorized = new Client({ name: "remote-mcp-fixture-client", version: "1.0.0" });
  await authorized.connect(makeTransport());
  return { client: authorized, oauth };
}

// ---------------------------------------------------------------------------------------------
// Plumbing.
// ---------------------------------------------------------------------------------------------

function emptyStats(): RemoteMcpStats {
  return {
    requests: 0,
    initializes: 0,
    toolCalls: {},
    methods: {},
    unauthorized: 0,
    sessionUserMismatches: 0,
    faults: 0,
    listChangedSent: 0,
  };
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

async function readJson(req: IncomingMessage): Promise<{ value: unknown; invalid: boolean }> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  const text = Buffer.concat(chunks).toString("utf8");
  if (!text) return { value: undefined, invalid: false };
  try {
    return { value: JSON.parse(text), invalid: false };
  } catch {
    return { value: undefined, invalid: true };
  }
}

function jsonRpcError(res: ServerResponse, status: number, code: number, message: string): void {
  res.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify({ jsonrpc: "2.0", id: null, error: { code, message } }));
}

/** A valid JSON-RPC result of about `bytes` bytes, written in chunks with backpressure. */
async function writeHuge(res: ServerResponse, id: unknown, bytes: number): Promise<void> {
  const head = `{"jsonrpc":"2.0","id":${JSON.stringify(id)},"result":{"content":[{"type":"text","text":"`;
  const tail = `"}]}}`;
  res.writeHead(200, { "content-type": "application/json" });
  res.write(head);
  const chunk = "x".repeat(64 * 1024);
  let left = Math.max(0, bytes - head.length - tail.length);
  while (left > 0 && !res.destroyed) {
    const piece = left >= chunk.length ? chunk : chunk.slice(0, left);
    left -= piece.length;
    if (!res.write(piece)) await drainOrClose(res);
  }
  if (!res.destroyed) res.end(tail);
}

function drainOrClose(res: ServerResponse): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      res.off("drain", done).off("close", done);
      resolve();
    };
    res.on("drain", done).on("close", done);
  });
}

/**
 * Registers a tool with the SDK's console warnings silenced: it warns, synchronously and over
 * several lines, about names outside its recommended pattern, and those odd names are the point.
 */
function quietToolNameWarnings<T>(register: () => T): T {
  const { warn } = console;
  console.warn = () => undefined;
  try {
    return register();
  } finally {
    console.warn = warn;
  }
}
