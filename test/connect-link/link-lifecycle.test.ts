/**
 * A connect link from start to open (src/connect-link/link.ts), unit by unit: what starting one needs
 * (publicUrl, an allowed returnUrl, a configured OAuth client), what it stores and for how long,
 * and every reason a token opens nothing. The same over HTTP is test/connect-link/flow.test.ts.
 */
import { afterEach, describe, expect, it, vi } from "vitest";
import { CONNECT_LINK_TTL_MS, openConnectLink, startConnectLink } from "../../src/connect-link/link.js";
import type { HandlerContext } from "../../src/context/context.js";
import type { AgentPrincipal } from "../../src/core/principal.js";
import type { AuthScheme } from "../../src/credentials/auth-schemes.js";
import type { AuthorizationRecord } from "../../src/store/types.js";
import type { Toolkit } from "../../src/toolkits/define.js";

const apiKey: AuthScheme = { type: "apiKey", in: "header", name: "x-api-key" };
const oauth = {
  type: "oauth2",
  authorizationUrl: "https://a.test/a",
  tokenUrl: "https://a.test/t",
  clientId: "c",
  scopes: [],
} as AuthScheme;
const toolkit = {
  slug: "keyed",
  name: "Keyed",
  authModes: [oauth, apiKey],
  inputs: [],
  baseUrls: ["https://api.test"],
} as unknown as Toolkit;
const agent = { workspaceId: "ws_1", agentId: "agent_1" } as AgentPrincipal;

function context(options: { publicUrl?: string | null; toolkits?: Toolkit[] } = {}) {
  const records = new Map<string, AuthorizationRecord>();
  const ctx = {
    basePath: "/tools",
    publicUrl: options.publicUrl === null ? null : new URL(options.publicUrl ?? "https://app.test/somewhere"),
    allowedReturnOrigins: ["https://back.test"],
    store: {
      createAuthorization: async (record: AuthorizationRecord) => void records.set(record.id, record),
      getAuthorization: async (id: string) => records.get(id) ?? null,
    },
    cipher: {
      encrypt: async (text: string, id: string) => `${id}|${text}`,
      decrypt: async (sealed: string, id: string) => {
        if (!sealed.startsWith(`${id}|`)) throw new Error("wrong associated data");
        return sealed.slice(id.length + 1);
      },
    },
    registry: { get: async (slug: string) => (options.toolkits ?? [toolkit]).find((t) => t.slug === slug) },
  } as unknown as HandlerContext;
  return { ctx, records };
}

async function started(ctx: HandlerContext, request: Parameters<typeof startConnectLink>[4] = { config: {} }, scheme = apiKey) {
  const link = await startConnectLink(ctx, agent, toolkit, scheme, request);
  const token = link.authorizationUrl.split("/connect/")[1]!;
  return { link, token };
}

afterEach(() => {
  vi.useRealTimers();
});

describe("startConnectLink", () => {
  it("answers the page URL on publicUrl's origin under basePath, and an expiry 30 minutes on", async () => {
    const { ctx, records } = context();
    const before = Date.now();
    const { link, token } = await started(ctx);
    expect(link.authorizationUrl).toBe(`https://app.test/tools/connect/${token}`);
    expect(token).toMatch(/^auth_[A-Za-z0-9_-]+\.[A-Za-z0-9_-]{43}$/);
    expect(token.startsWith(`${link.authorizationId}.`)).toBe(true);
    const expires = Date.parse(link.expiresAt);
    expect(expires).toBeGreaterThanOrEqual(before + 30 * 60 * 1000);
    expect(expires).toBeLessThanOrEqual(Date.now() + 30 * 60 * 1000);
    expect(CONNECT_LINK_TTL_MS).toBe(1_800_000);
    expect(records.get(link.authorizationId)!.status).toBe("pending");
  });

  it("keeps the mode, the config and the account name encrypted, the name only when given", async () => {
    const { ctx, records } = context();
    const a = await started(ctx, { config: { org: "o1" }, remoteUser: "ada" });
    expect(JSON.parse(records.get(a.link.authorizationId)!.secrets.split("|")[1]!)).toStrictEqual({
      connect: { mode: "apiKey", config: { org: "o1" }, remoteUser: "ada" },
    });
    const b = await started(ctx, { config: {} });
    expect(JSON.parse(records.get(b.link.authorizationId)!.secrets.split("|")[1]!)).toStrictEqual({
      connect: { mode: "apiKey", config: {} },
    });
  });

  it("needs publicUrl, saying so", async () => {
    const { ctx } = context({ publicUrl: null });
    await expect(started(ctx)).rejects.toMatchObject({
      code: "invalid_request",
      message: expect.stringContaining("This server cannot make connect links: its publicUrl is not configured."),
    });
  });

  it("for OAuth, needs a configured client and the redirect URI first", async () => {
    const { ctx } = context({ publicUrl: null });
    await expect(started(ctx, { config: {} }, oauth)).rejects.toMatchObject({ message: expect.stringContaining("cannot start OAuth") });
    const unconfigured = { ...oauth, unconfigured: "Set ACME_CLIENT_ID to connect Acme." } as AuthScheme;
    await expect(started(context().ctx, { config: {} }, unconfigured)).rejects.toMatchObject({
      code: "invalid_request",
      message: "Set ACME_CLIENT_ID to connect Acme.",
    });
    const ok = await started(context().ctx, { config: {} }, oauth);
    expect(ok.link.authorizationUrl).toContain("/tools/connect/");
  });

  it("takes a returnUrl on the app's origin or an allowed one, and refuses another", async () => {
    const { ctx } = context();
    await started(ctx, { config: {}, returnUrl: "https://app.test/done" });
    await started(ctx, { config: {}, returnUrl: "https://back.test/done" });
    await expect(started(ctx, { config: {}, returnUrl: "https://evil.test/done" })).rejects.toMatchObject({
      code: "invalid_request",
      message: "returnUrl must be on this app's origin or one of its allowedReturnOrigins.",
    });
  });
});

describe("openConnectLink", () => {
  it("opens a pending link with its toolkit, scheme, config and account name", async () => {
    const { ctx } = context();
    const { token } = await started(ctx, { config: { org: "o1" }, remoteUser: "ada" });
    const open = await openConnectLink(ctx, token);
    expect(open).toMatchObject({ state: token.split(".")[1], config: { org: "o1" }, remoteUser: "ada" });
    expect(typeof open === "object" && open.scheme).toBe(apiKey);
    expect(typeof open === "object" && open.toolkit).toBe(toolkit);
  });

  it("opens nothing for a token with anything before or after it, or another link's state", async () => {
    const { ctx } = context();
    const { token } = await started(ctx);
    const other = await started(ctx);
    expect(await openConnectLink(ctx, `x${token}`)).toBe("unknown");
    expect(await openConnectLink(ctx, `${token}x`)).toBe("unknown");
    expect(await openConnectLink(ctx, `${token.split(".")[0]}.${other.token.split(".")[1]}`)).toBe("unknown");
    expect(await openConnectLink(ctx, "auth_missing.AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA")).toBe("unknown");
  });

  it("says used for a consumed link, or one whose sign-in finished", async () => {
    const { ctx, records } = context();
    const a = await started(ctx);
    records.get(a.link.authorizationId)!.consumedAt = new Date();
    expect(await openConnectLink(ctx, a.token)).toBe("used");
    const b = await started(ctx);
    records.get(b.link.authorizationId)!.status = "connected";
    expect(await openConnectLink(ctx, b.token)).toBe("used");
  });

  it("says expired from the very millisecond of its expiry", async () => {
    const { ctx, records } = context();
    const { link, token } = await started(ctx);
    vi.useFakeTimers({ toFake: ["Date"], now: records.get(link.authorizationId)!.expiresAt.getTime() - 1 });
    expect(typeof (await openConnectLink(ctx, token))).toBe("object");
    vi.setSystemTime(records.get(link.authorizationId)!.expiresAt.getTime());
    expect(await openConnectLink(ctx, token)).toBe("expired");
  });

  it("opens nothing when its secrets do not open, belong to an OAuth sign-in, or name a toolkit or mode that is gone", async () => {
    const { ctx, records } = context({ toolkits: [{ ...toolkit, authModes: [oauth] } as Toolkit] });
    const sealed = await started(ctx);
    records.get(sealed.link.authorizationId)!.secrets = "tampered";
    expect(await openConnectLink(ctx, sealed.token)).toBe("unknown");
    const signIn = await started(ctx);
    records.get(signIn.link.authorizationId)!.secrets = `${signIn.link.authorizationId}|${JSON.stringify({ codeVerifier: "v" })}`;
    expect(await openConnectLink(ctx, signIn.token)).toBe("unknown");
    // The toolkit no longer has the API key mode the link was made for.
    expect(await openConnectLink(ctx, (await started(ctx)).token)).toBe("unknown");
    const gone = context({ toolkits: [] });
    const link = await started(gone.ctx);
    expect(await openConnectLink(gone.ctx, link.token)).toBe("unknown");
  });
});
