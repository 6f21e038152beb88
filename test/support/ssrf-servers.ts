import type { ServerResponse } from "node:http";
import { z } from "zod";
import { apiKey, basic, bearer, defineTool, defineToolkit, type Toolkit } from "../../src/index.js";
import { createHarness, type Harness } from "./harness.js";
import { type RecordedRequest, startServer, type TestServer } from "./upstream.js";

/**
 * A recording server on `::` with IPv4 mapped in: a URL policy bug that let a loopback spelling
 * through would show up as a recorded request, not a connection error.
 */
export function startLoopbackServer(route: (request: RecordedRequest, res: ServerResponse, url: URL) => void): Promise<TestServer> {
  return startServer(route, { dualStack: true });
}

/**
 * The allowed API. `/v1/redirect?to=URL&code=302` redirects to `to`; `/v1/loop` redirects to
 * itself forever; `/v1/chain?n=N` redirects N more times, then answers 200; anything else is a
 * 200 JSON echo of the method and path.
 */
export function ssrfUpstreamRoute(request: RecordedRequest, res: ServerResponse, url: URL): void {
  const redirect = (code: number, location: string): void =>
    void res.writeHead(code, { location, "content-type": "text/plain" }).end("redirecting");
  if (url.pathname === "/v1/redirect") return redirect(Number(url.searchParams.get("code") ?? 302), url.searchParams.get("to") ?? "/");
  if (url.pathname === "/v1/loop") return redirect(302, "/v1/loop");
  const n = Number(url.searchParams.get("n") ?? 0);
  if (url.pathname === "/v1/chain" && n > 0) return redirect(302, `/v1/chain?n=${n - 1}`);
  res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ ok: true, method: request.method, path: url.pathname }));
}

const RUN = Math.random().toString(36).slice(2, 10);

/** The credentials of the SSRF toolkits, one per scheme. */
export const SSRF_CREDENTIALS = {
  bearer: `ssrf-bearer-${RUN}`,
  headerKey: `ssrf-hdrkey-${RUN}`,
  queryKey: `ssrf-qrykey-${RUN}`,
  basicPassword: `ssrf-basic-${RUN}`,
};
const BASIC = Buffer.from(`ssrf-user:${SSRF_CREDENTIALS.basicPassword}`).toString("base64");

/** Whether a recorded request carries any SSRF credential, anywhere (URL, headers or body). */
export function carriesCredential(request: RecordedRequest): boolean {
  const text = `${request.url}\n${JSON.stringify(request.headers)}\n${request.body}`;
  return [...Object.values(SSRF_CREDENTIALS), BASIC].some((secret) => text.includes(secret));
}

/** One toolkit per credential scheme, all with the base URL `${upstream.origin}/v1`. */
export const SSRF_TOOLKITS = ["ssrf-bearer", "ssrf-key", "ssrf-query", "ssrf-basic"] as const;
export type SsrfToolkit = (typeof SSRF_TOOLKITS)[number];

const fetchTool = (slug: string) =>
  defineTool({
    slug,
    name: "Fetch",
    description: "Fetches any URL with ctx.fetch and reports the answer.",
    input: z.object({ url: z.string(), headers: z.record(z.string(), z.string()).optional() }),
    run: async (args, ctx) => {
      const response = await ctx.fetch(args.url, { headers: args.headers });
      return { status: response.status, location: response.headers.get("location"), body: await response.text() };
    },
  });

function ssrfToolkits(base: string): Toolkit[] {
  const toolkit = (slug: SsrfToolkit, auth: Toolkit["auth"]) =>
    defineToolkit({
      slug,
      name: slug,
      description: "SSRF target.",
      baseUrl: base,
      auth,
      tools: [fetchTool(`${slug.toUpperCase().replace("-", "_")}_FETCH`)],
    });
  return [
    toolkit("ssrf-bearer", bearer()),
    toolkit("ssrf-key", apiKey({ in: "header", name: "X-Secret-Key" })),
    toolkit("ssrf-query", apiKey({ in: "query", name: "api_key" })),
    toolkit("ssrf-basic", basic()),
  ];
}

export interface SsrfSetup {
  h: Harness;
  key: string;
  /** The allowed API, base URL `${upstream.origin}/v1`. */
  upstream: TestServer;
  /** Must never be reached. */
  foreign: TestServer;
  base: string;
  proxy(toolkit: SsrfToolkit, url: string, extra?: Record<string, unknown>): ReturnType<Harness["call"]>;
  execute(toolkit: SsrfToolkit, url: string, headers?: Record<string, string>): ReturnType<Harness["call"]>;
  close(): Promise<void>;
}

/** A harness with the four SSRF toolkits connected, against a loopback upstream and foreign server. */
export async function createSsrfSetup(): Promise<SsrfSetup> {
  const upstream = await startLoopbackServer(ssrfUpstreamRoute);
  const foreign = await startLoopbackServer((_request, res) => res.writeHead(200).end("foreign server reached"));
  const base = `${upstream.origin}/v1`;
  const h = await createHarness({ extraToolkits: () => ssrfToolkits(base) });
  const { key } = await h.issueAgentKey("ssrf-agent");
  await h.connect(key, "ssrf-bearer", { token: SSRF_CREDENTIALS.bearer });
  await h.connect(key, "ssrf-key", { apiKey: SSRF_CREDENTIALS.headerKey });
  await h.connect(key, "ssrf-query", { apiKey: SSRF_CREDENTIALS.queryKey });
  await h.connect(key, "ssrf-basic", { username: "ssrf-user", password: SSRF_CREDENTIALS.basicPassword });
  h.addSecret(BASIC);
  return {
    h,
    key,
    upstream,
    foreign,
    base,
    proxy: (toolkit, url, extra = {}) => h.call("POST", "/proxy", { key, body: { toolkit, method: "GET", url, ...extra } }),
    execute: (toolkit, url, headers) =>
      h.call("POST", "/execute", {
        key,
        body: { tool: `${toolkit.toUpperCase().replace("-", "_")}_FETCH`, arguments: { url, ...(headers ? { headers } : {}) } },
      }),
    async close() {
      await Promise.all([h.close(), upstream.close(), foreign.close()]);
    },
  };
}
