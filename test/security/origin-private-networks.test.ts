/**
 * `allowPrivateNetworks: true` lifts the address check of origin inputs: a connection may name an
 * `http:` server on 127.0.0.1, as an on-premises Mattermost would be. The full flow runs through
 * the catalog's `mattermost` provider against a local emulation over real HTTP: the connection
 * (its identify lookup), the proxy and the passthrough, and the connect page's URL field. Without
 * the option, the same origin is a 400 and the emulation receives nothing.
 *
 * The emulation follows Mattermost's documentation: a personal access token is sent as
 * `Authorization: Bearer <token>`
 * (https://developers.mattermost.com/integrate/reference/personal-access-token/), `GET
 * /api/v4/users/me` answers the token's user with its `username`, and a bad token is a 401 with
 * Mattermost's error body `{ id, message, status_code }`
 * (https://developers.mattermost.com/api-documentation/).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { catalogToolkit } from "../../src/catalog/index.js";
import { createToolsHandler, issueApiKey, memoryStore } from "../../src/index.js";
import { type RawServer, startRawServer } from "../outbound/servers.js";

const TOKEN = `mm-pat-${Math.random().toString(36).slice(2, 12)}`;
let mattermost: RawServer;

const handlerWith = async (allowPrivateNetworks: boolean) => {
  const store = memoryStore();
  const handler = createToolsHandler({
    store,
    toolkits: [catalogToolkit("mattermost", {})],
    secret: "p".repeat(40),
    publicUrl: "http://tools.test",
    allowPrivateNetworks,
  });
  const { key } = await issueApiKey(store, { workspaceId: "ws1", agentId: "agent-1" });
  return async (path: string, init: { body?: unknown; headers?: Record<string, string>; form?: Record<string, string> } = {}) => {
    // An absolute URL (a connect link) is opened as a browser would: no API key; `form` posts its form.
    if (path.startsWith("http")) {
      const form = init.form && {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded" },
        body: new URLSearchParams(init.form).toString(),
      };
      const response = await handler(new Request(path, form));
      return { status: response.status, text: await response.text(), json: null };
    }
    const response = await handler(
      new Request(`http://tools.test/proxy/tools${path}`, {
        method: init.body === undefined ? "GET" : "POST",
        headers: { "x-api-key": key, "content-type": "application/json", ...init.headers },
        ...(init.body === undefined ? {} : { body: JSON.stringify(init.body) }),
      }),
    );
    const text = await response.text();
    return { status: response.status, text, json: text.startsWith("{") ? JSON.parse(text) : null };
  };
};

beforeAll(async () => {
  mattermost = await startRawServer((request, res) => {
    if (request.headers.authorization !== `Bearer ${TOKEN}`) {
      res.writeHead(401, { "content-type": "application/json" });
      res.end(JSON.stringify({ id: "api.context.session_expired.app_error", message: "Invalid or expired session.", status_code: 401 }));
      return;
    }
    const answers: Record<string, unknown> = {
      "/api/v4/users/me": { id: "u1xk3", username: "ada", email: "ada@example.com" },
      "/api/v4/users/me/teams": [{ id: "t9", name: "engineering", display_name: "Engineering" }],
    };
    const answer = answers[request.url];
    res.writeHead(answer ? 200 : 404, { "content-type": "application/json" });
    res.end(JSON.stringify(answer ?? { id: "api.context.404.app_error", message: "Not found", status_code: 404 }));
  });
});

afterAll(() => mattermost?.close());

describe("allowPrivateNetworks: true", () => {
  it("connects a Mattermost on http://127.0.0.1 and reaches it through the proxy and the passthrough", async () => {
    const call = await handlerWith(true);
    const made = await call("/auth", {
      body: { toolkit: "mattermost", credentials: { token: TOKEN }, config: { server: mattermost.origin } },
    });
    expect(made.status).toBe(201);
    expect(made.json.connection.remoteUser).toBe("ada");
    const id = made.json.connection.id as string;

    const proxied = await call("/proxy", {
      body: { toolkit: "mattermost", method: "GET", url: `${mattermost.origin}/api/v4/users/me/teams`, connection_id: id },
    });
    expect(proxied.status).toBe(200);
    expect(proxied.json).toMatchObject({ successful: true, status: 200, data: [{ name: "engineering" }] });

    const passed = await call("/passthrough/mattermost/users/me", { headers: { "x-connection-id": id } });
    expect(passed.status).toBe(200);
    expect(JSON.parse(passed.text)).toMatchObject({ username: "ada" });

    // Every request went to the emulation with the token as Mattermost documents it.
    expect(mattermost.requests.map((r) => r.url)).toEqual(["/api/v4/users/me", "/api/v4/users/me/teams", "/api/v4/users/me"]);
    for (const request of mattermost.requests) expect(request.headers.authorization).toBe(`Bearer ${TOKEN}`);
    expect(made.text + proxied.text + passed.text).not.toContain(TOKEN);
  });

  it("a wrong token fails the connection with the provider's refusal, not a 500", async () => {
    const call = await handlerWith(true);
    const made = await call("/auth", {
      body: { toolkit: "mattermost", credentials: { token: "wrong" }, config: { server: mattermost.origin } },
    });
    expect(made.status).toBe(400);
    expect(made.json.code).toBe("invalid_request");
  });

  it("still refuses an origin with a path, user information or a query", async () => {
    const call = await handlerWith(true);
    for (const server of [`${mattermost.origin}/api/v4`, mattermost.origin.replace("//", "//a@"), `${mattermost.origin}?x=1`]) {
      const made = await call("/auth", { body: { toolkit: "mattermost", credentials: { token: TOKEN }, config: { server } } });
      expect(made.status, server).toBe(400);
      expect(made.json.error, server).toContain("config.server");
    }
  });
});

describe("without allowPrivateNetworks", () => {
  it("the same origin is a 400 naming the input, and the emulation receives nothing", async () => {
    const call = await handlerWith(false);
    const before = mattermost.connections();
    const made = await call("/auth", {
      body: { toolkit: "mattermost", credentials: { token: TOKEN }, config: { server: mattermost.origin } },
    });
    expect(made.status).toBe(400);
    expect(made.json.error).toMatch(/^config\.server is not valid: it must be an origin https:\/\/host\[:port\]/);
    expect(mattermost.connections()).toBe(before);
  });

  it("GET /toolkit/mattermost lists the input as an origin, and the connect page asks for it in a URL field", async () => {
    const call = await handlerWith(false);
    const toolkit = await call("/toolkit/mattermost");
    expect(toolkit.json.inputs).toEqual([expect.objectContaining({ name: "server", type: "origin", optional: false })]);
    const started = await call("/auth", { body: { toolkit: "mattermost" } });
    expect(started.status).toBe(200);
    const page = (await call(started.json.authorizationUrl as string)).text;
    expect(page).toMatch(/<input id="f-input-server" name="input.server" type="url"/);

    // The origin typed on the page is checked as POST /auth checks it: the form again, with the
    // reason, and the emulation receives nothing.
    const before = mattermost.connections();
    const csrf = /name="csrf" value="([^"]+)"/.exec(page)?.[1] ?? "";
    const link = started.json.authorizationUrl as string;
    const typed = await call(link, { form: { csrf, token: TOKEN, "input.server": mattermost.origin } });
    expect(typed.status).toBe(400);
    expect(typed.text).toContain("config.server is not valid: it must be an origin https://host[:port]");
    expect(typed.text).not.toContain(TOKEN);
    expect(mattermost.connections()).toBe(before);
  });
});
