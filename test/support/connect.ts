/**
 * For the connect page's tests: an upstream that accepts one API key and refuses any other, and
 * toolkits whose credential a person types on the page.
 */
import type { ServerResponse } from "node:http";
import { z } from "zod";
import { apiKey, defineTool, defineToolkit, oauth2, type Toolkit } from "../../src/index.js";
import { type RecordedRequest, startServer, type TestServer } from "./upstream.js";

const reply = (res: ServerResponse, status: number, value: unknown) =>
  void res.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify(value));

/** An upstream whose `/v1/me` and `/v1/echo` (and `/t/<shop>/...`) answer 200 with `goodKey` in `X-Key`, else 401. */
export function startKeyedUpstream(goodKey: string): Promise<TestServer> {
  return startServer((request: RecordedRequest, res, url) => {
    if (request.headers["x-key"] !== goodKey) return reply(res, 401, { error: "bad key" });
    if (url.pathname.endsWith("/me")) return reply(res, 200, { login: "alice" });
    return reply(res, 200, { ok: true, path: url.pathname });
  });
}

/**
 * `keyed`: an API key checked by a "who am I" request. `shopkey`: an API key and a shop input.
 * `shopauth`: OAuth at a host named by the shop input (`https://{shop}.shop.test`).
 */
export function connectToolkits(origin: string): Toolkit[] {
  return [
    defineToolkit({
      slug: "keyed",
      name: "Keyed",
      description: "An API key verified with /me.",
      icon: "catalog:github",
      baseUrl: `${origin}/v1`,
      auth: apiKey({
        in: "header",
        name: "X-Key",
        label: "Personal API key",
        helpUrl: "https://keyed.example/settings/keys",
        identify: { url: "/me", remoteUser: "login" },
      }),
      tools: [
        defineTool({
          slug: "KEYED_ECHO",
          name: "Echo",
          description: "Calls /echo.",
          input: z.object({}),
          run: async (_args, ctx) => (await ctx.fetch("/echo")).json(),
        }),
      ],
    }),
    defineToolkit({
      slug: "shopkey",
      name: "Shop Key",
      description: "An API key for one shop.",
      baseUrl: `${origin}/t/{shop}`,
      inputs: [{ name: "shop", label: "Shop name", pattern: "^[a-z][a-z0-9-]*$", example: "acme" }],
      auth: apiKey({ in: "header", name: "X-Key" }),
      tools: [],
    }),
    defineToolkit({
      slug: "shopauth",
      name: "Shop Auth",
      description: "OAuth at the shop's own host.",
      baseUrl: "https://{shop}.shop.test/api",
      inputs: [{ name: "shop", label: "Shop name", pattern: "^[a-z][a-z0-9-]*$", example: "acme" }],
      auth: oauth2({
        clientId: "shop-client",
        clientSecret: "shop-client-secret",
        authorizationUrl: "https://{shop}.shop.test/oauth/authorize",
        tokenUrl: "https://{shop}.shop.test/oauth/token",
        scopes: ["read"],
      }),
      tools: [],
    }),
  ];
}
