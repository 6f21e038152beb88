/**
 * The one HTTP test set every adapter runs, in its real framework or runtime: an example app from
 * examples/ started as a process on a loopback port, called over HTTP like any client would. It
 * goes through every route, a streamed upload and download, the OAuth callback, and the error
 * answers, all under the app's basePath.
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { AppProcess } from "./app-process.js";
import { BULK_TOOLS, type Fixtures, MAX_UPLOAD_BYTES, PUBLIC_URL, RETURN_ORIGIN, startFixtures } from "./fixtures.js";
import { requireDist } from "./runtimes.js";
import { generatedSha256, streamDownload, streamUpload } from "./streams.js";

export interface AdapterTarget {
  /** e.g. "Express 5 on Node 22". */
  label: string;
  /** Why it cannot run here (a runtime is missing), or null. */
  missing: string | null;
  basePath: string;
  fixtures: () => Fixtures;
  /** Starts the app for `basePath`. */
  start: () => Promise<AppProcess>;
  /** Set where the framework removes the handler's Content-Length (Next.js sends every body chunked). */
  dropsContentLength?: boolean;
  /** Set where the app has a route of its own, `POST /notes`, that answers `{ saved: <its parsed JSON body> }`. */
  ownJsonRoute?: boolean;
}

/** Size of the large upload and download. */
const LARGE = 64 * 1024 * 1024;
/** What each app did with the large transfer, printed at the end of its test file. */
const measured: string[] = [];

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Answer = { status: number; headers: Headers; text: string; json: any };

export function adapterSuite(target: AdapterTarget): void {
  const title = `${target.label}, basePath ${target.basePath}${target.missing ? ` (skipped: ${target.missing})` : ""}`;
  describe.skipIf(target.missing !== null)(title, () => {
    let app: AppProcess;
    let key: string;
    const base = () => `${app.origin}${target.basePath}`;

    async function call(
      method: string,
      path: string,
      options: { key?: string | null; json?: unknown; body?: BodyInit; headers?: Record<string, string> } = {},
    ): Promise<Answer> {
      const headers = new Headers(options.headers);
      const useKey = options.key === undefined ? key : options.key;
      if (useKey) headers.set("x-api-key", useKey);
      let body = options.body;
      if (options.json !== undefined) {
        headers.set("content-type", "application/json");
        body = JSON.stringify(options.json);
      }
      const response = await fetch(`${base()}${path}`, { method, headers, body, redirect: "manual" });
      const text = await response.text();
      let json: unknown;
      try {
        json = text ? JSON.parse(text) : undefined;
      } catch {
        json = undefined;
      }
      return { status: response.status, headers: response.headers, text, json };
    }

    /** An error answer: the status, a JSON `{ error, code }` and nothing else. */
    function expectError(
      res: { status: number; json: unknown; text: string; headers: Headers | Record<string, unknown> },
      status: number,
      code: string,
    ): void {
      expect(res.status, res.text).toBe(status);
      const type = res.headers instanceof Headers ? res.headers.get("content-type") : res.headers["content-type"];
      expect(type).toMatch(/^application\/json/);
      expect(res.json, res.text).toEqual({ error: expect.stringMatching(/^.{10,}$/), code });
    }

    beforeAll(async () => {
      app = await target.start();
      // The first request also loads the route where a framework loads it lazily (Next.js).
      const doc = await fetch(`${base()}/openapi.json`);
      expect(doc.status, await doc.clone().text()).toBe(200);
      key = (await app.waitFor(/agent key (pak_[A-Za-z0-9_-]+)/, "the agent key"))[1]!;
    }, 90_000);
    afterAll(async () => {
      await app?.stop();
    });

    it("serves openapi.json without a key, with the routes under the basePath", async () => {
      const res = await call("GET", "/openapi.json", { key: null });
      expect(res.status).toBe(200);
      expect(res.headers.get("content-type")).toMatch(/^application\/json/);
      expect(res.json.openapi).toMatch(/^3\.1\./);
      expect(Object.keys(res.json.paths)).toContain(`${target.basePath}/upload`);
    });

    it("answers 401 without a key or with a wrong one, and takes the key as a bearer token", async () => {
      expectError(await call("GET", "/connections", { key: null }), 401, "unauthorized");
      expectError(await call("GET", "/connections", { key: `pak_${"x".repeat(43)}` }), 401, "unauthorized");
      const res = await call("GET", "/connections", { key: null, headers: { authorization: `Bearer ${key}` } });
      expect(res.status, res.text).toBe(200);
      expect(res.json).toEqual({ connections: [] });
    });

    it("serves MCP at /mcp to the MCP SDK's client: list, paginate, call, a failing call, a call needing a connection, 401", async () => {
      const open = async (query: string, headers: Record<string, string>) => {
        const client = new Client({ name: "adapter-suite", version: "1.0.0" });
        await client.connect(new StreamableHTTPClientTransport(new URL(`${base()}/mcp${query}`), { requestInit: { headers } }));
        return client;
      };
      await expect(open("", {})).rejects.toMatchObject({ code: 401 });
      await expect(open("", { authorization: `Bearer pak_${"x".repeat(43)}` })).rejects.toMatchObject({ code: 401 });
      const meta = await open("", { authorization: `Bearer ${key}` });
      const direct = await open("?toolkits=bulk,drafts", { "x-api-key": key });
      try {
        expect((await meta.listTools()).tools.map((t) => t.name)).toContain("execute_tool");
        const first = await direct.listTools();
        const second = await direct.listTools({ cursor: first.nextCursor });
        expect(second.nextCursor).toBeUndefined();
        const names = [...first.tools, ...second.tools].map((t) => t.name);
        expect(names).toHaveLength(BULK_TOOLS + 1);
        expect(names.slice(-2)).toEqual(["BULK_FAIL", "DRAFTS_ME"]);

        const called = await direct.callTool({ name: "BULK_7", arguments: {} });
        expect(called).toMatchObject({ structuredContent: { ok: true, method: "GET", path: "/v1/echo" } });
        expect(called.isError).toBeFalsy();
        const failed = await meta.callTool({ name: "execute_tool", arguments: { tool: "BULK_FAIL" } });
        expect(failed).toMatchObject({
          isError: true,
          structuredContent: { code: "upstream_error", upstreamStatus: 503, retryable: true },
        });
        const needs = await direct.callTool({ name: "DRAFTS_ME", arguments: {} });
        expect(needs.isError).toBe(true);
        const { authorizationUrl } = needs.structuredContent as { authorizationUrl: string };
        expect((needs.content as Array<{ text: string }>)[0]!.text).toContain(authorizationUrl);
        expect(new URL(authorizationUrl).searchParams.get("redirect_uri")).toBe(`${PUBLIC_URL}${target.basePath}/auth/callback`);
        await expect(direct.callTool({ name: "NO_SUCH_TOOL", arguments: {} })).rejects.toMatchObject({ code: -32602 });
      } finally {
        await Promise.all([meta.close(), direct.close()]);
      }
    });

    it("searches toolkits, with the query string exactly as sent", async () => {
      const res = await call("GET", "/search?keywords=acme");
      expect(res.status, res.text).toBe(200);
      expect(res.json.toolkits.map((t: { slug: string }) => t.slug)).toEqual(["acme"]);
      // Both values of a repeated parameter reach the handler (which refuses the repetition), and
      // bracketed names are not parsed into objects (they are unknown parameters, ignored).
      const repeated = await call("GET", "/search?keywords=nothing-matches&keywords=acme");
      expectError(repeated, 400, "invalid_request");
      expect(repeated.json.error).toMatch(/"keywords" is given more than once/);
      const bracketed = await call("GET", "/search?keywords=acme&limit[max]=1&cursor[x]=y");
      expect(bracketed.status, bracketed.text).toBe(200);
      expect(bracketed.json.toolkits.map((t: { slug: string }) => t.slug)).toEqual(["acme"]);
      expectError(await call("GET", "/search?limit=500"), 400, "invalid_request");
    });

    it("shows a toolkit and searches its tools; an unknown toolkit or route is a 404", async () => {
      const toolkit = await call("GET", "/toolkit/acme");
      expect(toolkit.status, toolkit.text).toBe(200);
      expect(toolkit.json).toMatchObject({ slug: "acme", name: "Acme", tools: [{ slug: "ACME_ECHO" }], nextCursor: null });
      // A percent-encoded path reaches the handler as sent ("%61" is "a").
      expect((await call("GET", "/toolkit/%61cme")).json.slug).toBe("acme");
      const search = await call("GET", "/toolkit/notes/search?query=account");
      expect(search.status, search.text).toBe(200);
      expect(search.json.tools.map((t: { slug: string }) => t.slug)).toEqual(["NOTES_ME"]);
      expectError(await call("GET", "/toolkit/no-such-toolkit"), 404, "not_found");
      expectError(await call("GET", "/no-such-route"), 404, "not_found");
    });

    it("connects with an API key (201), executes through the connection, and proxies a request", async () => {
      expectError(await call("POST", "/execute", { json: { tool: "ACME_ECHO", arguments: {} } }), 409, "connection_required");
      const created = await call("POST", "/auth", {
        json: { toolkit: "acme", label: "Work", credentials: { apiKey: target.fixtures().acmeKey } },
      });
      expect(created.status, created.text).toBe(201);
      expect(created.json.connection).toMatchObject({ toolkit: "acme", label: "Work", status: "active" });

      const upstream = target.fixtures().upstream;
      const before = upstream.requests.length;
      const executed = await call("POST", "/execute", { json: { tool: "ACME_ECHO", arguments: {} } });
      expect(executed.json, executed.text).toEqual({ successful: true, error: null, data: { ok: true, method: "GET", path: "/v1/echo" } });
      expect(upstream.requests.slice(before).map((r) => r.headers["x-acme-key"])).toEqual([target.fixtures().acmeKey]);

      const proxied = await call("POST", "/proxy", {
        json: { toolkit: "acme", method: "POST", url: `${upstream.origin}/v1/items`, body: { name: "through the proxy" } },
      });
      expect(proxied.status, proxied.text).toBe(200);
      expect(proxied.json).toMatchObject({ successful: true, status: 201, data: { created: { name: "through the proxy" } } });
      expect(upstream.requests.at(-1)!.headers["x-acme-key"]).toBe(target.fixtures().acmeKey);
      expect(proxied.text).not.toContain(target.fixtures().acmeKey);
    });

    it("lists and deletes connections; two of one toolkit make execute ambiguous (409)", async () => {
      const second = await call("POST", "/auth", {
        json: { toolkit: "acme", label: "Home", credentials: { apiKey: target.fixtures().acmeKey } },
      });
      expect(second.status, second.text).toBe(201);
      const listed = await call("GET", "/connections?toolkit=acme");
      expect(listed.json.connections.map((c: { label: string }) => c.label).sort()).toEqual(["Home", "Work"]);
      expectError(await call("POST", "/execute", { json: { tool: "ACME_ECHO", arguments: {} } }), 409, "connection_ambiguous");

      const deleted = await call("DELETE", `/connections/${second.json.connection.id}`);
      expect(deleted.status, deleted.text).toBe(204);
      expect(deleted.text).toBe("");
      expect((await call("GET", "/connections?toolkit=acme")).json.connections.map((c: { label: string }) => c.label)).toEqual(["Work"]);
      expect((await call("POST", "/execute", { json: { tool: "ACME_ECHO", arguments: {} } })).json.successful).toBe(true);
      expectError(await call("DELETE", `/connections/${second.json.connection.id}`), 404, "not_found");
    });

    it("refuses bodies it cannot take: 400 for invalid JSON fields, 415 for a body that is not JSON", async () => {
      expectError(await call("POST", "/execute", { json: { tool: 5 } }), 400, "invalid_request");
      expectError(
        await call("POST", "/execute", { body: "tool=ACME_ECHO", headers: { "content-type": "text/plain" } }),
        415,
        "unsupported_media_type",
      );
      expectError(
        await call("POST", "/auth", { body: "toolkit=acme", headers: { "content-type": "application/x-www-form-urlencoded" } }),
        415,
        "unsupported_media_type",
      );
    });

    it("connects through OAuth: the callback 303s to the returnUrl, and shows a page without one", async () => {
      const { as } = target.fixtures();
      const started = await call("POST", "/auth", { json: { toolkit: "notes", returnUrl: `${RETURN_ORIGIN}/done?tab=apps` } });
      expect(started.status, started.text).toBe(200);
      expect(new URL(started.json.authorizationUrl).searchParams.get("redirect_uri")).toBe(`${PUBLIC_URL}${target.basePath}/auth/callback`);
      expect((await call("GET", `/auth/${started.json.authorizationId}`)).json).toEqual({ status: "pending" });

      // The provider sends the browser to the public URL; this app listens on loopback.
      const callbackUrl = await as.authorizeWithFetch(started.json.authorizationUrl);
      const callback = await fetch(`${app.origin}${callbackUrl.pathname}${callbackUrl.search}`, {
        redirect: "manual",
        headers: { accept: "text/html" },
      });
      expect(callback.status, await callback.clone().text()).toBe(303);
      const location = new URL(callback.headers.get("location")!);
      expect(`${location.origin}${location.pathname}`).toBe(`${RETURN_ORIGIN}/done`);
      expect(location.searchParams.get("tab")).toBe("apps");
      expect(location.searchParams.get("status")).toBe("connected");
      const connectionId = location.searchParams.get("connection_id");
      expect((await call("GET", `/auth/${started.json.authorizationId}`)).json).toEqual({ status: "connected", connectionId });
      const me = await call("POST", "/execute", { json: { tool: "NOTES_ME", arguments: {} } });
      expect(me.json, me.text).toMatchObject({ successful: true, data: { sub: "alice", clientId: as.clientId } });

      const again = await call("POST", "/auth", { json: { toolkit: "notes" } });
      const pageUrl = await as.authorizeWithFetch(again.json.authorizationUrl, { login: "bob" });
      const page = await fetch(`${app.origin}${pageUrl.pathname}${pageUrl.search}`, {
        redirect: "manual",
        headers: { accept: "text/html" },
      });
      const html = await page.text();
      expect(page.status, html).toBe(200);
      expect(page.headers.get("content-type")).toBe("text/html; charset=utf-8");
      expect(page.headers.get("content-security-policy")).toMatch(/default-src 'none'/);
      expect(html).toMatch(/^<!doctype html>[\s\S]*<h1>[^<]+<\/h1>[\s\S]*<\/html>$/);
      expect(
        (await call("GET", "/connections?toolkit=notes")).json.connections.map((c: { remoteUser: string }) => c.remoteUser).sort(),
      ).toEqual(["alice", "bob"]);
    });

    it("stages a small file, gives it back with its headers, and refuses a wrong type (415) or a body that is not multipart (400)", async () => {
      const form = new FormData();
      form.append("file", new Blob(["hello, adapters\n"], { type: "text/plain" }), "hello.txt");
      const encoded = new Response(form);
      const bytes = new Uint8Array(await encoded.arrayBuffer());
      const staged = await call("POST", "/upload", { body: bytes, headers: { "content-type": encoded.headers.get("content-type")! } });
      expect(staged.status, staged.text).toBe(200);
      expect(staged.json).toMatchObject({ contentType: "text/plain", size: 16, stagingKey: expect.stringMatching(/^stg_/) });
      const file = await call("GET", `/files/${staged.json.stagingKey}`);
      expect(file.status).toBe(200);
      expect(file.text).toBe("hello, adapters\n");
      expect(file.headers.get("content-type")).toBe("text/plain");
      expect(file.headers.get("content-disposition")).toMatch(/^attachment; filename="hello.txt"/);
      expect(file.headers.get("x-content-type-options")).toBe("nosniff");
      expect(file.headers.get("content-security-policy")).toBe("default-src 'none'; sandbox");
      expect(file.headers.get("cache-control")).toBe("private, no-store");

      expectError(
        await streamUpload(`${base()}/upload`, key, { size: 1024, type: "application/x-msdownload", filename: "run.exe" }),
        415,
        "unsupported_media_type",
      );
      expectError(
        await call("POST", "/upload", { body: "just bytes", headers: { "content-type": "application/octet-stream" } }),
        400,
        "invalid_request",
      );
      expectError(await call("GET", `/files/stg_${"A".repeat(43)}`), 404, "not_found");
    });

    it(`streams a ${LARGE / 2 ** 20} MiB upload in and the staged file back out`, async () => {
      const sha256 = generatedSha256(LARGE);
      const idle = app.rss() ?? 0;
      let peak = idle;
      const sample = () => void (peak = Math.max(peak, app.rss() ?? 0));
      const timer = setInterval(sample, 10);
      try {
        // Halfway through, the client stops sending until the server is idle. By then the server
        // has written what arrived to the staged file: the body reached the handler as it came.
        const beforeUpload = app.io();
        let writtenAtPause = 0;
        const uploaded = await streamUpload(`${base()}/upload`, key, {
          size: LARGE,
          filename: "large.bin",
          pauseAt: LARGE / 2,
          onPause: async () => void (writtenAtPause = (await settled(() => app.io()?.written ?? 0)) - (beforeUpload?.written ?? 0)),
        });
        expect(uploaded.status, uploaded.text).toBe(200);
        if (beforeUpload) expect(writtenAtPause, "bytes the server wrote while the upload was half sent").toBeGreaterThan(LARGE / 4);
        expect(uploaded.json).toMatchObject({ size: LARGE, contentType: "application/octet-stream" });
        const stagingKey: string = uploaded.json.stagingKey;

        // After the first chunk of the download, the client stops reading until the server is idle.
        // By then the server has read only what the sockets hold: the response streams out.
        const beforeDownload = app.io();
        let readAtPause = 0;
        const downloaded = await streamDownload(`${base()}/files/${stagingKey}`, key, {
          onChunk: sample,
          afterFirstChunk: async () => void (readAtPause = (await settled(() => app.io()?.read ?? 0)) - (beforeDownload?.read ?? 0)),
        });
        expect(downloaded.status).toBe(200);
        if (beforeDownload) expect(readAtPause, "bytes the server read while the download waited").toBeLessThan(LARGE / 4);
        expect(downloaded.headers.get("content-length")).toBe(target.dropsContentLength ? null : String(LARGE));
        expect(downloaded.headers.get("content-type")).toBe("application/octet-stream");
        expect(downloaded.headers.get("content-disposition")).toMatch(/^attachment; filename="large.bin"/);
        expect(downloaded.size).toBe(LARGE);
        expect(downloaded.sha256).toBe(sha256);

        // The server reads the staged file in a tool too, and gets the same bytes.
        const digest = await call("POST", "/execute", { json: { tool: "FILES_DIGEST", arguments: { file: stagingKey } } });
        expect(digest.json, digest.text).toMatchObject({ successful: true, data: { size: LARGE, sha256 } });

        measured.push(
          `${target.label}: ${mib(writtenAtPause)} MiB written with ${mib(LARGE / 2)} MiB sent, ${mib(readAtPause)} MiB read with 1 chunk taken; ` +
            `RSS ${mib(idle)} MiB idle, at most ${mib(peak)} MiB`,
        );
      } finally {
        clearInterval(timer);
      }
    }, 120_000);

    it("answers 413 to an upload over the limit while the rest is still unsent (the body streams in)", async () => {
      // The client sends a little past the limit and then waits: only a server that reads the
      // body as it arrives can tell, and answer, before the rest comes.
      const stopAt = MAX_UPLOAD_BYTES + 4 * 2 ** 20;
      const tooLarge = await streamUpload(`${base()}/upload`, key, { size: 2 * MAX_UPLOAD_BYTES, chunked: true, stopAt });
      expectError(tooLarge, 413, "payload_too_large");
      // Declared too large: refused before any of it is sent.
      const declared = await streamUpload(`${base()}/upload`, key, { size: 2 * MAX_UPLOAD_BYTES, stopAt: 0 });
      expectError(declared, 413, "payload_too_large");
      expect(declared.sentWhenAnswered).toBeLessThan(2 ** 20);
      // The app still answers after refusing both.
      expect((await call("GET", "/connections")).status).toBe(200);
    }, 120_000);

    if (target.ownJsonRoute)
      it("leaves the app's own routes their body parsing (POST /notes reads its JSON body)", async () => {
        const sent = { note: "beside the handler", tags: ["a", "b"] };
        const res = await fetch(`${app.origin}/notes`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify(sent),
        });
        expect(res.status).toBe(200);
        expect(await res.json()).toEqual({ saved: sent });
      });
  });
}

const mib = (bytes: number) => Math.round(bytes / 2 ** 20);

/** The value of `read` once it has stopped changing (unchanged over 200 ms; at most 15 s). */
async function settled(read: () => number): Promise<number> {
  let value = read();
  let still = 0;
  for (let waited = 0; still < 4 && waited < 15_000; waited += 50) {
    await new Promise((resolve) => setTimeout(resolve, 50));
    const now = read();
    still = now === value ? still + 1 : 0;
    value = now;
  }
  return value;
}

/** The transfer figures of every suite run so far in this file. */
export function memoryReport(): string[] {
  return [...measured];
}

/**
 * Starts the fixtures (upstream, OAuth server) for one test file and prints the memory report at
 * its end; `prepare` runs first (e.g. a build). Returns the getter the suite's `fixtures` takes.
 */
export function useFixtures(prepare?: () => Promise<void>, timeoutMs?: number): () => Fixtures {
  let fixtures: Fixtures | undefined;
  beforeAll(async () => {
    requireDist();
    await prepare?.();
    fixtures = await startFixtures();
  }, timeoutMs);
  afterAll(async () => {
    await fixtures?.close();
    for (const line of memoryReport()) console.log(line);
  });
  return () => fixtures!;
}
