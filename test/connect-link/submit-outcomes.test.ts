/**
 * What a connect page answers (src/connect-link/submit.ts), outcome by outcome: a closed link, the form
 * again with a fixable problem (status, message, the non-secret values kept), the link taken once,
 * the connection stored or its failure recorded, the return URL, and an OAuth sign-in continued.
 * The link, page, verification, storage and OAuth start are stubbed, so each call and its
 * arguments are seen; test/connect-link/flow.test.ts proves the same page over HTTP.
 */
import { beforeEach, describe, expect, it, vi } from "vitest";
import { showConnectPage, submitConnectPage } from "../../src/connect-link/submit.js";
import type { HandlerContext } from "../../src/context/context.js";
import { ToolsError } from "../../src/core/errors.js";
import { sha256Hex } from "../../src/util/encoding.js";

// Plain stubs rather than vi.fn: a vi.fn's rejection failed a test though the code under test caught it.
const s = vi.hoisted(() => ({
  link: null as unknown,
  csrfOk: true,
  fields: [] as unknown[],
  config: (_toolkit: unknown, _scheme: unknown, config: Record<string, string>): Record<string, string> => config,
  verify: async (..._args: unknown[]): Promise<unknown> => ({ config: {} }),
  create: async (..._args: unknown[]): Promise<unknown> => ({ id: "conn_1" }),
  returnAllowed: true,
  calls: [] as Array<[string, ...unknown[]]>,
}));
vi.mock("../../src/connect-link/link.js", () => ({
  openConnectLink: async (_ctx: unknown, token: string) => (token === "good" ? s.link : token),
  formToken: async () => "csrf-1",
  checkFormToken: async (_ctx: unknown, _link: unknown, given: string) => {
    s.calls.push(["checkFormToken", given]);
    return s.csrfOk && given === "csrf-1";
  },
}));
vi.mock("../../src/connect-link/page.js", () => ({
  text: (_ctx: unknown, name: string, words: Record<string, string> = {}) => `${name}${JSON.stringify(words)}`,
  formFields: () => s.fields,
  formPage: (_ctx: unknown, _link: unknown, token: string, options: Record<string, unknown> = {}) =>
    Response.json({ page: "form", token, ...options }, { status: (options.status as number) ?? 200 }),
  messagePage: (_ctx: unknown, status: number, title: string, message: string) =>
    Response.json({ page: "message", title, message }, { status }),
}));
vi.mock("../../src/connect-link/verify.js", () => ({
  verifyCredential: (...args: unknown[]) => {
    s.calls.push(["verify", ...args.slice(1)]);
    return s.verify(...args);
  },
}));
vi.mock("../../src/connections/create.js", () => ({
  createConnection: (_ctx: unknown, input: unknown) => {
    s.calls.push(["create", input]);
    return s.create(input);
  },
}));
vi.mock("../../src/connections/config.js", () => ({
  checkConfig: (toolkit: unknown, scheme: unknown, config: Record<string, string>) => s.config(toolkit, scheme, config),
  checkOrigins: async () => {}, // the origin policy has its own tests (test/security/origin-inputs.test.ts)
}));
vi.mock("../../src/oauth/start.js", () => ({
  isAllowedReturnUrl: () => s.returnAllowed,
  startAuthorization: async (_ctx: unknown, ...args: unknown[]) => {
    s.calls.push(["start", ...args]);
    return { authorizationUrl: "https://idp.test/authorize?state=x" };
  },
}));

const toolkit = { slug: "acme", name: "Acme" };
const keyField = { name: "apiKey", label: "API key", max: 20, secret: true, autocomplete: "off" };
const orgField = { name: "input.org", label: "Organization", max: 10, secret: false, autocomplete: "off" };
const authorization = { id: "auth_1", workspaceId: "ws", agentId: "agent-1", label: "work", returnUrl: null as string | null };

function setup(
  scheme: Record<string, unknown> = { type: "apiKey", in: "header", name: "x-api-key" },
  fields: unknown[] = [keyField, orgField],
) {
  s.link = { authorization, state: "state-1", toolkit, scheme, config: { region: "eu" }, remoteUser: "typed-user" };
  s.fields = fields;
  const consumed: unknown[] = [];
  const updates: unknown[] = [];
  const events: unknown[] = [];
  let available: typeof authorization | null = { ...authorization };
  const ctx = {
    store: {
      consumeAuthorization: async (hash: string, now: Date) => {
        consumed.push([hash, now instanceof Date]);
        const taken = available;
        available = null;
        return taken;
      },
      updateAuthorization: async (id: string, patch: unknown) => updates.push([id, patch]),
    },
    emit: (name: string, body: unknown) => events.push([name, body]),
  } as unknown as HandlerContext;
  return {
    ctx,
    consumed,
    updates,
    events,
    setReturnUrl: (url: string | null) => (available = available && { ...available, returnUrl: url }),
  };
}

const form = (body: string | Record<string, string>, type = "application/x-www-form-urlencoded") =>
  new Request("https://app.test/connect/good", {
    method: "POST",
    headers: { "content-type": type },
    body: typeof body === "string" ? body : new URLSearchParams(body).toString(),
  });
const answer = async (response: Response) => ({ status: response.status, body: await response.json() });

beforeEach(() => {
  s.calls = [];
  s.csrfOk = true;
  s.returnAllowed = true;
  s.config = (_t, _s, config) => config;
  s.verify = async () => ({ config: {} });
  s.create = async () => ({ id: "conn_1" });
});

describe("showConnectPage", () => {
  it("shows the form with a fresh anti-forgery token", async () => {
    const { ctx } = setup();
    expect(await answer(await showConnectPage(ctx, "good"))).toStrictEqual({ status: 200, body: { page: "form", token: "csrf-1" } });
  });

  it("says an unknown link is invalid (404) and a used or expired one is gone (410)", async () => {
    const { ctx } = setup();
    expect(await answer(await showConnectPage(ctx, "unknown"))).toStrictEqual({
      status: 404,
      body: { page: "message", title: "invalidTitle{}", message: "invalid{}" },
    });
    for (const why of ["used", "expired"]) {
      expect(await answer(await showConnectPage(ctx, why))).toStrictEqual({
        status: 410,
        body: { page: "message", title: "invalidTitle{}", message: `${why}{}` },
      });
    }
  });
});

describe("submitConnectPage", () => {
  it("answers a closed link as the page does", async () => {
    const { ctx, consumed } = setup();
    expect((await submitConnectPage(ctx, "used", form({ csrf: "csrf-1" }))).status).toBe(410);
    expect(consumed).toEqual([]);
  });

  it("refuses a body that is not a urlencoded form (415), too large (413), or not UTF-8 (400), keeping the link", async () => {
    const { ctx, consumed } = setup();
    expect(await answer(await submitConnectPage(ctx, "good", form("csrf=csrf-1", "text/plain")))).toStrictEqual({
      status: 415,
      body: { page: "form", token: "csrf-1", status: 415, error: "Send the form from the page." },
    });
    expect((await submitConnectPage(ctx, "good", form("csrf=csrf-1", "text/plain; x=application/x-www-form-urlencoded"))).status).toBe(415);
    expect((await submitConnectPage(ctx, "good", form("csrf=csrf-1", "Application/X-WWW-Form-Urlencoded"))).status).toBe(400);
    const noType = new Request("https://app.test/x", { method: "POST", body: new Uint8Array([1]) });
    expect((await submitConnectPage(ctx, "good", noType)).status).toBe(415);
    expect(await answer(await submitConnectPage(ctx, "good", form("a".repeat(32 * 1024 + 1))))).toStrictEqual({
      status: 413,
      body: { page: "form", token: "csrf-1", status: 413, error: "What was sent is larger than 32768 bytes; check the values." },
    });
    expect((await submitConnectPage(ctx, "good", form("a".repeat(32 * 1024)))).status).toBe(403);
    const bad = new Request("https://app.test/x", {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded; charset=utf-8" },
      body: new Uint8Array([0x61, 0x3d, 0xff]),
    });
    expect(await answer(await submitConnectPage(ctx, "good", bad))).toStrictEqual({
      status: 400,
      body: { page: "form", token: "csrf-1", status: 400, error: "The form is not valid UTF-8; send it again." },
    });
    expect(consumed).toEqual([]);
  });

  it("says a form cut off on the way arrived incomplete", async () => {
    const { ctx } = setup();
    const body = new ReadableStream({
      pull(controller) {
        controller.error(new Error("reset"));
      },
    });
    const request = new Request("https://app.test/x", {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body,
      duplex: "half",
    } as RequestInit);
    expect(await answer(await submitConnectPage(ctx, "good", request))).toStrictEqual({
      status: 400,
      body: { page: "form", token: "csrf-1", status: 400, error: "The form arrived incomplete; send it again." },
    });
  });

  it("refuses a stale or missing anti-forgery field with 403", async () => {
    const { ctx, consumed } = setup();
    expect(await answer(await submitConnectPage(ctx, "good", form({ csrf: "old", apiKey: "k" })))).toStrictEqual({
      status: 403,
      body: { page: "form", token: "csrf-1", status: 403, error: "staleForm{}" },
    });
    await submitConnectPage(ctx, "good", form({ apiKey: "k" }));
    expect(s.calls).toEqual([
      ["checkFormToken", "old"],
      ["checkFormToken", ""],
    ]);
    expect(consumed).toEqual([]);
  });

  it("asks for an empty field, a too long one, or one with a control character, keeping the non-secret values", async () => {
    const { ctx, consumed } = setup();
    const words = (field: string, max: number) => JSON.stringify({ field, max: String(max) });
    const cases: Array<[Record<string, string>, string, Record<string, string>]> = [
      [{ apiKey: "", "input.org": "o" }, `required${words("api key", 20)}`, { "input.org": "o" }],
      [{ apiKey: "k" }, `required${words("organization", 10)}`, { "input.org": "" }],
      [{ apiKey: "k".repeat(21), "input.org": "o" }, `tooLong${words("api key", 20)}`, { "input.org": "o" }],
      [{ apiKey: "k", "input.org": "o".repeat(11) }, `tooLong${words("organization", 10)}`, { "input.org": "o".repeat(10) }],
      [{ apiKey: "a\nb", "input.org": "o" }, `lineBreak${words("api key", 20)}`, { "input.org": "o" }],
      [{ apiKey: "a\x7f", "input.org": "o" }, `lineBreak${words("api key", 20)}`, { "input.org": "o" }],
      [{ apiKey: "a\x00", "input.org": "o" }, `lineBreak${words("api key", 20)}`, { "input.org": "o" }],
    ];
    for (const [values, error, shown] of cases) {
      expect(await answer(await submitConnectPage(ctx, "good", form({ csrf: "csrf-1", ...values })))).toStrictEqual({
        status: 400,
        body: { page: "form", token: "csrf-1", status: 400, error, values: shown },
      });
    }
    expect(
      (await submitConnectPage(ctx, "good", form({ csrf: "csrf-1", apiKey: "k".repeat(20), "input.org": "o".repeat(10) }))).status,
    ).toBe(200);
    expect(consumed).toHaveLength(1);
  });

  it("names the field a credential check refuses, by its label", async () => {
    const { ctx } = setup(undefined, [orgField, keyField]);
    expect((await answer(await submitConnectPage(ctx, "good", form({ csrf: "csrf-1", apiKey: "key ", "input.org": "o" })))).body).toEqual({
      page: "form",
      token: "csrf-1",
      status: 400,
      error: "The api key starts or ends with whitespace; send it without.",
      values: { "input.org": "o" },
    });
    const basic = setup({ type: "basic" }, [
      { name: "username", label: "User name", max: 50, secret: false, autocomplete: "username" },
      { name: "password", label: "Password", max: 50, secret: true, autocomplete: "off" },
    ]);
    expect(
      (await answer(await submitConnectPage(basic.ctx, "good", form({ csrf: "csrf-1", username: "a:b", password: "p" })))).body,
    ).toEqual({
      page: "form",
      token: "csrf-1",
      status: 400,
      error: 'The user name contains ":", which HTTP basic authentication cannot carry in a username.',
      values: { username: "a:b" },
    });
  });

  it("refuses a scheme with no typed credential as an invalid link", async () => {
    const { ctx, consumed } = setup({ type: "none" }, []);
    expect(await answer(await submitConnectPage(ctx, "good", form({ csrf: "csrf-1" })))).toStrictEqual({
      status: 400,
      body: { page: "form", token: "csrf-1", status: 400, error: "invalid{}", values: {} },
    });
    expect(consumed).toEqual([]);
  });

  it("verifies, takes the link once, stores the connection with the typed inputs trimmed, and says it is done", async () => {
    const { ctx, consumed, updates, events } = setup();
    s.verify = async () => ({ remoteUser: "ada", config: { team: "t1" } });
    expect(
      await answer(await submitConnectPage(ctx, "good", form({ csrf: "csrf-1", apiKey: "key-1", "input.org": " org1 " }))),
    ).toStrictEqual({
      status: 200,
      body: { page: "message", title: `doneTitle{"toolkit":"Acme"}`, message: `done{"toolkit":"Acme"}` },
    });
    const credential = { type: "apiKey", apiKey: "key-1" };
    expect(s.calls.slice(1)).toEqual([
      ["verify", toolkit, { type: "apiKey", in: "header", name: "x-api-key" }, credential, { region: "eu", org: "org1" }],
      [
        "create",
        {
          workspaceId: "ws",
          agentId: "agent-1",
          toolkit,
          label: "work",
          remoteUser: "ada",
          credential,
          params: { region: "eu", org: "org1", team: "t1" },
        },
      ],
    ]);
    expect(consumed).toEqual([[await sha256Hex("state-1"), true]]);
    expect(updates).toEqual([["auth_1", { status: "connected", connectionId: "conn_1" }]]);
    expect(events).toEqual([
      ["auth.completed", { authorizationId: "auth_1", toolkit: "acme", agentId: "agent-1", connectionId: "conn_1" }],
    ]);
  });

  it("names the account the link was made for when the provider names none, else nobody", async () => {
    const first = setup({ type: "bearer" }, [{ name: "token", label: "Token", max: 50, secret: true, autocomplete: "off" }]);
    await submitConnectPage(first.ctx, "good", form({ csrf: "csrf-1", token: "tok" }));
    expect(s.calls.find((c) => c[0] === "create")?.[1]).toMatchObject({
      remoteUser: "typed-user",
      credential: { type: "bearer", token: "tok" },
    });
    s.calls = [];
    const second = setup({ type: "bearer" }, [{ name: "token", label: "Token", max: 50, secret: true, autocomplete: "off" }]);
    (s.link as { remoteUser: unknown }).remoteUser = undefined;
    await submitConnectPage(second.ctx, "good", form({ csrf: "csrf-1", token: "tok" }));
    expect(s.calls.find((c) => c[0] === "create")?.[1]).toMatchObject({ remoteUser: "" });
  });

  it("stores a basic credential as its user name and password", async () => {
    const { ctx } = setup({ type: "basic" }, [
      { name: "username", label: "User name", max: 50, secret: false, autocomplete: "username" },
      { name: "password", label: "Password", max: 50, secret: true, autocomplete: "off" },
    ]);
    await submitConnectPage(ctx, "good", form({ csrf: "csrf-1", username: "ada", password: "pw" }));
    expect(s.calls.find((c) => c[0] === "create")?.[1]).toMatchObject({ credential: { type: "basic", username: "ada", password: "pw" } });
  });

  it("says a link another submit took is used, storing nothing", async () => {
    const { ctx } = setup();
    await submitConnectPage(ctx, "good", form({ csrf: "csrf-1", apiKey: "k", "input.org": "o" }));
    s.calls = [];
    expect(await answer(await submitConnectPage(ctx, "good", form({ csrf: "csrf-1", apiKey: "k", "input.org": "o" })))).toStrictEqual({
      status: 410,
      body: { page: "message", title: "invalidTitle{}", message: "used{}" },
    });
    expect(s.calls.some((c) => c[0] === "create")).toBe(false);
  });

  it("redirects to an allowed return URL with the status and connection id, without a referrer or cache", async () => {
    const { ctx, setReturnUrl } = setup();
    setReturnUrl("https://app.test/done?x=1");
    const response = await submitConnectPage(ctx, "good", form({ csrf: "csrf-1", apiKey: "k", "input.org": "o" }));
    expect(response.status).toBe(303);
    expect(Object.fromEntries(response.headers)).toStrictEqual({
      location: "https://app.test/done?x=1&status=connected&connection_id=conn_1",
      "cache-control": "no-store",
      "referrer-policy": "no-referrer",
      "x-content-type-options": "nosniff",
    });
    expect(await response.text()).toBe("");
  });

  it("shows the done page when the return URL is no longer allowed", async () => {
    const { ctx, setReturnUrl } = setup();
    setReturnUrl("https://elsewhere.test/");
    s.returnAllowed = false;
    expect((await submitConnectPage(ctx, "good", form({ csrf: "csrf-1", apiKey: "k", "input.org": "o" }))).status).toBe(200);
  });

  it("shows a refused or unverifiable credential on the form (400, 503); other errors go on", async () => {
    const { ctx, consumed } = setup();
    const send = () => submitConnectPage(ctx, "good", form({ csrf: "csrf-1", apiKey: "k", "input.org": "o" }));
    s.verify = async () => {
      throw new ToolsError("invalid_request", "Acme refused these credentials.");
    };
    expect(await answer(await send())).toStrictEqual({
      status: 400,
      body: { page: "form", token: "csrf-1", status: 400, error: "Acme refused these credentials.", values: { "input.org": "o" } },
    });
    s.verify = async () => {
      throw new ToolsError("unavailable", "Acme did not answer.");
    };
    expect((await answer(await send())).body).toMatchObject({ status: 503, error: "Acme did not answer." });
    expect((await send()).status).toBe(503);
    s.verify = async () => {
      throw new ToolsError("not_found", "No.");
    };
    await expect(send()).rejects.toMatchObject({ code: "not_found" });
    s.verify = async () => {
      throw new TypeError("boom");
    };
    await expect(send()).rejects.toThrow("boom");
    s.config = () => {
      throw new ToolsError("invalid_request", "The organization must be letters.");
    };
    expect((await answer(await send())).body).toMatchObject({ status: 400, error: "The organization must be letters." });
    expect(consumed).toEqual([]);
  });

  it("records a connection that could not be stored as failed, with a message that names no secret", async () => {
    const send = (ctx: HandlerContext) => submitConnectPage(ctx, "good", form({ csrf: "csrf-1", apiKey: "k", "input.org": "o" }));
    const first = setup();
    s.create = async () => {
      throw new Error("duplicate key value violates unique constraint, key k");
    };
    await expect(send(first.ctx)).rejects.toThrow("duplicate key");
    const stored = "The connection could not be stored. Ask for a new link.";
    expect(first.updates).toEqual([["auth_1", { status: "failed", error: stored }]]);
    expect(first.events).toEqual([["auth.failed", { authorizationId: "auth_1", toolkit: "acme", agentId: "agent-1", error: stored }]]);
    const second = setup();
    s.create = async () => {
      throw new ToolsError("invalid_request", "The label is too long.");
    };
    expect((await answer(await send(second.ctx))).body).toMatchObject({ status: 400, error: "The label is too long." });
    expect(second.updates).toEqual([["auth_1", { status: "failed", error: "The label is too long." }]]);
  });

  it("continues an OAuth link to the provider's sign-in with the typed inputs, taking the link once", async () => {
    const scheme = { type: "oauth2" };
    const { ctx, consumed, setReturnUrl } = setup(scheme, [orgField]);
    setReturnUrl("https://app.test/back");
    const response = await submitConnectPage(ctx, "good", form({ csrf: "csrf-1", "input.org": "org1" }));
    expect(response.status).toBe(303);
    expect(Object.fromEntries(response.headers)).toStrictEqual({
      location: "https://idp.test/authorize?state=x",
      "cache-control": "no-store",
      "referrer-policy": "no-referrer",
      "x-content-type-options": "nosniff",
    });
    expect(s.calls.slice(1)).toEqual([
      [
        "start",
        { ...authorization, returnUrl: "https://app.test/back" },
        toolkit,
        scheme,
        { label: "work", returnUrl: "https://app.test/back", config: { region: "eu", org: "org1" }, linkedTo: "auth_1" },
      ],
    ]);
    expect(consumed).toEqual([[await sha256Hex("state-1"), true]]);
    expect(await answer(await submitConnectPage(ctx, "good", form({ csrf: "csrf-1", "input.org": "org1" })))).toStrictEqual({
      status: 410,
      body: { page: "message", title: "invalidTitle{}", message: "used{}" },
    });
  });
});
