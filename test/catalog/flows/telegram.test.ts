import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type EmulatedRequest, type Flow, startFlow } from "./emulation.js";

/*
 * Telegram's Bot API: the bot's token is a segment of the URL's path, not a header. As its
 * documentation describes it (https://core.telegram.org/bots/api#making-requests):
 * - every request is https://api.telegram.org/bot<token>/METHOD_NAME, GET or POST, the token
 *   looking like 123456:ABC-DEF1234ghIkl-zyx57W2v1u123ew11;
 * - an answer is JSON with `ok`, and `result` or `description` and `error_code`
 *   (https://core.telegram.org/bots/api#making-requests); getMe returns the bot as a User with its
 *   `username` (https://core.telegram.org/bots/api#getme).
 * The emulation also answers an unknown method with its own path in `description`: a worst-case
 * upstream that echoes the token back, to prove it is redacted.
 */

const TOKEN = `${Math.floor(100000000 + Math.random() * 800000000)}:AAH${crypto.randomUUID().replaceAll("-", "")}`;

let flow: Flow;

function emulate(request: EmulatedRequest) {
  if (request.host !== "api.telegram.org") return { status: 404, body: "" };
  const match = /^\/bot([^/]+)\/([A-Za-z]+)$/.exec(request.path);
  if (!match || match[1] !== TOKEN) return { status: 401, body: { ok: false, error_code: 401, description: "Unauthorized" } };
  if (match[2] === "getMe") return { body: { ok: true, result: { id: 7, is_bot: true, first_name: "Acme", username: "acme_bot" } } };
  if (match[2] === "sendMessage") return { body: { ok: true, result: { message_id: 1, text: JSON.parse(request.body).text } } };
  return { status: 404, body: { ok: false, error_code: 404, description: `Not Found: ${request.target}` } };
}

beforeAll(async () => {
  flow = await startFlow({ provider: "telegram", hosts: ["api.telegram.org"], emulate });
});
afterAll(() => flow?.close());

describe("Telegram Bot API (the token in the URL path), end to end", () => {
  let connectionId: string;

  it("connects with the token, asking getMe at bot<token>/getMe who the bot is", async () => {
    const res = await flow.call("POST", "/auth", { toolkit: "telegram", credentials: { token: TOKEN } });
    expect(res.status, res.text).toBe(201);
    expect(res.json.connection).toMatchObject({ remoteUser: "acme_bot" });
    connectionId = res.json.connection.id;
    const asked = flow.at("api.telegram.org").at(-1)!;
    expect(asked.target).toBe(`/bot${TOKEN}/getMe`);
    expect(asked.headers.authorization).toBeUndefined();
  });

  it("proxies a method under the connection's own bot path, byte for byte, with no credential header", async () => {
    const res = await flow.call("POST", "/proxy", {
      toolkit: "telegram",
      method: "POST",
      url: "https://api.telegram.org/bot{token}/sendMessage",
      body: { chat_id: 42, text: "hello" },
      connection_id: connectionId,
    });
    expect(res.json).toMatchObject({ successful: true, data: { ok: true, result: { text: "hello" } } });
    const sent = flow.at("api.telegram.org", `/bot${TOKEN}/sendMessage`).at(-1)!;
    expect(sent.target).toBe(`/bot${TOKEN}/sendMessage`);
    expect(sent.headers.authorization).toBeUndefined();
  });

  it("passes a request through to the bot's path", async () => {
    const res = await flow.passthrough("telegram/getMe", { headers: { "x-connection-id": connectionId } });
    expect(res.status, res.text).toBe(200);
    expect(JSON.parse(res.text)).toMatchObject({ ok: true, result: { username: "acme_bot" } });
    expect(flow.at("api.telegram.org").at(-1)!.target).toBe(`/bot${TOKEN}/getMe`);
  });

  it("redacts the token where the upstream echoes its path, through the proxy and the passthrough", async () => {
    const proxied = await flow.call("POST", "/proxy", {
      toolkit: "telegram",
      method: "GET",
      url: "https://api.telegram.org/bot{token}/nope",
      connection_id: connectionId,
    });
    expect(proxied.json).toMatchObject({ successful: false, status: 404 });
    expect(proxied.text).not.toContain(TOKEN);
    const passed = await flow.passthrough("telegram/nope", { headers: { "x-connection-id": connectionId } });
    expect(passed.status).toBe(404);
    expect(passed.text).not.toContain(TOKEN);
    flow.assertNoLeaks([TOKEN]);
  });

  it("refuses a URL naming another bot's path, without showing the connection's", async () => {
    const before = flow.requests.length;
    const res = await flow.call("POST", "/proxy", {
      toolkit: "telegram",
      method: "GET",
      url: "https://api.telegram.org/bot1:other/getMe",
      connection_id: connectionId,
    });
    expect(res.status, res.text).toBe(400);
    expect(res.json.error).toContain("https://api.telegram.org/bot{token}");
    expect(flow.requests.length).toBe(before);
    flow.assertNoLeaks([TOKEN]);
  });

  it.each([
    ["a slash", `${TOKEN}/../x`],
    ["dots only", ".."],
    ["a percent escape", "1:a%2fb"],
    ["a question mark", "1:a?b"],
    ["a line break", "1:a\nb"],
  ])("refuses a token with %s (400 naming the field, nothing echoed, nothing sent)", async (_, token) => {
    const before = flow.requests.length;
    const res = await flow.call("POST", "/auth", { toolkit: "telegram", credentials: { token } });
    expect(res.status, res.text).toBe(400);
    expect(res.json.code).toBe("invalid_request");
    expect(res.json.error).toMatch(/^credentials\.token /);
    expect(res.text).not.toContain(token);
    expect(flow.requests.length).toBe(before);
  });

  it("connects on the connect page, where the person types the token", async () => {
    const link = await flow.call("POST", "/auth", { toolkit: "telegram" });
    expect(link.status, link.text).toBe(200);
    const done = await flow.submitConnectPage(link.json.authorizationUrl, { token: TOKEN });
    expect(done.page).toContain('name="token" type="password"');
    expect(done.status, done.text).toBe(200);
    const status = await flow.call("GET", `/auth/${link.json.authorizationId}`);
    expect(status.json.status).toBe("connected");
    flow.assertNoLeaks([TOKEN]);
  });
});
