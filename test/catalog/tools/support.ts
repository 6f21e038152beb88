/**
 * Runs a curated toolkit's tools through the real handler (`POST /execute`), with the handler's
 * outbound `fetch` answered by an in-test emulation of the provider's API at its real base URLs.
 */

import { expect } from "vitest";
import { catalogToolkit } from "../../../src/catalog/index.js";
import { bearer, defineToolkit, type Tool } from "../../../src/index.js";
import { CREDENTIALS, createHarness, type Harness, multipart } from "../../support/harness.js";

/** One request the emulated API received. */
export interface Sent {
  method: string;
  url: URL;
  headers: Headers;
  bytes: Uint8Array;
  text: string;
  /** The body parsed as JSON. */
  json(): any;
  /** The body parsed as a form (`application/x-www-form-urlencoded`). */
  form(): URLSearchParams;
}

/** Answers one request of the emulated API. */
export type Answer = (request: Sent) => Response | Promise<Response>;

/** A JSON answer, as the providers send them. */
export function reply(body: unknown, status = 200, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(body), { status, headers: { "content-type": "application/json; charset=UTF-8", ...headers } });
}

/** An emulated provider API: `answer` routes requests (set per test), `sent` records them. */
export function emulatedApi() {
  const sent: Sent[] = [];
  let route: Answer = (request) => reply({ message: `no emulation for ${request.method} ${request.url}` }, 599);
  const fetch = async (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
    const request = new Request(input, init);
    const bytes = new Uint8Array(await request.arrayBuffer());
    const text = new TextDecoder().decode(bytes);
    const recorded: Sent = {
      method: request.method,
      url: new URL(request.url),
      headers: request.headers,
      bytes,
      text,
      json: () => JSON.parse(text),
      form: () => new URLSearchParams(text),
    };
    sent.push(recorded);
    return route(recorded);
  };
  return {
    fetch: fetch as typeof globalThis.fetch,
    sent,
    /** Sets how the API answers, and forgets earlier requests. */
    answer(next: Answer) {
      route = next;
      sent.length = 0;
    },
  };
}

export interface ToolkitUnderTest {
  slug: string;
  name: string;
  baseUrl: string | string[];
  tools: Tool[];
}

/**
 * A harness serving the toolkit (bearer auth, the real base URLs) over the emulated API, with an
 * agent connected to it. Returns helpers to execute tools, stage and read files.
 */
export async function toolkitHarness(toolkit: ToolkitUnderTest) {
  const api = emulatedApi();
  // The catalog's own base URLs, default headers and tools, with a bearer connection in place of OAuth.
  const catalog = catalogToolkit(toolkit.slug);
  expect(catalog.baseUrls, "the test's base URLs are the catalog's").toEqual([toolkit.baseUrl].flat());
  expect(catalog.tools.map((t) => t.slug)).toEqual(toolkit.tools.map((t) => t.slug));
  const definition = defineToolkit({
    slug: toolkit.slug,
    name: toolkit.name,
    description: `${toolkit.name}, with its curated tools.`,
    baseUrl: catalog.baseUrls,
    headers: catalog.headers,
    auth: bearer(),
    tools: catalog.tools,
  });
  const h: Harness = await createHarness({ fetch: api.fetch, extraToolkits: () => [definition] });
  const { key } = await h.issueAgentKey("agent-tools");
  await h.connect(key, toolkit.slug, { token: CREDENTIALS.bearerToken });
  return {
    h,
    api,
    /** Runs a tool through POST /execute and returns the ExecutionResult. */
    async execute(tool: string, args: Record<string, unknown>) {
      const res = await h.call("POST", "/execute", { key, body: { tool, arguments: args } });
      expect(res.status, res.text).toBe(200);
      return res.json as { data: any; error: string | null; successful: boolean; code?: string; upstreamStatus?: number };
    },
    /** Sends POST /execute and returns the HTTP answer, for arguments the handler refuses. */
    executeRaw(tool: string, args: Record<string, unknown>) {
      return h.call("POST", "/execute", { key, body: { tool, arguments: args } });
    },
    /** Stages a file through POST /upload and returns its key. */
    async upload(content: BlobPart, type: string, filename: string): Promise<string> {
      const res = await h.call("POST", "/upload", { key, rawBody: multipart(content, type, filename) });
      expect(res.status, res.text).toBe(200);
      return res.json.stagingKey as string;
    },
    /** Reads a staged file back through GET /files/{key}. */
    async download(stagingKey: string) {
      const res = await h.call("GET", `/files/${stagingKey}`, { key });
      expect(res.status, res.text).toBe(200);
      return { bytes: res.bytes, text: res.text, contentType: res.headers.get("content-type") };
    },
    async close() {
      h.assertNoLeaks();
      await h.close();
    },
  };
}

/** Every request carried the connection's token, and nothing else authenticates it. */
export function expectAuthorized(sent: Sent[]): void {
  expect(sent.length).toBeGreaterThan(0);
  for (const request of sent) expect(request.headers.get("authorization")).toBe(`Bearer ${CREDENTIALS.bearerToken}`);
}
