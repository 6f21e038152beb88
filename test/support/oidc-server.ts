/**
 * A real, standards-compliant OAuth 2 / OpenID Connect authorization server for tests.
 *
 * It is node-oidc-provider (the certified reference implementation) mounted on a `node:http` server
 * on 127.0.0.1 with a random port, configured for one confidential client, with a few test hooks
 * wrapped around it (request counters, a mutable access-token lifetime, fault injection, bulk
 * revocation). Nothing here is mocked: discovery, the authorization endpoint with its own login and
 * consent pages, the token endpoint, userinfo and revocation are oidc-provider's. Beside it, under
 * `/api`, a small protected resource checks bearer tokens against the provider's own token store.
 *
 * ```ts
 * const as = await startOidcServer({ redirectUris: ["https://app.test/proxy/tools/auth/callback"] });
 * const callbackUrl = await as.authorizeWithFetch(authorizationUrl, { login: "alice" });
 * // ... hand callbackUrl to the handler under test ...
 * await as.close();
 * ```
 *
 * See `authorizeWithFetch` below for driving the sign-in pages without a browser, and
 * `test/support/oidc-browser.ts` for driving them in Chromium.
 */
import { generateKeyPairSync, randomBytes, randomUUID } from "node:crypto";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { Readable } from "node:stream";
import Provider, { type Adapter, type AdapterPayload, errors, type KoaContextWithOIDC } from "oidc-provider";

/** Options of {@link startOidcServer}. */
export interface OidcServerOptions {
  /**
   * The client's registered redirect URIs, matched exactly by the authorization server (any
   * scheme/host is accepted for a confidential web client, including `http://127.0.0.1:<port>/...`
   * and `https://app.test/...`, which is never contacted: the fixture hands the URL back).
   * May be empty with `dynamicRegistration`: then no client is preregistered.
   */
  redirectUris: string[];
  /**
   * Dynamic client registration (RFC 7591) at `endpoints.registration`, open to anyone (no initial
   * access token), public clients (`token_endpoint_auth_method: "none"`) included. Default false.
   * A registered client gets refresh tokens only if it registers the `refresh_token` grant type.
   */
  dynamicRegistration?: boolean;
  /**
   * Resource indicators (RFC 8707): called with each `resource` a client asks for; answer the
   * resource server's settings, or `undefined` to refuse it (`invalid_target`). Access tokens for a
   * resource carry it as their audience; the JWT format is signed with the provider's keys (the
   * JWKS at `endpoints.jwks`) and carries the grant's id as `grant_id`, so a resource server can
   * tell a revoked grant. Also turns on token introspection (RFC 7662). Default: no resources.
   */
  resourceServer?: (resource: string) => ResourceServerSettings | undefined;
  /** Also serve RFC 8414 metadata at `/.well-known/oauth-authorization-server`. Default false. */
  authorizationServerMetadata?: boolean;
  /**
   * Extra routes on the same origin, consulted before the provider: return true when the request
   * was answered. Lets a protected resource share the authorization server's origin.
   */
  extraRoutes?: (req: IncomingMessage, res: ServerResponse, url: URL) => boolean | Promise<boolean>;
  /** Default `"tools-proxy-test-client"`. */
  clientId?: string;
  /** Default: 32 random bytes, base64url. */
  clientSecret?: string;
  /**
   * The client's registered `token_endpoint_auth_method`. Default `"client_secret_basic"`.
   * oidc-provider accepts either secret-based method for a client registered with one of them,
   * so this only changes what discovery/registration says.
   */
  tokenEndpointAuthMethod?: "client_secret_basic" | "client_secret_post";
  /**
   * Non-OpenID scopes the server knows, in addition to `openid profile email offline_access`.
   * Default `["notes:read", "notes:write"]`. A requested scope the server does not know is
   * silently dropped from the grant (oidc-provider's behaviour), so list every scope a test uses.
   */
  extraScopes?: string[];
  /** Initial access token lifetime in seconds (integer >= 1). Default 3600. */
  accessTokenTtl?: number;
  /**
   * Claims per login, merged over the defaults derived from the login
   * (`sub` = login, `name` = capitalised login, `email` = `<login>@example.test`, `email_verified`).
   * Any login name is accepted by the sign-in page; this only customises claims.
   */
  accounts?: Record<string, Partial<AccountClaims>>;
}

/** What {@link OidcServerOptions.resourceServer} answers for a resource it accepts. */
export interface ResourceServerSettings {
  /** Space-separated scopes the resource accepts. Default `""` (tokens carry no resource scope). */
  scope?: string;
  /** Default `"jwt"` (RFC 9068, `typ: at+jwt`, ES256). `"opaque"` tokens are checked by introspection. */
  accessTokenFormat?: "jwt" | "opaque";
}

/** The claims of one test account (what userinfo returns with `openid profile email`). */
export interface AccountClaims {
  sub: string;
  name: string;
  email: string;
  email_verified: boolean;
}

/** One HTTP request that reached the token endpoint (recorded before oidc-provider sees it). */
export interface TokenRequestRecord {
  /** `grant_type` from the form body (`"authorization_code"`, `"refresh_token"`, ...; `""` if absent). */
  grantType: string;
  /** `Date.now()` when the request arrived. */
  at: number;
  /** How the client authenticated: Basic header, `client_secret` in the body, or neither. */
  authMethod: "client_secret_basic" | "client_secret_post" | "none";
  /** HTTP status of the answer; `undefined` until the response has been sent. */
  status?: number;
  /** True when the answer came from {@link OidcServer.failNextTokenRequests}, not from oidc-provider. */
  injected?: boolean;
}

/** One HTTP request that reached the revocation endpoint. */
export interface RevocationRecord {
  /** The `token` form parameter, as sent. */
  token: string;
  /** The `token_type_hint` form parameter, if any. */
  tokenTypeHint?: string;
  at: number;
  authMethod: "client_secret_basic" | "client_secret_post" | "none";
  status?: number;
}

/** One request to the fixture's protected resource under `/api`. */
export interface ApiRequestRecord {
  method: string;
  /** Path and query, e.g. `/api/notes`. */
  path: string;
  /** The bearer token sent, if any. */
  accessToken?: string;
  at: number;
  /** 200, 401 (missing/expired/revoked token), 403 (insufficient scope) or 404. */
  status: number;
}

/** An error answer to inject at the token endpoint. */
export interface InjectedTokenError {
  /** HTTP status. Default 400. */
  status?: number;
  /** OAuth `error` code. Default `"invalid_grant"`. */
  error?: string;
  /** Default `"injected by the test fixture"`. */
  errorDescription?: string;
  /** Only requests with this grant_type are failed (and count down). Default: any. */
  grantType?: string;
}

/** Options of {@link authorizeWithFetch}. */
export interface AuthorizeOptions {
  /** Login name typed into the sign-in form. Default `"alice"`. */
  login?: string;
  /** Password typed into the sign-in form (the dev sign-in page accepts any). Default `"secret"`. */
  password?: string;
  /** `"approve"` submits the consent form; `"deny"` follows its "[ Cancel ]" link (`error=access_denied`). Default `"approve"`. */
  decision?: "approve" | "deny";
}

/** A running authorization server. */
export interface OidcServer {
  /** Issuer identifier, `http://127.0.0.1:<port>` (no trailing slash); equals the `iss` it sends. */
  issuer: string;
  /** Same as `issuer` (the server is mounted at the root). */
  origin: string;
  clientId: string;
  clientSecret: string;
  redirectUris: string[];
  /** Every scope the server supports: `openid profile email offline_access` + `extraScopes`. */
  scopes: string[];
  /** Absolute endpoint URLs (as in the discovery document). */
  endpoints: {
    discovery: string;
    authorization: string;
    token: string;
    userinfo: string;
    revocation: string;
    jwks: string;
    /** RFC 7591 registration endpoint (answers only with `dynamicRegistration`). */
    registration: string;
    /** RFC 7662 introspection endpoint (answers only with `resourceServer`). */
    introspection: string;
    /** RFC 8414 metadata (answers only with `authorizationServerMetadata`). */
    authorizationServerMetadata: string;
  };
  /** Every request to the token endpoint, in arrival order. Tests may reset it with `.length = 0`. */
  tokenRequests: TokenRequestRecord[];
  /** Every request to the revocation endpoint, in arrival order. */
  revocations: RevocationRecord[];
  /**
   * Base URL of a protected resource that accepts this server's access tokens, `<issuer>/api`:
   * `GET /api/me` (any valid token) → `{ sub, scope, clientId }`; `GET /api/notes` (scope
   * `notes:read`) → `{ sub, notes: [...] }`; `POST /api/notes` (scope `notes:write`) → `201` echoing
   * the JSON body. A missing, expired or revoked token is a 401 with
   * `WWW-Authenticate: Bearer error="invalid_token"`; a missing scope a 403 `insufficient_scope`.
   */
  apiBaseUrl: string;
  /** Every request to the protected resource, in arrival order. */
  apiRequests: ApiRequestRecord[];
  /** Errors oidc-provider reported as `server_error`, plus fixture failures. Should stay empty. */
  serverErrors: unknown[];
  /** The underlying oidc-provider instance (escape hatch). */
  provider: Provider;
  /** Lifetime of access tokens issued from now on, in whole seconds (>= 1). */
  setAccessTokenTtl(seconds: number): void;
  /** Holds every token request this long before oidc-provider handles it (0 = off). */
  setTokenDelay(ms: number): void;
  /** Answers the next `count` matching token requests with an error instead of processing them. */
  failNextTokenRequests(count?: number, error?: InjectedTokenError): void;
  /**
   * Revokes every grant: all access tokens, refresh tokens and unused codes issued so far become
   * unusable (refresh → `invalid_grant`, userinfo → 401 `invalid_token`). Browser sessions survive.
   */
  revokeAllGrants(): Promise<void>;
  /** Deletes every refresh token (refresh → `invalid_grant`); access tokens keep working. */
  invalidateRefreshTokens(): Promise<void>;
  /** Deletes every access token (userinfo → 401 `invalid_token`); refresh tokens keep working. */
  revokeAccessTokens(): Promise<void>;
  /** Whether the authorization server would accept this access token right now (asks its userinfo endpoint). */
  isAccessTokenActive(accessToken: string): Promise<boolean>;
  /** The claims userinfo returns for `login` (with scopes `openid profile email`). Default login `"alice"`. */
  userinfoFor(login?: string): AccountClaims;
  /** {@link authorizeWithFetch}, for convenience. */
  authorizeWithFetch(authorizationUrl: string | URL, options?: AuthorizeOptions): Promise<URL>;
  /** Stops the server and drops every connection. */
  close(): Promise<void>;
}

const TOKEN_PATH = "/token";
const REVOCATION_PATH = "/token/revocation";
const AS_METADATA_PATH = "/.well-known/oauth-authorization-server";
const OIDC_SCOPES = ["openid", "profile", "email", "offline_access"];
const DAY = 24 * 60 * 60;

/** Starts the authorization server on 127.0.0.1 with a random port. */
export async function startOidcServer(options: OidcServerOptions): Promise<OidcServer> {
  if (!options.redirectUris?.length && !options.dynamicRegistration)
    throw new TypeError("startOidcServer: redirectUris must list at least one URI");

  const clientId = options.clientId ?? "tools-proxy-test-client";
  const clientSecret = options.clientSecret ?? randomBytes(32).toString("base64url");
  const scopes = [...OIDC_SCOPES, ...(options.extraScopes ?? ["notes:read", "notes:write"])];
  let accessTokenTtl = checkTtl(options.accessTokenTtl ?? 3600);
  let tokenDelayMs = 0;
  const injected: Array<Required<Omit<InjectedTokenError, "grantType">> & { grantType?: string; remaining: number }> = [];
  const tokenRequests: TokenRequestRecord[] = [];
  const revocations: RevocationRecord[] = [];
  const apiRequests: ApiRequestRecord[] = [];
  const serverErrors: unknown[] = [];
  const store = new FixtureStore();

  const userinfoFor = (login = "alice"): AccountClaims => ({
    sub: login,
    name: login.charAt(0).toUpperCase() + login.slice(1),
    email: `${login}@example.test`,
    email_verified: true,
    ...options.accounts?.[login],
  });

  // The port is only known after listen(); the provider needs the issuer at construction, so
  // listen first and install the provider's handler afterwards.
  let handle: (req: IncomingMessage, res: ServerResponse) => void = (_req, res) => {
    res.writeHead(503).end();
  };
  const server = createServer((req, res) => handle(req, res));
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  const issuer = `http://127.0.0.1:${port}`;

  const provider = quietly(
    () =>
      new Provider(issuer, {
        adapter: (model: string) => store.adapterFor(model),
        clients: options.redirectUris.length
          ? [
              {
                client_id: clientId,
                client_secret: clientSecret,
                client_name: "tools-proxy test client",
                // A confidential *web* client: http redirect URIs (loopback or not) are allowed for the
                // code flow; only implicit-flow web clients are restricted to https.
                application_type: "web",
                redirect_uris: options.redirectUris,
                grant_types: ["authorization_code", "refresh_token"],
                response_types: ["code"],
                token_endpoint_auth_method: options.tokenEndpointAuthMethod ?? "client_secret_basic",
              },
            ]
          : [],
        jwks: { keys: signingKeys() },
        ...(options.resourceServer ? { extraTokenClaims: grantIdClaim } : {}),
        cookies: { keys: [randomBytes(32).toString("base64url")] },
        scopes,
        claims: {
          openid: ["sub"],
          profile: ["name"],
          email: ["email", "email_verified"],
        },
        findAccount: async (_ctx: unknown, accountId: string) => ({
          accountId,
          claims: async () => ({ ...userinfoFor(accountId) }),
        }),
        features: {
          devInteractions: { enabled: true },
          userinfo: { enabled: true },
          revocation: { enabled: true, allowedPolicy: revocationAllowedPolicy },
          rpInitiatedLogout: { enabled: false },
          registration: { enabled: options.dynamicRegistration === true, initialAccessToken: false },
          introspection: { enabled: options.resourceServer !== undefined },
          ...(options.resourceServer ? { resourceIndicators: resourceIndicators(options.resourceServer) } : {}),
        },
        pkce: { required: () => true },
        // Refresh tokens for this client always, even without `offline_access` (oidc-provider only
        // keeps `offline_access` when `prompt=consent` is requested) and rotate them on every use.
        issueRefreshToken: async (_ctx: unknown, client: { grantTypeAllowed(type: string): boolean }) =>
          client.grantTypeAllowed("refresh_token"),
        rotateRefreshToken: true,
        // Tokens outlive the sign-in session (the fixture's sessions are throwaway cookie jars).
        expiresWithSession: async () => false,
        ttl: {
          AccessToken: () => accessTokenTtl,
          AuthorizationCode: 60,
          IdToken: 3600,
          RefreshToken: 14 * DAY,
          Interaction: 3600,
          Session: 14 * DAY,
          Grant: 14 * DAY,
          ClientCredentials: 600,
          DeviceCode: 600,
          BackchannelAuthenticationRequest: 600,
          PreAuthorizedCode: 600,
        },
        // Expired means expired: oidc-provider otherwise accepts tokens up to 15 s past `exp`.
        clockTolerance: 0,
        clientBasedCORS: () => false,
        renderError,
      }),
  );
  provider.on("server_error", (_ctx: unknown, error: unknown) => serverErrors.push(error));
  // Koa would print unhandled errors to stderr; keep them for the test to inspect instead.
  provider.on("error", (error: unknown) => serverErrors.push(error));

  if (options.resourceServer) provider.use(defaultScopeForResource(options.resourceServer));
  const callback = provider.callback();

  handle = (req, res) => {
    route(req, res).catch((error: unknown) => {
      serverErrors.push(error);
      if (!res.headersSent) res.writeHead(500, { "content-type": "text/plain" });
      res.end("fixture error");
    });
  };

  /** Records token/revocation requests (reading and replaying the body), then hands over to oidc-provider. */
  async function route(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const requestUrl = new URL(req.url ?? "/", issuer);
    if (options.extraRoutes && (await options.extraRoutes(req, res, requestUrl))) return;
    const path = requestUrl.pathname;
    if (options.authorizationServerMetadata && path === AS_METADATA_PATH && req.method === "GET") {
      await authorizationServerMetadata(res);
      return;
    }
    if (path === "/api" || path.startsWith("/api/")) {
      await protectedResource(req, res, path);
      return;
    }
    if (req.method !== "POST" || (path !== TOKEN_PATH && path !== REVOCATION_PATH)) {
      callback(req, res);
      return;
    }
    const body = await readBody(req);
    const form = new URLSearchParams(
      (req.headers["content-type"] ?? "").startsWith("application/x-www-form-urlencoded") ? body.toString("utf8") : "",
    );
    const authMethod = req.headers.authorization?.toLowerCase().startsWith("basic ")
      ? "client_secret_basic"
      : form.has("client_secret")
        ? "client_secret_post"
        : "none";

    if (path === REVOCATION_PATH) {
      const record: RevocationRecord = { token: form.get("token") ?? "", at: Date.now(), authMethod };
      const hint = form.get("token_type_hint");
      if (hint !== null) record.tokenTypeHint = hint;
      revocations.push(record);
      res.once("finish", () => (record.status = res.statusCode));
      callback(replay(req, body), res);
      return;
    }

    const record: TokenRequestRecord = { grantType: form.get("grant_type") ?? "", at: Date.now(), authMethod };
    tokenRequests.push(record);
    res.once("finish", () => (record.status = res.statusCode));
    if (tokenDelayMs > 0) await new Promise((resolve) => setTimeout(resolve, tokenDelayMs));

    const fault = injected.find((f) => f.remaining > 0 && (f.grantType === undefined || f.grantType === record.grantType));
    if (fault) {
      fault.remaining -= 1;
      record.injected = true;
      res.writeHead(fault.status, { "content-type": "application/json", "cache-control": "no-store" });
      res.end(JSON.stringify({ error: fault.error, error_description: fault.errorDescription }));
      return;
    }
    callback(replay(req, body), res);
  }

  /** The resource server behind `/api`: validates bearer tokens against the provider's own store. */
  async function protectedResource(req: IncomingMessage, res: ServerResponse, path: string): Promise<void> {
    const method = req.method ?? "GET";
    const accessToken = /^Bearer\s+(\S+)$/i.exec(req.headers.authorization ?? "")?.[1];
    const record: ApiRequestRecord = { method, path: req.url ?? path, at: Date.now(), status: 0 };
    if (accessToken !== undefined) record.accessToken = accessToken;
    apiRequests.push(record);
    const body = await readBody(req);
    const send = (status: number, value: unknown, headers: Record<string, string> = {}) => {
      record.status = status;
      res.writeHead(status, { "content-type": "application/json", ...headers }).end(JSON.stringify(value));
    };
    const challenge = (status: number, error: string, description: string, scope?: string) =>
      send(
        status,
        { error, error_description: description },
        {
          "www-authenticate": `Bearer realm="${issuer}/api", error="${error}", error_description="${description}"${scope ? `, scope="${scope}"` : ""}`,
        },
      );

    const token = accessToken === undefined ? undefined : await provider.AccessToken.find(accessToken);
    const grant = token?.grantId ? await provider.Grant.find(token.grantId) : undefined;
    if (!token || !grant || token.isExpired) {
      if (accessToken === undefined) {
        record.status = 401;
        res.writeHead(401, { "content-type": "application/json", "www-authenticate": `Bearer realm="${issuer}/api"` });
        res.end(JSON.stringify({ error: "invalid_request", error_description: "no access token" }));
        return;
      }
      challenge(401, "invalid_token", "the access token is invalid, expired or revoked");
      return;
    }
    const scopes = new Set((token.scope ?? "").split(" "));
    const need = (scope: string) => {
      if (scopes.has(scope)) return true;
      challenge(403, "insufficient_scope", `the access token lacks the ${scope} scope`, scope);
      return false;
    };
    if (path === "/api/me" && method === "GET") {
      send(200, { sub: token.accountId, scope: token.scope, clientId: token.clientId });
    } else if (path === "/api/notes" && method === "GET") {
      if (need("notes:read"))
        send(200, {
          sub: token.accountId,
          notes: [
            { id: "n1", title: "First note" },
            { id: "n2", title: "Second note" },
          ],
        });
    } else if (path === "/api/notes" && method === "POST") {
      if (!need("notes:write")) return;
      let note: unknown;
      try {
        note = JSON.parse(body.toString("utf8") || "{}");
      } catch {
        send(400, { error: "invalid_request", error_description: "the body is not JSON" });
        return;
      }
      send(201, { sub: token.accountId, note });
    } else {
      send(404, { error: "not_found" });
    }
  }

  const url = (path: string) => `${issuer}${path}`;

  /** RFC 8414 metadata: oidc-provider's discovery document, which already has every field RFC 8414 names. */
  async function authorizationServerMetadata(res: ServerResponse): Promise<void> {
    const response = await fetch(url("/.well-known/openid-configuration"));
    const body = await response.text();
    res.writeHead(response.status, { "content-type": "application/json; charset=utf-8" }).end(body);
  }

  return {
    issuer,
    origin: issuer,
    clientId,
    clientSecret,
    redirectUris: [...options.redirectUris],
    scopes,
    endpoints: {
      discovery: url("/.well-known/openid-configuration"),
      authorization: url("/auth"),
      token: url(TOKEN_PATH),
      userinfo: url("/me"),
      revocation: url(REVOCATION_PATH),
      jwks: url("/jwks"),
      registration: url("/reg"),
      introspection: url("/token/introspection"),
      authorizationServerMetadata: url(AS_METADATA_PATH),
    },
    tokenRequests,
    revocations,
    apiBaseUrl: url("/api"),
    apiRequests,
    serverErrors,
    provider,
    setAccessTokenTtl(seconds) {
      accessTokenTtl = checkTtl(seconds);
    },
    setTokenDelay(ms) {
      tokenDelayMs = Math.max(0, ms);
    },
    failNextTokenRequests(count = 1, error = {}) {
      const fault: (typeof injected)[number] = {
        remaining: count,
        status: error.status ?? 400,
        error: error.error ?? "invalid_grant",
        errorDescription: error.errorDescription ?? "injected by the test fixture",
      };
      if (error.grantType !== undefined) fault.grantType = error.grantType;
      injected.push(fault);
    },
    revokeAllGrants: async () => store.revokeAllGrants(),
    invalidateRefreshTokens: async () => store.deleteModel("RefreshToken"),
    revokeAccessTokens: async () => store.deleteModel("AccessToken"),
    async isAccessTokenActive(accessToken) {
      const response = await fetch(url("/me"), { headers: { authorization: `Bearer ${accessToken}` } });
      await response.body?.cancel();
      return response.ok;
    },
    userinfoFor,
    authorizeWithFetch,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

// ---------------------------------------------------------------------------------------------
// Driving the authorization server's own sign-in and consent pages over plain HTTP.
// ---------------------------------------------------------------------------------------------

/**
 * Plays the user in a browser: GETs `authorizationUrl`, follows redirects (with a fresh cookie jar)
 * to oidc-provider's sign-in page, submits its form, then submits (or cancels) the consent page, and
 * returns the URL the authorization server finally redirects to — the client's `redirect_uri` with
 * `code`, `state` and `iss` (or `error=access_denied`). That last URL is NOT requested: pass it to
 * the callback handler under test. Forms are read from the served HTML (action, hidden inputs).
 *
 * Throws if the authorization server answers with an error page (e.g. an unregistered
 * redirect_uri), quoting the error it shows.
 */
export async function authorizeWithFetch(authorizationUrl: string | URL, options: AuthorizeOptions = {}): Promise<URL> {
  const login = options.login ?? "alice";
  const password = options.password ?? "secret";
  const decision = options.decision ?? "approve";
  const start = new URL(authorizationUrl);
  const asOrigin = start.origin;
  const jar = new CookieJar();

  let request: { url: URL; method: "GET" | "POST"; form?: URLSearchParams } = { url: start, method: "GET" };
  const seen = { login: 0, consent: 0 };
  for (let step = 0; step < 20; step++) {
    const headers: Record<string, string> = { accept: "text/html" };
    const cookie = jar.header(request.url);
    if (cookie) headers.cookie = cookie;
    if (request.form) headers["content-type"] = "application/x-www-form-urlencoded";
    const response = await fetch(request.url, {
      method: request.method,
      headers,
      body: request.form?.toString(),
      redirect: "manual",
    });
    jar.store(request.url, response.headers.getSetCookie());

    const location = response.headers.get("location");
    if (response.status >= 300 && response.status < 400 && location) {
      await response.body?.cancel();
      const next = new URL(location, request.url);
      if (next.origin !== asOrigin) return next;
      request = { url: next, method: "GET" };
      continue;
    }

    const html = await response.text();
    if (!response.ok)
      throw new Error(`authorization server answered ${response.status} at ${request.url.pathname}: ${describeErrorPage(html)}`);

    const form = parseForms(html).find((f) => f.inputs.has("prompt"));
    const prompt = form?.inputs.get("prompt");
    if (!form || (prompt !== "login" && prompt !== "consent")) {
      throw new Error(`unexpected page at ${request.url.pathname}: no sign-in or consent form`);
    }
    if (++seen[prompt] > 1) throw new Error(`the authorization server showed the ${prompt} page again (was "${login}" rejected?)`);

    if (prompt === "consent" && decision === "deny") {
      const cancel = /<a\b[^>]*href="([^"]*)"[^>]*>\s*\[\s*Cancel\s*\]/i.exec(html)?.[1];
      if (!cancel) throw new Error("consent page has no Cancel link");
      request = { url: new URL(decodeHtml(cancel), request.url), method: "GET" };
      continue;
    }
    const fields = new URLSearchParams([...form.inputs]);
    if (prompt === "login") {
      fields.set("login", login);
      fields.set("password", password);
    }
    request = { url: new URL(form.action, request.url), method: "POST", form: fields };
  }
  throw new Error("authorizeWithFetch: too many redirects/pages");
}

/** A parsed `<form>`: its absolute-or-relative action and every named input's value. */
interface ParsedForm {
  action: string;
  method: string;
  inputs: Map<string, string>;
}

function parseForms(html: string): ParsedForm[] {
  const forms: ParsedForm[] = [];
  for (const match of html.matchAll(/<form\b([^>]*)>([\s\S]*?)<\/form>/gi)) {
    const attributes = parseAttributes(match[1] ?? "");
    const inputs = new Map<string, string>();
    for (const input of (match[2] ?? "").matchAll(/<input\b([^>]*?)\/?>/gi)) {
      const a = parseAttributes(input[1] ?? "");
      const name = a.get("name");
      if (name) inputs.set(name, a.get("value") ?? "");
    }
    forms.push({ action: attributes.get("action") ?? "", method: (attributes.get("method") ?? "get").toLowerCase(), inputs });
  }
  return forms;
}

function parseAttributes(source: string): Map<string, string> {
  const attributes = new Map<string, string>();
  for (const m of source.matchAll(/([a-zA-Z_:][-a-zA-Z0-9_:.]*)(?:\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s"'>]+)))?/g)) {
    attributes.set(m[1]!.toLowerCase(), decodeHtml(m[2] ?? m[3] ?? m[4] ?? ""));
  }
  return attributes;
}

function decodeHtml(text: string): string {
  return text.replace(/&(#x[0-9a-f]+|#[0-9]+|amp|lt|gt|quot|apos);/gi, (_, entity: string) => {
    const e = entity.toLowerCase();
    if (e.startsWith("#x")) return String.fromCodePoint(parseInt(e.slice(2), 16));
    if (e.startsWith("#")) return String.fromCodePoint(parseInt(e.slice(1), 10));
    return ({ amp: "&", lt: "<", gt: ">", quot: '"', apos: "'" } as Record<string, string>)[e] ?? "";
  });
}

/** Extracts `error: description` from the fixture's own error page (see {@link renderError}). */
function describeErrorPage(html: string): string {
  const fields = [...html.matchAll(/<pre data-field="([^"]+)">([\s\S]*?)<\/pre>/g)].map((m) => `${m[1]}=${decodeHtml(m[2] ?? "")}`);
  return fields.length
    ? fields.join(", ")
    : html
        .replace(/<[^>]+>/g, " ")
        .replace(/\s+/g, " ")
        .trim()
        .slice(0, 300);
}

/** A minimal cookie jar (name, path, expiry) — enough for oidc-provider's session/interaction cookies. */
class CookieJar {
  #cookies = new Map<string, { name: string; value: string; path: string; expires: number }>();

  store(url: URL, setCookies: string[]): void {
    for (const header of setCookies) {
      const [pair = "", ...attributes] = header.split(";");
      const eq = pair.indexOf("=");
      if (eq <= 0) continue;
      const name = pair.slice(0, eq).trim();
      const value = pair.slice(eq + 1).trim();
      let path = url.pathname.replace(/\/[^/]*$/, "") || "/";
      let expires = Infinity;
      for (const attribute of attributes) {
        const [key = "", ...rest] = attribute.split("=");
        const v = rest.join("=").trim();
        switch (key.trim().toLowerCase()) {
          case "path":
            path = v || "/";
            break;
          case "max-age":
            expires = Date.now() + Number(v) * 1000;
            break;
          case "expires":
            if (expires === Infinity) expires = Date.parse(v);
            break;
        }
      }
      const key = `${name}\n${path}`;
      if (expires <= Date.now()) this.#cookies.delete(key);
      else this.#cookies.set(key, { name, value, path, expires });
    }
  }

  header(url: URL): string {
    const now = Date.now();
    return [...this.#cookies.values()]
      .filter((c) => c.expires > now && (url.pathname === c.path || url.pathname.startsWith(c.path.endsWith("/") ? c.path : `${c.path}/`)))
      .sort((a, b) => b.path.length - a.path.length)
      .map((c) => `${c.name}=${c.value}`)
      .join("; ");
  }
}

// ---------------------------------------------------------------------------------------------
// Provider plumbing.
// ---------------------------------------------------------------------------------------------

/**
 * oidc-provider storage: an in-memory store shared by every model (oidc-provider's own memory
 * adapter prints a warning and is module-global, so each fixture gets its own). Payloads are cloned
 * in and out like a database would. `consume()` is atomic for authorization codes and refresh
 * tokens: the second consumer of the same value — e.g. two concurrent refreshes with one refresh
 * token — gets `invalid_grant` and the whole grant is revoked, as oidc-provider does when it sees
 * a reused refresh token. So a client that refreshes the same token twice, even in a race, fails.
 */
class FixtureStore {
  #entries = new Map<string, { model: string; payload: AdapterPayload; expiresAt: number }>();

  adapterFor(model: string): Adapter {
    const key = (id: string) => `${model}:${id}`;
    const live = (id: string) => {
      const entry = this.#entries.get(key(id));
      if (entry && entry.expiresAt <= Date.now()) {
        this.#entries.delete(key(id));
        return undefined;
      }
      return entry;
    };
    const findWhere = (predicate: (payload: AdapterPayload) => boolean) => {
      for (const [k, entry] of this.#entries) {
        if (entry.model === model && predicate(entry.payload)) return live(k.slice(model.length + 1))?.payload;
      }
      return undefined;
    };
    return {
      upsert: async (id, payload, expiresIn) => {
        // Keep records a little past their expiry so oidc-provider reports "expired", not "not found".
        const expiresAt = typeof expiresIn === "number" ? Date.now() + (expiresIn + 60) * 1000 : Infinity;
        this.#entries.set(key(id), { model, payload: structuredClone(payload), expiresAt });
      },
      find: async (id) => clone(live(id)?.payload),
      findByUid: async (uid) => clone(findWhere((p) => p.uid === uid)),
      findByUserCode: async (userCode) => clone(findWhere((p) => p.userCode === userCode)),
      consume: async (id) => {
        const entry = live(id);
        if (!entry) return;
        if (entry.payload.consumed && (model === "RefreshToken" || model === "AuthorizationCode")) {
          if (typeof entry.payload.grantId === "string") this.revokeGrant(entry.payload.grantId);
          throw new errors.InvalidGrant(`${model === "RefreshToken" ? "refresh token" : "authorization code"} already used`);
        }
        entry.payload.consumed = Math.floor(Date.now() / 1000);
      },
      destroy: async (id) => {
        this.#entries.delete(key(id));
      },
      revokeByGrantId: async (grantId) => {
        for (const [k, entry] of this.#entries) {
          if (entry.model === model && entry.payload.grantId === grantId) this.#entries.delete(k);
        }
      },
    };
  }

  /** Deletes every token of the grant and the grant itself. */
  revokeGrant(grantId: string): void {
    for (const [k, entry] of this.#entries) {
      if (entry.payload.grantId === grantId || k === `Grant:${grantId}`) this.#entries.delete(k);
    }
  }

  revokeAllGrants(): void {
    for (const [k, entry] of this.#entries) {
      if (entry.model === "Grant" || typeof entry.payload.grantId === "string") this.#entries.delete(k);
    }
  }

  deleteModel(model: string): void {
    for (const [k, entry] of this.#entries) if (entry.model === model) this.#entries.delete(k);
  }
}

function clone<T>(value: T | undefined): T | undefined {
  return value === undefined ? undefined : structuredClone(value);
}

/** Same rule as oidc-provider's default, minus its "you should change this" notice. */
async function revocationAllowedPolicy(_ctx: unknown, client: { clientId: string }, token: { clientId?: string }) {
  if (token.clientId !== client.clientId) throw new errors.InvalidRequest("client is not authorized to revoke the presented token");
  return true;
}

/** oidc-provider's HTML error page, minus the Google Fonts import and the notice; fields are machine-readable. */
async function renderError(ctx: KoaContextWithOIDC, out: Record<string, string>): Promise<void> {
  ctx.type = "html";
  const rows = Object.entries(out)
    .map(([k, v]) => `<pre data-field="${escapeHtml(k)}">${escapeHtml(String(v))}</pre>`)
    .join("");
  ctx.body = `<!DOCTYPE html><html><head><meta charset="utf-8"><title>oops! something went wrong</title></head><body><h1>oops! something went wrong</h1>${rows}</body></html>`;
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/** oidc-provider's resource indicator settings around the fixture's simpler callback. */
function resourceIndicators(resourceServer: (resource: string) => ResourceServerSettings | undefined) {
  return {
    enabled: true,
    // A client that names no resource gets a token for none (only usable at userinfo).
    defaultResource: async (_ctx: unknown, _client: unknown, oneOf?: string[]) => oneOf?.[0],
    // Refreshes and code exchanges without `resource` keep the resource granted at authorization.
    useGrantedResource: async () => true,
    getResourceServerInfo: async (_ctx: unknown, resource: string) => {
      const settings = resourceServer(resource);
      if (!settings) throw new errors.InvalidTarget("this authorization server does not issue tokens for that resource");
      const format = settings.accessTokenFormat ?? "jwt";
      return {
        scope: settings.scope ?? "",
        accessTokenFormat: format,
        ...(format === "jwt" ? { jwt: { sign: { alg: "ES256" } } } : {}),
      };
    },
  };
}

/**
 * oidc-provider denies an authorization that grants no scope at all, while MCP clients commonly
 * send only `resource`: such a request (GET) gets the resource's own scopes, as a real server would
 * default them.
 */
function defaultScopeForResource(resourceServer: (resource: string) => ResourceServerSettings | undefined) {
  return async (ctx: KoaContextWithOIDC, next: () => Promise<void>) => {
    if (ctx.method === "GET" && ctx.path === "/auth" && !ctx.query.scope && typeof ctx.query.resource === "string") {
      const scope = resourceServer(ctx.query.resource)?.scope;
      if (scope) ctx.query = { ...ctx.query, scope };
    }
    await next();
  };
}

/** Puts the grant's id in tokens for a resource server, so it can tell a revoked grant without storage. */
async function grantIdClaim(_ctx: unknown, token: { grantId?: string; resourceServer?: unknown }) {
  return token.resourceServer && token.grantId ? { grant_id: token.grantId } : undefined;
}

let cachedKeys: Array<Record<string, unknown>> | undefined;

/**
 * Signing keys (RS256 for ID tokens by default, ES256 too) as private JWKs, generated once per
 * process: RSA generation is the slowest part of starting a fixture.
 */
function signingKeys(): Array<Record<string, unknown>> {
  cachedKeys ??= freshSigningKeys();
  return cachedKeys.map((key) => ({ ...key }));
}

function freshSigningKeys(): Array<Record<string, unknown>> {
  const rsa = generateKeyPairSync("rsa", { modulusLength: 2048 }).privateKey.export({ format: "jwk" });
  const ec = generateKeyPairSync("ec", { namedCurve: "P-256" }).privateKey.export({ format: "jwk" });
  return [
    { ...rsa, kid: randomUUID(), use: "sig", alg: "RS256" },
    { ...ec, kid: randomUUID(), use: "sig", alg: "ES256" },
  ];
}

function checkTtl(seconds: number): number {
  if (!Number.isInteger(seconds) || seconds < 1)
    throw new RangeError(`access token TTL must be a whole number of seconds >= 1, got ${seconds}`);
  return seconds;
}

/**
 * Runs `construct` with oidc-provider's start-up console notices suppressed (it always warns, once,
 * that devInteractions are development-only — they are exactly what this fixture wants).
 */
export function quietly<T>(construct: () => T): T {
  const { warn, info } = console;
  const keep =
    (original: (...args: unknown[]) => void) =>
    (...args: unknown[]) => {
      if (typeof args[0] === "string" && args[0].includes("oidc-provider")) return;
      original.apply(console, args);
    };
  console.warn = keep(warn);
  console.info = keep(info);
  try {
    return construct();
  } finally {
    console.warn = warn;
    console.info = info;
  }
}

export async function readBody(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

/**
 * A stand-in for `req` whose body can be read again (we consumed the original to record it).
 * Koa and oidc-provider read headers, method, url and socket from it and stream the body.
 */
export function replay(req: IncomingMessage, body: Buffer): IncomingMessage {
  const copy = Readable.from(body.length ? [body] : [], { objectMode: false });
  Object.assign(copy, {
    headers: req.headers,
    rawHeaders: req.rawHeaders,
    method: req.method,
    url: req.url,
    httpVersion: req.httpVersion,
    httpVersionMajor: req.httpVersionMajor,
    httpVersionMinor: req.httpVersionMinor,
    socket: req.socket,
    connection: req.socket,
    complete: true,
    aborted: false,
    trailers: {},
    rawTrailers: [],
  });
  return copy as unknown as IncomingMessage;
}
