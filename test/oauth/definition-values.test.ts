/**
 * The values a definition reads from a provider (src/oauth/values.ts): dotted paths, config values
 * and their rules, the URLs and headers of a definition's own requests, and the "who am I" lookups
 * with what each kind of answer means. The lookups go through the handler's `fetch` (the `fetch`
 * option), here a function that records each request and answers as a provider would.
 */
import { describe, expect, it } from "vitest";
import type { HandlerContext } from "../../src/context/context.js";
import type { AccountLookup, AuthScheme, Credential } from "../../src/credentials/auth-schemes.js";
import { definitionUrl, fillHeaders, readPath, readValues, runLookups, ValueError } from "../../src/oauth/values.js";
import type { Toolkit } from "../../src/toolkits/define.js";

describe("readPath", () => {
  it("follows object keys and list indexes", () => {
    expect(readPath({ team: { id: "T1" } }, "team.id")).toBe("T1");
    expect(readPath([{ id: 5 }], "0.id")).toBe(5);
    expect(readPath({ a: 0 }, "a")).toBe(0);
  });

  it("is undefined past null, a primitive, or a key the value does not own", () => {
    expect(readPath(null, "a")).toBeUndefined();
    expect(readPath({ a: null }, "a.b")).toBeUndefined();
    expect(readPath({ a: "text" }, "a.length")).toBeUndefined();
    expect(readPath({}, "constructor")).toBeUndefined();
    expect(readPath({ a: {} }, "a.toString")).toBeUndefined();
    expect(readPath({ a: 1 }, "b")).toBeUndefined();
  });
});

describe("readValues", () => {
  it("reads no values when there are no rules", () => {
    expect(readValues({ a: "x" }, undefined, "token answer")).toEqual({});
  });

  it("reads a path rule as text, numbers included", () => {
    expect(readValues({ team: { id: "T1" }, n: 42 }, { team: "team.id", num: "n" }, "token answer")).toEqual({ team: "T1", num: "42" });
  });

  it("keeps a pattern's first capture group, or the whole match without one", () => {
    expect(readValues({ url: "https://acme.example.com/x" }, { shop: { path: "url", pattern: "^https://([a-z]+)\\." } }, "w")).toEqual({
      shop: "acme",
    });
    expect(readValues({ id: "abc-123" }, { id: { path: "id", pattern: "[a-z]+" } }, "w")).toEqual({ id: "abc" });
  });

  it("matches with Unicode patterns", () => {
    expect(readValues({ id: "abc" }, { id: { path: "id", pattern: "^(\\p{Ll}+)$" } }, "w")).toEqual({ id: "abc" });
  });

  it("refuses a value that is absent, not text or a number, unmatched, or not DNS labels, naming path and name only", () => {
    const cases: [unknown, Record<string, string | { path: string; pattern: string }>][] = [
      [{}, { team: "team.id" }],
      [{ team: { id: true } }, { team: "team.id" }],
      [{ team: { id: { x: 1 } } }, { team: "team.id" }],
      [{ team: { id: "no-match" } }, { team: { path: "team.id", pattern: "^\\d+$" } }],
      [{ team: { id: "a/b" } }, { team: "team.id" }],
      [{ team: { id: "" } }, { team: "team.id" }],
      // An absent value is never matched: "undefined" would fit the pattern.
      [{}, { team: { path: "team.id", pattern: "^([a-z]+)$" } }],
    ];
    for (const [source, rules] of cases) {
      expect(() => readValues(source, rules, "token answer")).toThrow(
        new ValueError('The provider\'s token answer did not hold a usable "team.id", which this toolkit needs as "team".'),
      );
    }
    expect(() => readValues({ team: { id: "secret value" } }, { team: "team.id" }, "redirect")).toThrow(ValueError);
    // Several labels are a value (a Salesforce sandbox's instance); where one fills a URL decides what it may be.
    expect(readValues({ team: { id: "acme--dev.sandbox" } }, { team: "team.id" }, "w")).toEqual({ team: "acme--dev.sandbox" });
  });
});

describe("definitionUrl", () => {
  const toolkit = { baseUrls: ["https://api.example.com/v1//", "https://other.example.com"] };

  it("puts a path under the first base URL, without doubled slashes", () => {
    expect(definitionUrl(toolkit, "/user", {})).toBe("https://api.example.com/v1/user");
  });

  it("keeps an absolute URL, and fills placeholders of either from the config", () => {
    expect(definitionUrl(toolkit, "https://login.example.com/me", {})).toBe("https://login.example.com/me");
    expect(definitionUrl(toolkit, "https://{shop}.example.com/me", { shop: "acme" })).toBe("https://acme.example.com/me");
    expect(definitionUrl({ baseUrls: ["https://{shop}.example.com"] }, "/me", { shop: "acme" })).toBe("https://acme.example.com/me");
  });
});

describe("fillHeaders", () => {
  it("fills placeholders from the config and leaves out a header with an unknown one", () => {
    expect(
      fillHeaders(
        { "xero-tenant-id": "{tenant_Id2}", both: "{a}-{b}", fixed: "v1", missing: "x {nope}" },
        { tenant_Id2: "T9", a: "1", b: "2" },
      ),
    ).toEqual({ "xero-tenant-id": "T9", both: "1-2", fixed: "v1" });
  });

  it("leaves out a header when only one of its placeholders is unknown", () => {
    expect(fillHeaders({ h: "{a}{b}" }, { a: "1" })).toEqual({});
    expect(fillHeaders({ h: "{b}{a}" }, { a: "1" })).toEqual({});
  });
});

interface Seen {
  url: string;
  method: string;
  headers: Headers;
  body: string | undefined;
  signal: AbortSignal | undefined;
}

function context(answer: (seen: Seen, index: number) => Response | Promise<Response>) {
  const seen: Seen[] = [];
  const fetch = (async (input: string | URL, init: RequestInit = {}) => {
    const entry: Seen = {
      url: String(input),
      method: init.method ?? "GET",
      headers: new Headers(init.headers),
      body: typeof init.body === "string" ? init.body : undefined,
      signal: init.signal ?? undefined,
    };
    seen.push(entry);
    return answer(entry, seen.length - 1);
  }) as typeof globalThis.fetch;
  const ctx = { fetch, timeouts: { toolMs: 30_000, proxyMs: 30_000 } } as unknown as HandlerContext;
  return { ctx, seen };
}

const toolkit = {
  slug: "acme",
  name: "Acme",
  baseUrls: ["https://api.acme.test/v2"],
  headers: { "x-tenant": "{tenant}", "x-fixed": "yes" },
} as unknown as Toolkit;
const bearer: AuthScheme = { type: "bearer" };
const token: Credential = { type: "bearer", token: "tok-123" };

describe("runLookups", () => {
  it("asks nothing without lookups", async () => {
    const { ctx, seen } = context(() => Response.json({}));
    expect(await runLookups(ctx, toolkit, bearer, token, undefined, {})).toStrictEqual({ config: {} });
    expect(seen).toEqual([]);
  });

  it("sends a GET with the credential, JSON accepted, the toolkit's filled headers and a deadline", async () => {
    const { ctx, seen } = context(() => Response.json({ login: "ada" }));
    const result = await runLookups(ctx, toolkit, bearer, token, { url: "/me", remoteUser: "login" }, { tenant: "t1" });
    expect(result).toStrictEqual({ remoteUser: "ada", config: {} });
    const [request] = seen;
    expect(request!.url).toBe("https://api.acme.test/v2/me");
    expect(request!.method).toBe("GET");
    expect(request!.headers.get("authorization")).toBe("Bearer tok-123");
    expect(request!.headers.get("accept")).toBe("application/json");
    expect(request!.headers.get("content-type")).toBeNull();
    expect(request!.headers.get("x-tenant")).toBe("t1");
    expect(request!.headers.get("x-fixed")).toBe("yes");
    expect(request!.body).toBeUndefined();
    expect(request!.signal).toBeInstanceOf(AbortSignal);
    expect(request!.signal!.aborted).toBe(false);
  });

  it("the deadline is the proxy timeout", async () => {
    const { ctx } = context(
      (seen) =>
        new Promise((_, reject) => {
          seen.signal!.addEventListener("abort", () => reject(seen.signal!.reason));
        }),
    );
    (ctx.timeouts as { proxyMs: number }).proxyMs = 20;
    await expect(runLookups(ctx, toolkit, bearer, token, { url: "/me" }, {})).rejects.toThrow();
  });

  it("sends a body as JSON with POST, and the lookup's own headers over the defaults", async () => {
    const { ctx, seen } = context(() => Response.json({ data: { viewer: { id: 7 } } }));
    const lookup: AccountLookup = {
      url: "/graphql",
      body: { query: "{ viewer { id } }" },
      headers: { accept: "application/graphql+json" },
      remoteUser: "data.viewer.id",
    };
    expect(await runLookups(ctx, toolkit, bearer, token, lookup, {})).toStrictEqual({ remoteUser: "7", config: {} });
    expect(seen[0]!.method).toBe("POST");
    expect(seen[0]!.headers.get("content-type")).toBe("application/json");
    expect(seen[0]!.headers.get("accept")).toBe("application/graphql+json");
    expect(seen[0]!.body).toBe('{"query":"{ viewer { id } }"}');
  });

  it("uses the lookup's method when it names one", async () => {
    const { ctx, seen } = context(() => Response.json({}));
    await runLookups(ctx, toolkit, bearer, token, { url: "/me", method: "POST" }, {});
    expect(seen[0]!.method).toBe("POST");
    expect(seen[0]!.body).toBeUndefined();
  });

  it("puts a query-placed key in the URL", async () => {
    const { ctx, seen } = context(() => Response.json({}));
    const scheme: AuthScheme = { type: "apiKey", in: "query", name: "api_key" };
    await runLookups(ctx, toolkit, scheme, { type: "apiKey", apiKey: "k-1" }, { url: "https://id.acme.test/who?x=1" }, {});
    expect(seen[0]!.url).toBe("https://id.acme.test/who?x=1&api_key=k-1");
  });

  it("runs lookups in order: a later one's URL and headers use the values read by an earlier one; the last account wins", async () => {
    const { ctx, seen } = context((_, i) =>
      i === 0 ? Response.json({ tenants: [{ id: "t-9" }], me: "first" }) : Response.json({ name: "second" }),
    );
    const lookups: AccountLookup[] = [
      { url: "/tenants", config: { tenant: "tenants.0.id" }, remoteUser: "me" },
      { url: "https://{tenant}.acme.test/profile", remoteUser: "name" },
    ];
    expect(await runLookups(ctx, toolkit, bearer, token, lookups, { region: "eu" })).toStrictEqual({
      remoteUser: "second",
      config: { tenant: "t-9" },
    });
    expect(seen[1]!.url).toBe("https://t-9.acme.test/profile");
    expect(seen[1]!.headers.get("x-tenant")).toBe("t-9");
  });

  it("the connection's config fills the first lookup", async () => {
    const { ctx, seen } = context(() => Response.json({}));
    await runLookups(ctx, toolkit, bearer, token, { url: "https://{region}.acme.test/me" }, { region: "eu" });
    expect(seen[0]!.url).toBe("https://eu.acme.test/me");
  });

  it("401 and 403 refuse the credential, with the values read so far, and release the answer", async () => {
    for (const status of [401, 403]) {
      let cancelled = false;
      const body = new ReadableStream({
        cancel() {
          cancelled = true;
        },
      });
      const { ctx } = context((_, i) => (i === 0 ? Response.json({ t: "x1" }) : new Response(body, { status })));
      const result = await runLookups(ctx, toolkit, bearer, token, [{ url: "/a", config: { t: "t" } }, { url: "/b" }], {});
      expect(result).toStrictEqual({ config: { t: "x1" }, refused: true });
      expect(cancelled).toBe(true);
    }
  });

  it("a 401 without a body refuses too", async () => {
    const { ctx } = context(() => new Response(null, { status: 401 }));
    expect(await runLookups(ctx, toolkit, bearer, token, { url: "/me" }, {})).toStrictEqual({ config: {}, refused: true });
  });

  it("Slack's ok: false with an auth error refuses; with another error it is a failure", async () => {
    for (const error of ["invalid_auth", "not_authed", "token_revoked", "account_inactive"]) {
      const { ctx } = context(() => Response.json({ ok: false, error }));
      expect(await runLookups(ctx, toolkit, bearer, token, { url: "/auth.test" }, {})).toStrictEqual({ config: {}, refused: true });
    }
    const { ctx } = context(() => Response.json({ ok: false, error: "ratelimited" }));
    await expect(runLookups(ctx, toolkit, bearer, token, { url: "/auth.test" }, {})).rejects.toThrow(
      new ValueError("The provider's account request answered 200 without the expected JSON."),
    );
  });

  it("any other failed status, an answer that is not JSON, or one over 1 MiB is a ValueError naming the status", async () => {
    const answers: [Response, number][] = [
      [Response.json({ login: "x" }, { status: 500 }), 500],
      [new Response("<html>", { status: 200 }), 200],
      [new Response(JSON.stringify({ login: "x", pad: "y".repeat(1024 * 1024) })), 200],
    ];
    for (const [response, status] of answers) {
      const { ctx } = context(() => response);
      await expect(runLookups(ctx, toolkit, bearer, token, { url: "/me", remoteUser: "login" }, {})).rejects.toThrow(
        new ValueError(`The provider's account request answered ${status} without the expected JSON.`),
      );
    }
  });

  it("an answer just under 1 MiB is read", async () => {
    const { ctx } = context(() => new Response(JSON.stringify({ login: "x", pad: "y".repeat(1024 * 1024 - 64) })));
    expect(await runLookups(ctx, toolkit, bearer, token, { url: "/me", remoteUser: "login" }, {})).toStrictEqual({
      remoteUser: "x",
      config: {},
    });
  });

  it("an answer that fails while read is that failure", async () => {
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        controller.error(new TypeError("socket closed"));
      },
    });
    const { ctx } = context(() => new Response(body));
    await expect(runLookups(ctx, toolkit, bearer, token, { url: "/me" }, {})).rejects.toThrow("socket closed");
  });

  it("an account that is not text or a number, or absent, is a ValueError naming the path", async () => {
    for (const login of [{ id: 1 }, null, true]) {
      const { ctx } = context(() => Response.json({ login }));
      await expect(runLookups(ctx, toolkit, bearer, token, { url: "/me", remoteUser: "login" }, {})).rejects.toThrow(
        new ValueError('The provider\'s account answer has no "login" naming the account.'),
      );
    }
  });

  it("config values are read from the account answer with their rules", async () => {
    const { ctx } = context(() => Response.json({ org: { slug: "a b" } }));
    await expect(runLookups(ctx, toolkit, bearer, token, { url: "/me", config: { org: "org.slug" } }, {})).rejects.toThrow(
      'The provider\'s account answer did not hold a usable "org.slug"',
    );
  });
});
