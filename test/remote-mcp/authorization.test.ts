/**
 * The MCP authorization spec for remote MCP toolkits, over real HTTP: node-oidc-provider with
 * dynamic registration and resource indicators (test/support/mcp-auth-server.ts), a protected
 * resource that answers 401 with its metadata URL, and the handler's own routes (POST /auth, the
 * callback, POST /proxy to use and refresh the token, DELETE /connections to revoke it).
 */

import { readFileSync } from "node:fs";
import type { IncomingMessage, ServerResponse } from "node:http";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createCredentialCipher } from "../../src/credentials/cipher.js";
import { openCredential } from "../../src/credentials/sealing.js";
import { createToolsHandler, defineToolkit, issueApiKey, type Logger, memoryStore, type ToolsStore } from "../../src/index.js";
import { MAX_REDIRECTS, METADATA_MAX_BYTES } from "../../src/remote-mcp/fetch-metadata.js";
import { MAX_CLIENTS } from "../../src/remote-mcp/registration.js";
import { type McpAuthorizationOptions, mcpOAuthMode } from "../../src/toolkits/remote.js";
import { type McpAuthServer, type ProtectedResource, startMcpAuthServer, startProtectedResource } from "../support/mcp-auth-server.js";
import { authorizeWithFetch } from "../support/oidc-server.js";

const RUN = Math.random().toString(36).slice(2, 10);
const SECRET = `mcp-auth-test-secret-${RUN}-0123456789abcdef`;
const PUBLIC_URL = "https://app.test";
const CALLBACK_URL = `${PUBLIC_URL}/proxy/tools/auth/callback`;
let unique = 0;
const slug = (name: string) => `${name}-${RUN}-${++unique}`;

/** Every output of every handler of a test (answers, log lines) and every secret its fetch saw. */
const outputs: string[] = [];
const secrets = new Set<string>([SECRET]);

/** The handler's fetch: keeps each token, code and client secret that passes, for the leak check. */
const recordingFetch: typeof fetch = async (input, init) => {
  const body = typeof init?.body === "string" ? init.body : init?.body instanceof URLSearchParams ? init.body.toString() : "";
  for (const [name, value] of new URLSearchParams(body))
    if (["code", "code_verifier", "refresh_token", "token"].includes(name)) secrets.add(value);
  const response = await fetch(input, init);
  const text = await response
    .clone()
    .text()
    .catch(() => "");
  try {
    const json = JSON.parse(text) as Record<string, unknown>;
    for (const name of ["access_token", "refresh_token", "client_secret", "registration_access_token"])
      if (typeof json[name] === "string") secrets.add(json[name]);
  } catch {}
  return response;
};

function handlerFor(
  store: ToolsStore,
  toolkits: ReturnType<typeof defineToolkit>[],
  options: { allowPrivateNetworks?: boolean; lookup?: (hostname: string) => Promise<Array<{ address: string; family: number }>> } = {},
) {
  const log = (level: string) => (message: string, fields?: unknown) =>
    void outputs.push(`${level} ${message} ${JSON.stringify(fields ?? {})}`);
  const logger: Logger = { debug: log("debug"), info: log("info"), warn: log("warn"), error: log("error") };
  // Every server here is on 127.0.0.1: the handler allows private networks unless a test says not
  // (test/remote-mcp/private-networks.test.ts checks the address check itself).
  const handler = createToolsHandler({
    store,
    secret: SECRET,
    publicUrl: PUBLIC_URL,
    logger,
    fetch: recordingFetch,
    toolkits,
    allowPrivateNetworks: true,
    ...options,
  });
  const call = async (method: string, path: string, key: string, body?: unknown) => {
    const response = await handler(
      new Request(`${PUBLIC_URL}${handler.basePath}${path}`, {
        method,
        headers: { "x-api-key": key, ...(body === undefined ? {} : { "content-type": "application/json" }) },
        body: body === undefined ? undefined : JSON.stringify(body),
      }),
    );
    const text = await response.text();
    outputs.push(text);
    return { status: response.status, text, json: (text ? JSON.parse(text) : undefined) as any };
  };
  const callback = async (url: URL) => {
    const response = await handler(new Request(url, { headers: { accept: "application/json" } }));
    const text = await response.text();
    outputs.push(text);
    return { status: response.status, text };
  };
  return { handler, call, callback };
}

type Handler = ReturnType<typeof handlerFor>;

function mcpToolkit(resource: ProtectedResource, options: McpAuthorizationOptions = {}, name = "mcp") {
  return defineToolkit({
    slug: slug(name),
    name: `Remote ${name}`,
    description: "A remote MCP server's authorization, for tests.",
    baseUrl: resource.origin,
    auth: mcpOAuthMode(resource.url, options),
    tools: [],
  });
}

async function agentKey(store: ToolsStore, agentId = slug("agent")): Promise<string> {
  const { key } = await issueApiKey(store, { workspaceId: "ws1", agentId });
  secrets.add(key);
  return key;
}

/** POST /auth, the sign-in as a browser would, the callback: the connection id. */
async function connect(
  h: Handler,
  key: string,
  toolkit: string,
  login = "alice",
): Promise<{ connectionId: string; authorizationUrl: URL }> {
  const started = await h.call("POST", "/auth", key, { toolkit });
  expect(started.status, started.text).toBe(200);
  const authorizationUrl = new URL(started.json.authorizationUrl);
  const callbackUrl = await authorizeWithFetch(authorizationUrl, { login });
  const done = await h.callback(callbackUrl);
  expect(done.status, done.text).toBe(200);
  const status = await h.call("GET", `/auth/${started.json.authorizationId}`, key);
  expect(status.json.status).toBe("connected");
  return { connectionId: status.json.connectionId, authorizationUrl };
}

/** GET through the proxy to the protected resource, with the connection's token. */
async function whoami(h: Handler, key: string, toolkit: string, resource: ProtectedResource, connectionId: string) {
  const answer = await h.call("POST", "/proxy", key, {
    toolkit,
    connection_id: connectionId,
    method: "GET",
    url: `${resource.url}/whoami`,
  });
  expect(answer.status, answer.text).toBe(200);
  return answer.json;
}

let as: McpAuthServer;
beforeAll(async () => {
  as = await startMcpAuthServer();
});
afterAll(async () => {
  await as?.close();
});

describe("a remote MCP server's OAuth, discovered", () => {
  it("discovers through the 401 challenge, registers one client for two connections, and sends resource on the token requests", async () => {
    // The metadata is only where the 401 says: the well-known URLs have none.
    const resource = as.protectedResource({ path: `/mcp-${RUN}-a`, metadataAt: `/meta/mcp-${RUN}-a.json` });
    const toolkit = mcpToolkit(resource);
    const store = memoryStore();
    const h = handlerFor(store, [toolkit]);
    const [alice, bob] = [await agentKey(store), await agentKey(store)];
    const before = { registrations: as.registrations.length, tokens: as.tokenRequests.length };

    const first = await connect(h, alice, toolkit.slug, "alice");
    const second = await connect(h, bob, toolkit.slug, "bob");

    // The 401's resource_metadata named the metadata, read once per connection.
    expect(resource.metadataReads.get(`/meta/mcp-${RUN}-a.json`)).toBe(2);
    expect(resource.metadataReads.get("/.well-known/oauth-protected-resource")).toBeUndefined();
    const registrations = as.registrations.slice(before.registrations);
    expect(registrations).toHaveLength(1);
    expect(registrations[0]!.status).toBe(201);
    expect(registrations[0]!.body).toMatchObject({
      client_name: toolkit.name,
      redirect_uris: [CALLBACK_URL],
      grant_types: ["authorization_code", "refresh_token"],
      token_endpoint_auth_method: "none",
    });
    for (const url of [first.authorizationUrl, second.authorizationUrl]) {
      expect(url.origin).toBe(as.issuer);
      expect(url.searchParams.get("resource")).toBe(resource.url);
      expect(url.searchParams.get("code_challenge_method")).toBe("S256");
      expect(url.searchParams.get("scope")).toBe("mcp:tools");
    }
    expect(first.authorizationUrl.searchParams.get("client_id")).toBe(second.authorizationUrl.searchParams.get("client_id"));
    const exchanges = as.tokenRequests.slice(before.tokens);
    expect(exchanges.map((r) => [r.grantType, r.resource, r.status])).toEqual([
      ["authorization_code", resource.url, 200],
      ["authorization_code", resource.url, 200],
    ]);

    // Each token was issued for the MCP server (its audience) and works there.
    expect(await whoami(h, alice, toolkit.slug, resource, first.connectionId)).toMatchObject({
      status: 200,
      data: { sub: "alice", audience: resource.url },
    });
    expect(await whoami(h, bob, toolkit.slug, resource, second.connectionId)).toMatchObject({ data: { sub: "bob" } });

    // The discovered client and endpoints are not shown to agents.
    const listed = await h.call("GET", "/connections", alice);
    expect(listed.json.connections[0].config).toEqual({});
    expect(listed.text).not.toContain("/token");
  });

  it("discovers at the root well-known URL when the server announces nothing, and uses the resource metadata's scopes", async () => {
    const resource = as.protectedResource({ path: `/mcp-${RUN}-b`, announce: false, wellKnown: "root", scopes: ["mcp:tools", "openid"] });
    const toolkit = mcpToolkit(resource);
    const store = memoryStore();
    const h = handlerFor(store, [toolkit]);
    const key = await agentKey(store);
    const { connectionId, authorizationUrl } = await connect(h, key, toolkit.slug);
    expect(resource.metadataReads.get("/.well-known/oauth-protected-resource")).toBe(1);
    expect(authorizationUrl.searchParams.get("scope")).toBe("mcp:tools openid");
    expect(await whoami(h, key, toolkit.slug, resource, connectionId)).toMatchObject({ status: 200 });
  });

  it("refreshes with the resource after a restart (a new handler over the same store), and revokes on delete", async () => {
    const resource = as.protectedResource({ path: `/mcp-${RUN}-c`, challengeScope: "mcp:tools offline_access" });
    const toolkit = mcpToolkit(resource);
    const store = memoryStore();
    const key = await agentKey(store);
    const { connectionId, authorizationUrl } = await connect(handlerFor(store, [toolkit]), key, toolkit.slug);
    // The 401's scope comes before the metadata's scopes_supported.
    expect(authorizationUrl.searchParams.get("scope")).toBe("mcp:tools offline_access");

    // The discovered endpoints and client are sealed with the tokens.
    const stored = await openCredential(
      { cipher: createCredentialCipher(SECRET), logger: { log() {} } },
      (await store.getConnection(connectionId))!,
    );
    expect(stored).toMatchObject({
      type: "oauth2",
      authorizationServer: { issuer: as.issuer, resource: resource.url, tokenUrl: `${as.issuer}/token` },
    });

    // Another process: nothing in memory; the token is due.
    const restarted = handlerFor(
      store,
      [mcpToolkit(resource)].map(() => toolkit),
    );
    await store.updateConnection(connectionId, { credentialsExpireAt: new Date(Date.now() - 1000), updatedAt: new Date() });
    const from = as.tokenRequests.length;
    expect(await whoami(restarted, key, toolkit.slug, resource, connectionId)).toMatchObject({ status: 200, data: { sub: "alice" } });
    expect(as.tokenRequests.slice(from).map((r) => [r.grantType, r.resource, r.status])).toEqual([["refresh_token", resource.url, 200]]);
    // And again: the refreshed credential still carries its authorization server.
    await store.updateConnection(connectionId, { credentialsExpireAt: new Date(Date.now() - 1000), updatedAt: new Date() });
    expect(await whoami(restarted, key, toolkit.slug, resource, connectionId)).toMatchObject({ status: 200 });
    expect(as.tokenRequests.slice(from).map((r) => [r.grantType, r.status])).toEqual([
      ["refresh_token", 200],
      ["refresh_token", 200],
    ]);

    const revoked = as.revocations.length;
    const deleted = await restarted.call("DELETE", `/connections/${connectionId}`, key);
    expect(deleted.status, deleted.text).toBe(204);
    expect(as.revocations.slice(revoked).map((r) => r.status)).toContain(200);
    expect(as.revocations.length).toBeGreaterThan(revoked);
  });

  it("uses the deployer's client without registering one", async () => {
    const clientSecret = `configured-secret-${RUN}-0123456789`;
    secrets.add(clientSecret);
    const server = await startMcpAuthServer({
      registration: false,
      clients: [
        {
          client_id: `configured-${RUN}`,
          client_secret: clientSecret,
          redirect_uris: [CALLBACK_URL],
          grant_types: ["authorization_code", "refresh_token"],
          token_endpoint_auth_method: "client_secret_basic",
        },
      ],
    });
    try {
      const resource = server.protectedResource({ path: "/mcp" });
      const store = memoryStore();
      const key = await agentKey(store);

      // Without a configured client, a server that offers no registration says what to do.
      const unregistered = mcpToolkit(resource);
      const refused = await handlerFor(store, [unregistered]).call("POST", "/auth", key, { toolkit: unregistered.slug });
      expect(refused.status).toBe(400);
      expect(refused.json.error).toMatch(
        /offers no dynamic client registration.*Register a client there with the redirect URI https:\/\/app\.test\/proxy\/tools\/auth\/callback/,
      );

      const toolkit = mcpToolkit(resource, { clientId: `configured-${RUN}`, clientSecret });
      const h = handlerFor(store, [toolkit]);
      const { connectionId, authorizationUrl } = await connect(h, key, toolkit.slug);
      expect(authorizationUrl.searchParams.get("client_id")).toBe(`configured-${RUN}`);
      expect(server.registrations).toHaveLength(0);
      expect(server.tokenRequests.map((r) => [r.grantType, r.authMethod, r.resource])).toEqual([
        ["authorization_code", "client_secret_basic", resource.url],
      ]);
      expect(await whoami(h, key, toolkit.slug, resource, connectionId)).toMatchObject({ status: 200 });
    } finally {
      await server.close();
    }
  });
});

describe("what a remote MCP server's metadata may point at", () => {
  const servers: ProtectedResource[] = [];
  afterAll(async () => {
    await Promise.all(servers.map((s) => s.close()));
  });
  async function resourceServer(options: Omit<Parameters<typeof startProtectedResource>[0], "verify">) {
    const server = await startProtectedResource({ verify: as.verify, ...options });
    servers.push(server);
    as.resources.add(server.url);
    return server;
  }
  async function startAuth(toolkit: ReturnType<typeof mcpToolkit>, options: { allowPrivateNetworks?: boolean } = {}) {
    const store = memoryStore();
    const h = handlerFor(store, [toolkit], options);
    return { h, key: await agentKey(store), answer: await h.call("POST", "/auth", await agentKey(store), { toolkit: toolkit.slug }) };
  }

  it("refuses an authorization server on another origin unless the toolkit lists it", async () => {
    const resource = await resourceServer({ authorizationServers: [as.issuer] });
    const refused = (await startAuth(mcpToolkit(resource))).answer;
    expect(refused.status).toBe(400);
    expect(refused.json).toEqual({
      code: "invalid_request",
      error: `The MCP server ${resource.origin} names its authorization server at ${as.issuer}, another origin than its own. If you trust it, list that origin in the toolkit's mcp.authorizationServers.`,
    });

    const toolkit = mcpToolkit(resource, { authorizationServers: [as.issuer] });
    const store = memoryStore();
    const h = handlerFor(store, [toolkit]);
    const key = await agentKey(store);
    const { connectionId } = await connect(h, key, toolkit.slug);
    expect(await whoami(h, key, toolkit.slug, resource, connectionId)).toMatchObject({ status: 200, data: { audience: resource.url } });
  });

  /** A fake authorization server's metadata on the MCP server's own origin. */
  const serverMetadata =
    (change: (metadata: Record<string, unknown>, origin: string) => unknown) =>
    (_req: IncomingMessage, res: ServerResponse, origin: string) => {
      const metadata = {
        issuer: origin,
        authorization_endpoint: `${origin}/authorize`,
        token_endpoint: `${origin}/token`,
        registration_endpoint: `${origin}/reg`,
        code_challenge_methods_supported: ["S256"],
      };
      res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(change(metadata, origin)));
    };

  const refusals: Array<[string, () => Promise<ProtectedResource>, RegExp]> = [
    [
      "resource metadata for another resource",
      () => resourceServer({ authorizationServers: [as.issuer], metadata: (d) => ({ ...d, resource: "https://elsewhere.example/mcp" }) }),
      /names the resource "https:\/\/elsewhere\.example\/mcp", not the server's URL/,
    ],
    [
      "an issuer other than the one asked for",
      async () => {
        const own = await resourceServer({ authorizationServers: [] });
        return resourceServer({
          authorizationServers: [],
          metadata: (d) => ({ ...d, authorization_servers: [(d.resource as string).replace("/mcp", "")] }),
          routes: { "/.well-known/oauth-authorization-server": serverMetadata((m) => ({ ...m, issuer: own.origin })) },
        });
      },
      /names the issuer "http:\/\/127\.0\.0\.1:\d+", not "http:\/\/127\.0\.0\.1:\d+" where it was found/,
    ],
    [
      "an authorization server without S256",
      () => selfServed(serverMetadata((m) => ({ ...m, code_challenge_methods_supported: ["plain"] }))),
      /does not say it supports PKCE with S256/,
    ],
    [
      "an authorization server that does not say which PKCE methods it supports",
      () => selfServed(serverMetadata(({ code_challenge_methods_supported: _, ...m }) => m)),
      /does not say it supports PKCE with S256/,
    ],
    [
      "a plain-http token endpoint on another origin",
      () => selfServed(serverMetadata((m) => ({ ...m, token_endpoint: "http://auth.example.com/token" }))),
      /The token endpoint "http:\/\/auth\.example\.com\/token" is not https/,
    ],
    [
      "huge resource metadata",
      () => resourceServer({ authorizationServers: [as.issuer], metadata: (d) => ({ ...d, padding: "x".repeat(200_000) }) }),
      /is larger than 64 KiB, so it was not read/,
    ],
    [
      "resource metadata that is not JSON",
      () => resourceServer({ authorizationServers: [as.issuer], metadata: () => "{not json" }),
      /protected resource metadata at http:\/\/127\.0\.0\.1:\d+ is not JSON/,
    ],
    [
      "resource metadata of the wrong shape",
      () => resourceServer({ authorizationServers: [as.issuer], metadata: (d) => ({ ...d, authorization_servers: "nope" }) }),
      /protected resource metadata at http:\/\/127\.0\.0\.1:\d+ is malformed \(authorization_servers: /,
    ],
    [
      "malformed authorization server metadata",
      () => selfServed(serverMetadata(() => ({ issuer: 42 }))),
      /authorization server's metadata at http:\/\/127\.0\.0\.1:\d+ is malformed \(issuer: /,
    ],
    [
      "no protected resource metadata at all",
      () => resourceServer({ authorizationServers: [], announce: false, metadata: () => undefined }),
      /publishes no OAuth protected resource metadata \(RFC 9728\).*give the toolkit an auth mode/,
    ],
  ];

  /** An MCP server that is its own authorization server, with the metadata `route` serves. */
  async function selfServed(route: (req: IncomingMessage, res: ServerResponse, origin: string) => void) {
    return resourceServer({
      authorizationServers: [],
      metadata: (d) => ({ ...d, authorization_servers: [new URL(d.resource as string).origin] }),
      routes: { "/.well-known/oauth-authorization-server": route },
    });
  }

  it.each(refusals)("refuses %s with a 400 that says so", async (_name, serve, message) => {
    const resource = await serve();
    const { answer } = await startAuth(mcpToolkit(resource));
    expect(answer.status, answer.text).toBe(400);
    expect(answer.json.code).toBe("invalid_request");
    expect(answer.json.error).toMatch(message);
  });

  it("takes a private registration endpoint when the handler allows private networks", async () => {
    const resource = await selfServed(serverMetadata((m) => ({ ...m, registration_endpoint: "http://127.0.0.1:9/reg" })));
    // Without it, nothing is sent to a server on a private address, the MCP server's own origin included.
    const refused = (await startAuth(mcpToolkit(resource), { allowPrivateNetworks: false })).answer;
    expect(refused.status, refused.text).toBe(400);
    expect(refused.json.error).toMatch(
      /The MCP server at http:\/\/127\.0\.0\.1:\d+ is not on a public address \(127\.0\.0\.1 is a non-public address \(loopback\)\).*allowPrivateNetworks/,
    );
    // Allowed, it is used: nothing listens there, so the answer is a 503 to retry, not a refusal.
    const allowed = (await startAuth(mcpToolkit(resource), { allowPrivateNetworks: true })).answer;
    expect(allowed.status, allowed.text).toBe(503);
    expect(allowed.json.error).toMatch(/registration endpoint at http:\/\/127\.0\.0\.1:9 could not be reached; retry shortly/);
  });
});

describe("docs/guide/remote-mcp.md", () => {
  const page = readFileSync(join(import.meta.dirname, "../../docs/guide/remote-mcp.md"), "utf8");

  it("states the limits the code has", () => {
    expect(page).toContain(`read up to ${METADATA_MAX_BYTES / 1024} KiB`);
    expect(page).toContain(`at most ${["zero", "one", "two", "three"][MAX_REDIRECTS]} redirects`);
    expect(page).toContain(`(at most ${MAX_CLIENTS} are kept)`);
  });

  it("shows an entry with the option that lets another origin's authorization server in", () => {
    const block = /<!-- name: remote-mcp-connecting\.ts -->\n+```ts\n([\s\S]*?)```/.exec(page)?.[1] ?? "";
    const entry = /mcp: \{ url: "([^"]+)", authorizationServers: \["([^"]+)"\] \}/.exec(block);
    expect(entry, block).not.toBeNull();
    // The option the block shows is the one the discovered mode reads.
    const mode = mcpOAuthMode(entry![1]!, { authorizationServers: [entry![2]!] });
    expect(mode.discovery).toEqual({ resource: entry![1], authorizationServers: [entry![2]] });
  });
});

describe("afterwards", () => {
  it("no answer or log line holds a token, code or secret, and the authorization server saw no error", () => {
    const leaks = [...secrets]
      .filter((s) => s.length >= 8)
      .flatMap((s) => outputs.filter((o) => o.includes(s)).map((o) => `${s.slice(0, 6)}… in ${o.slice(0, 80)}`));
    expect(leaks).toEqual([]);
    expect(secrets.size).toBeGreaterThan(10);
    expect(outputs.filter((o) => o.startsWith("error "))).toEqual([]);
    expect(as.serverErrors).toEqual([]);
  });
});
