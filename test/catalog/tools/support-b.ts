/**
 * What the tests of the curated Notion, Linear, Jira, HubSpot and Outlook tools share: a toolkit
 * at the provider's real base URL, an emulation of the provider that the handler's outbound fetch
 * reaches instead of the network (recording every request), and a harness with one agent and one
 * bearer connection that executes tools through `POST /execute`.
 */

import { afterEach, expect } from "vitest";
import { catalogToolkit } from "../../../src/catalog/index.js";
import { bearer, defineToolkit, type Tool } from "../../../src/index.js";
import { CREDENTIALS, createHarness, type Harness, multipart } from "../../support/harness.js";

/** A request the emulation received, as the provider would see it. */
export interface Received {
  method: string;
  /** The path under the origin, e.g. `/v1/pages/abc`. */
  path: string;
  query: URLSearchParams;
  headers: Headers;
  /** The parsed JSON body, or the text, or null. */
  body: unknown;
}

/** Answers one emulated request; `params` are the named groups of the route's pattern. */
export type Route = {
  method: string;
  path: RegExp;
  answer: (request: Received, params: Record<string, string>) => Response | Promise<Response>;
};

/** A JSON answer. */
export const json = (body: unknown, status = 200, headers: Record<string, string> = {}) =>
  new Response(JSON.stringify(body), { status, headers: { "content-type": "application/json", ...headers } });

/**
 * A fetch for the handler that sends requests to `origin` to the routes and refuses every other
 * URL (so a test fails if a tool reaches anywhere else). A request no route matches is a 501 that
 * names it, so a wrong path fails the test with the path in the message.
 */
export function emulate(origin: string, routes: Route[]) {
  const received: Received[] = [];
  const fetch = async (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
    const request = new Request(input, init);
    const url = new URL(request.url);
    if (url.origin !== origin) throw new Error(`The emulation of ${origin} was asked for ${request.url}.`);
    const text = await request.text();
    let body: unknown = text === "" ? null : text;
    if ((request.headers.get("content-type") ?? "").includes("json")) body = JSON.parse(text);
    const seen: Received = { method: request.method, path: url.pathname, query: url.searchParams, headers: request.headers, body };
    received.push(seen);
    for (const route of routes) {
      const match = route.method === request.method ? route.path.exec(url.pathname) : null;
      if (match) return route.answer(seen, { ...match.groups });
    }
    return json({ emulation: `no route for ${request.method} ${url.pathname}` }, 501);
  };
  return { fetch: fetch as typeof globalThis.fetch, received, last: () => received.at(-1)! };
}

export interface ToolkitSetup {
  slug: string;
  baseUrl: string;
  tools: Tool[];
  headers?: Record<string, string>;
  /** Values of the base URL's placeholders, given to POST /auth as `params`. */
  params?: Record<string, string>;
  routes: Route[];
}

let open: Harness[] = [];
afterEach(async () => {
  const harnesses = open;
  open = [];
  await Promise.all(harnesses.map((harness) => harness.close()));
  // No answer, log line or event of any test may carry the connection's token.
  for (const harness of harnesses) harness.assertNoLeaks();
});

/**
 * A handler serving the toolkit at its real base URL over the emulation, an agent, and one bearer
 * connection. `execute` runs a tool through `POST /execute` and returns the ExecutionResult.
 */
export async function setupToolkit(setup: ToolkitSetup) {
  // The origin the filled base URL has (a subdomain input, for one), with "x" for a placeholder not given.
  const filled = setup.baseUrl.replace(/\{([^}]+)\}/g, (_, name: string) => setup.params?.[name] ?? "x");
  const emulation = emulate(new URL(filled).origin, setup.routes);
  // The catalog's own base URL, default headers and tools, with a bearer connection in place of OAuth.
  const catalog = catalogToolkit(setup.slug);
  expect(catalog.baseUrls, "the test's base URL is the catalog's").toEqual([setup.baseUrl]);
  expect(catalog.headers, "the test's headers are the catalog's").toEqual(setup.headers ?? {});
  expect(catalog.tools.map((t) => t.slug)).toEqual(setup.tools.map((t) => t.slug));
  const toolkit = defineToolkit({
    slug: setup.slug,
    name: setup.slug,
    description: `Curated ${setup.slug} tools under test.`,
    baseUrl: catalog.baseUrls,
    auth: bearer(),
    headers: catalog.headers,
    tools: catalog.tools,
  });
  const harness = await createHarness({ fetch: emulation.fetch, extraToolkits: () => [toolkit] });
  open.push(harness);
  const { key } = await harness.issueAgentKey("agent-1");
  const connection = await harness.connect(
    key,
    setup.slug,
    { token: CREDENTIALS.bearerToken },
    setup.params ? { params: setup.params } : {},
  );

  /** POST /execute as it answered (a 400 for arguments the tool's schema refuses). */
  const send = (tool: string, args: Record<string, unknown>) => harness.call("POST", "/execute", { key, body: { tool, arguments: args } });

  async function execute(tool: string, args: Record<string, unknown> = {}) {
    const res = await send(tool, args);
    expect(res.status, res.text).toBe(200);
    return res.json as { data: any; error: string | null; successful: boolean; code?: string; upstreamStatus?: number };
  }

  /** Executes and expects success; returns `data`. */
  async function ok(tool: string, args: Record<string, unknown> = {}) {
    const result = await execute(tool, args);
    expect(result.error, JSON.stringify(result)).toBeNull();
    expect(result.successful).toBe(true);
    return result.data;
  }

  /** Stages a file through POST /upload and returns its staging key. */
  async function upload(content: BlobPart, type: string, filename: string): Promise<string> {
    const res = await harness.call("POST", "/upload", { key, rawBody: multipart(content, type, filename) });
    expect(res.status, res.text).toBe(200);
    return res.json.stagingKey as string;
  }

  /** Reads a staged file with GET /files/{key}. */
  async function download(stagingKey: string) {
    const res = await harness.call("GET", `/files/${encodeURIComponent(stagingKey)}`, { key });
    expect(res.status, res.text).toBe(200);
    return { bytes: res.bytes, contentType: res.headers.get("content-type") };
  }

  /** The last request the provider received, with the connection's token checked on it. */
  function last(): Received {
    const request = emulation.last();
    expect(request.headers.get("authorization")).toBe(`Bearer ${CREDENTIALS.bearerToken}`);
    return request;
  }

  return { harness, connection, send, execute, ok, upload, download, received: emulation.received, last };
}
