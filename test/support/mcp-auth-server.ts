/**
 * The authorization side of a remote MCP server, for tests: node-oidc-provider (a real, certified
 * authorization server) with dynamic client registration (RFC 7591), resource indicators (RFC
 * 8707), PKCE required and revocation, on 127.0.0.1 with a random port; and a small protected
 * resource on node:http that serves its RFC 9728 metadata, answers 401 with
 * `WWW-Authenticate: Bearer resource_metadata="..."`, and accepts only this server's tokens issued
 * for it (`GET <path>/whoami`). Requests to the registration, token and revocation endpoints are
 * recorded. The full MCP server is another fixture's; this one only stands where its auth check is.
 *
 * ```ts
 * const as = await startMcpAuthServer();
 * const mcp = await as.protectedResource(); // on the authorization server's own origin
 * const other = await startProtectedResource({ authorizationServers: [as.issuer], verify: as.verify }); // on another origin
 * ```
 * Drive the sign-in with `authorizeWithFetch` from ./oidc-server.js.
 */
import { generateKeyPairSync, randomBytes, randomUUID } from "node:crypto";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import Provider, { type Adapter, type AdapterPayload, errors } from "oidc-provider";
import { quietly, readBody, replay } from "./oidc-server.js";

/** One request to the registration endpoint. */
export interface RegistrationRecord {
  body: Record<string, unknown>;
  status?: number;
}

/** One request to the token endpoint. */
export interface McpTokenRequest {
  grantType: string;
  resource: string | null;
  clientId: string | null;
  authMethod: "client_secret_basic" | "client_secret_post" | "none";
  status?: number;
}

/** One request to the revocation endpoint. */
export interface McpRevocation {
  token: string;
  status?: number;
}

/** A protected resource's request: the token sent and the answer's status. */
export interface ResourceRequest {
  method: string;
  path: string;
  accessToken?: string;
  status: number;
}

/** What verifying a bearer token found: the account, and the audience it was issued for. */
export type Verify = (token: string) => Promise<{ sub: string; audience: string | undefined } | undefined>;

export interface ProtectedResourceOptions {
  /** The MCP endpoint's path. Default `/mcp`. */
  path?: string;
  /** The issuers its metadata names. */
  authorizationServers: string[];
  verify: Verify;
  /** Whether the 401 names the metadata URL (`resource_metadata`). Default true. */
  announce?: boolean;
  /** Where the metadata is served besides the root well-known URL. Default the well-known URL with the path. */
  metadataAt?: string;
  /** The scopes the 401 asks for (`scope`), if any. */
  challengeScope?: string;
  /** The metadata document: the defaults changed, or a raw body (a string). */
  metadata?: (defaults: Record<string, unknown>) => unknown;
  /** `root`: the metadata only at the root well-known URL, not at the one with the path. Default both. */
  wellKnown?: "both" | "root";
  /** Scopes the metadata advertises. Default `["mcp:tools"]`. */
  scopes?: string[];
  /** Further routes on the same server, by path (a fake authorization server's metadata). */
  routes?: Record<string, (req: IncomingMessage, res: ServerResponse, origin: string) => void>;
}

export interface ProtectedResource {
  /** The MCP endpoint's URL (the resource identifier). */
  url: string;
  origin: string;
  requests: ResourceRequest[];
  /** How often each metadata URL was read, by path. */
  metadataReads: Map<string, number>;
  close(): Promise<void>;
}

export interface McpAuthServer {
  issuer: string;
  provider: Provider;
  registrations: RegistrationRecord[];
  tokenRequests: McpTokenRequest[];
  revocations: McpRevocation[];
  /** Resource identifiers the server issues tokens for (a protected resource adds its own). */
  resources: Set<string>;
  serverErrors: unknown[];
  verify: Verify;
  /** A protected resource on this server's own origin. */
  protectedResource(options?: Partial<ProtectedResourceOptions>): ProtectedResource;
  close(): Promise<void>;
}

const DAY = 24 * 60 * 60;

/** Starts the authorization server on 127.0.0.1 with a random port. */
export async function startMcpAuthServer(
  options: { registration?: boolean; clients?: Array<Record<string, unknown>> } = {},
): Promise<McpAuthServer> {
  const registrations: RegistrationRecord[] = [];
  const tokenRequests: McpTokenRequest[] = [];
  const revocations: McpRevocation[] = [];
  const resources = new Set<string>();
  const serverErrors: unknown[] = [];
  const mounted: Array<ReturnType<typeof resourceHandler>> = [];
  const store = new MemoryStore();

  let handle: (req: IncomingMessage, res: ServerResponse) => void = (_req, res) => void res.writeHead(503).end();
  const server = createServer((req, res) => handle(req, res));
  await listen(server);
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  const provider = quietly(
    () =>
      new Provider(issuer, {
        adapter: (model: string) => store.adapterFor(model),
        clients: options.clients ?? [],
        jwks: { keys: signingKeys() },
        cookies: { keys: [randomBytes(32).toString("base64url")] },
        scopes: ["openid", "offline_access"],
        findAccount: async (_ctx: unknown, accountId: string) => ({ accountId, claims: async () => ({ sub: accountId }) }),
        features: {
          devInteractions: { enabled: true },
          registration: { enabled: options.registration !== false },
          revocation: { enabled: true },
          resourceIndicators: {
            enabled: true,
            defaultResource: async () => undefined,
            useGrantedResource: async () => true,
            getResourceServerInfo: async (_ctx: unknown, resource: string) => {
              if (!resources.has(resource)) throw new (errors.InvalidTarget as new () => Error)();
              return { scope: "mcp:tools", audience: resource, accessTokenTTL: 3600, accessTokenFormat: "opaque" };
            },
          },
        },
        pkce: { required: () => true },
        issueRefreshToken: async (_ctx: unknown, client: { grantTypeAllowed(type: string): boolean }) =>
          client.grantTypeAllowed("refresh_token"),
        rotateRefreshToken: true,
        expiresWithSession: async () => false,
        ttl: { AccessToken: 3600, AuthorizationCode: 60, RefreshToken: 14 * DAY, Interaction: 3600, Session: 14 * DAY, Grant: 14 * DAY },
        clientBasedCORS: () => false,
      }),
  );
  provider.on("server_error", (_ctx: unknown, error: unknown) => serverErrors.push(error));
  provider.on("error", (error: unknown) => serverErrors.push(error));
  const callback = provider.callback();

  const verify: Verify = async (token) => {
    const found = (await provider.AccessToken.find(token)) as { accountId: string; aud?: string; isExpired: boolean } | undefined;
    if (!found || found.isExpired) return undefined;
    return { sub: found.accountId, audience: found.aud };
  };

  handle = (req, res) => {
    route(req, res).catch((error: unknown) => {
      serverErrors.push(error);
      if (!res.headersSent) res.writeHead(500);
      res.end("fixture error");
    });
  };

  async function route(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const path = new URL(req.url ?? "/", issuer).pathname;
    const resource = mounted.find((r) => r.owns(path));
    if (resource) return resource.serve(req, res);
    if (req.method !== "POST" || !["/reg", "/token", "/token/revocation"].includes(path)) return void callback(req, res);
    const body = await readBody(req);
    const text = body.toString("utf8");
    const form = new URLSearchParams((req.headers["content-type"] ?? "").startsWith("application/x-www-form-urlencoded") ? text : "");
    const authMethod = req.headers.authorization?.toLowerCase().startsWith("basic ")
      ? "client_secret_basic"
      : form.has("client_secret")
        ? "client_secret_post"
        : "none";
    let record: RegistrationRecord | McpTokenRequest | McpRevocation;
    if (path === "/reg") {
      record = { body: JSON.parse(text || "{}") as Record<string, unknown> };
      registrations.push(record);
    } else if (path === "/token") {
      record = { grantType: form.get("grant_type") ?? "", resource: form.get("resource"), clientId: form.get("client_id"), authMethod };
      tokenRequests.push(record);
    } else {
      record = { token: form.get("token") ?? "" };
      revocations.push(record);
    }
    res.once("finish", () => (record.status = res.statusCode));
    callback(replay(req, body), res);
  }

  return {
    issuer,
    provider,
    registrations,
    tokenRequests,
    revocations,
    resources,
    serverErrors,
    verify,
    protectedResource(partial = {}) {
      const resource = resourceHandler(issuer, { authorizationServers: [issuer], verify, ...partial });
      resources.add(resource.url);
      // The MCP endpoint and its well-known metadata URLs are served here; the rest is the provider's.
      mounted.push(resource);
      return {
        url: resource.url,
        origin: issuer,
        requests: resource.requests,
        metadataReads: resource.metadataReads,
        close: async () => {},
      };
    },
    close: () => close(server),
  };
}

/** Starts a protected resource on its own origin (127.0.0.1, another port). */
export async function startProtectedResource(options: ProtectedResourceOptions): Promise<ProtectedResource> {
  let serve: (req: IncomingMessage, res: ServerResponse) => Promise<void> = async (_req, res) => void res.writeHead(503).end();
  const server = createServer((req, res) => void serve(req, res).catch(() => res.writeHead(500).end()));
  await listen(server);
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const resource = resourceHandler(origin, options);
  serve = resource.serve;
  return { url: resource.url, origin, requests: resource.requests, metadataReads: resource.metadataReads, close: () => close(server) };
}

/** The protected resource's routes on `origin`: its endpoint, its metadata at both well-known URLs, and any extra routes. */
function resourceHandler(origin: string, options: ProtectedResourceOptions) {
  const path = options.path ?? "/mcp";
  const url = `${origin}${path}`;
  const requests: ResourceRequest[] = [];
  const metadataReads = new Map<string, number>();
  const metadataPath = options.metadataAt ?? `/.well-known/oauth-protected-resource${path}`;
  const defaults = {
    resource: url,
    authorization_servers: options.authorizationServers,
    scopes_supported: options.scopes ?? ["mcp:tools"],
  };

  const serve = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const at = new URL(req.url ?? "/", origin).pathname;
    const extra = options.routes?.[at];
    if (extra) return extra(req, res, origin);
    if ((at === metadataPath && options.wellKnown !== "root") || at === "/.well-known/oauth-protected-resource") {
      metadataReads.set(at, (metadataReads.get(at) ?? 0) + 1);
      const document = options.metadata ? options.metadata({ ...defaults }) : defaults;
      if (document === undefined) return void res.writeHead(404).end();
      res.writeHead(200, { "content-type": "application/json" });
      return void res.end(typeof document === "string" ? document : JSON.stringify(document));
    }
    if (at !== path && !at.startsWith(`${path}/`)) return void res.writeHead(404).end();
    await readBody(req);
    const accessToken = /^Bearer\s+(\S+)$/i.exec(req.headers.authorization ?? "")?.[1];
    const record: ResourceRequest = { method: req.method ?? "GET", path: at, status: 401, ...(accessToken ? { accessToken } : {}) };
    requests.push(record);
    const account = accessToken ? await options.verify(accessToken) : undefined;
    if (!account || account.audience !== url) {
      const announce =
        (options.announce !== false ? `, resource_metadata="${origin}${metadataPath}"` : "") +
        (options.challengeScope ? `, scope="${options.challengeScope}"` : "");
      res.writeHead(401, { "www-authenticate": `Bearer error="invalid_token"${announce}`, "content-type": "application/json" });
      return void res.end(JSON.stringify({ error: "invalid_token" }));
    }
    record.status = 200;
    res.writeHead(200, { "content-type": "application/json" });
    res.end(JSON.stringify({ sub: account.sub, audience: account.audience }));
  };
  const owns = (at: string) =>
    at === path ||
    at.startsWith(`${path}/`) ||
    at === metadataPath ||
    (at === "/.well-known/oauth-protected-resource" && options.wellKnown === "root") ||
    !!options.routes?.[at];
  return { url, path, serve, owns, requests, metadataReads };
}

/** oidc-provider's storage, in memory, one per fixture. */
class MemoryStore {
  #entries = new Map<string, AdapterPayload>();

  adapterFor(model: string): Adapter {
    const key = (id: string) => `${model}:${id}`;
    const where = (test: (payload: AdapterPayload) => boolean) => {
      for (const [k, payload] of this.#entries) if (k.startsWith(`${model}:`) && test(payload)) return structuredClone(payload);
      return undefined;
    };
    return {
      upsert: async (id, payload) => void this.#entries.set(key(id), structuredClone(payload)),
      find: async (id) => {
        const payload = this.#entries.get(key(id));
        return payload === undefined ? undefined : structuredClone(payload);
      },
      findByUid: async (uid) => where((p) => p.uid === uid),
      findByUserCode: async (code) => where((p) => p.userCode === code),
      consume: async (id) => {
        const payload = this.#entries.get(key(id));
        if (payload) payload.consumed = Math.floor(Date.now() / 1000);
      },
      destroy: async (id) => void this.#entries.delete(key(id)),
      revokeByGrantId: async (grantId) => {
        for (const [k, payload] of this.#entries) if (k.startsWith(`${model}:`) && payload.grantId === grantId) this.#entries.delete(k);
      },
    };
  }
}

function listen(server: ReturnType<typeof createServer>): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => resolve());
  });
}

function close(server: ReturnType<typeof createServer>): Promise<void> {
  server.closeAllConnections();
  return new Promise((resolve) => server.close(() => resolve()));
}

function signingKeys(): Array<Record<string, unknown>> {
  const rsa = generateKeyPairSync("rsa", { modulusLength: 2048 }).privateKey.export({ format: "jwk" });
  return [{ ...rsa, kid: randomUUID(), use: "sig", alg: "RS256" }];
}
