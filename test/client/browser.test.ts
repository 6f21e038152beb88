/**
 * The client in a real browser: the bundle an app would ship (tsup, platform "browser") runs in
 * Debian's headless Chromium, on a page served by the same node:http server as the API (same
 * origin, so no CORS), and calls the API: search, connect, execute, an upload of a File with
 * progress (XMLHttpRequest), a streamed download, and the error mapping.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CREDENTIALS, createHarness, type Harness } from "../support/harness.js";
import { CHROMIUM_MISSING, chromiumAvailable, keepBrowserLocal, launchChromium } from "../support/oidc-browser.js";
import { bundleClient, type ClientBundle, importsOf } from "./bundle.js";
import { type ApiServer, startApiServer } from "./server.js";

const NAME = "runs every kind of call from a page, uploads a File with progress and downloads it";

let h: Harness;
let server: ApiServer;
let bundle: ClientBundle;
let key: string;

beforeAll(async () => {
  bundle = await bundleClient();
  h = await createHarness();
  server = await startApiServer(h.handler);
  server.page("/client.js", "text/javascript", bundle.code);
  server.page(
    "/",
    "text/html",
    '<!doctype html><title>client</title><script type="module">import * as C from "/client.js"; window.C = C;</script>',
  );
  key = (await h.issueAgentKey("agent-browser")).key;
});
afterAll(async () => {
  h.assertNoLeaks();
  await server.close();
  await h.close();
});

describe("in Chromium", () => {
  it("the browser bundle imports nothing (no node: module, no server code)", () => {
    expect(importsOf(bundle.code)).toEqual([]);
    expect(bundle.code).not.toMatch(/createToolsHandler|itty-router|zod/);
  });

  it.skipIf(!chromiumAvailable)(chromiumAvailable ? NAME : `${NAME} (${CHROMIUM_MISSING})`, async () => {
    const browser = await launchChromium();
    try {
      const context = await browser.newContext();
      await keepBrowserLocal(context);
      const page = await context.newPage();
      await page.goto(`${server.origin}/`);
      await page.waitForFunction(() => "C" in window);
      const result = await page.evaluate(
        async ({ baseUrl, apiKey, headerKey }) => {
          // eslint-disable-next-line @typescript-eslint/no-explicit-any
          const C = (window as any).C as typeof import("../../src/client/index.js");
          const client = C.createToolsClient({ baseUrl, apiKey });
          const found = await client.search({ keywords: "calculator" });
          const { connection } = await client.connect({ toolkit: "acme", credentials: { apiKey: headerKey } });
          const executed = await client.execute({ tool: "CALC_ADD", arguments: { a: 2, b: 40 } });

          const bytes = new Uint8Array(3 * 1024 * 1024).map((_, i) => (i * 7) & 0xff);
          const progress: Array<{ loaded: number; total: number | undefined }> = [];
          const staged = await client.upload(new File([bytes], "page.bin", { type: "application/octet-stream" }), {
            onProgress: (p) => progress.push(p),
          });
          const file = await client.downloadFile(staged.stagingKey);
          let size = 0;
          let same = true;
          let chunks = 0;
          const reader = file.body.getReader();
          for (;;) {
            const { done, value } = await reader.read();
            if (done) break;
            for (let i = 0; i < value.length; i++) same &&= value[i] === bytes[size + i];
            size += value.length;
            chunks++;
          }
          const error = (await client.getToolkit("nope").then(
            () => null,
            (e: unknown) => e,
          )) as InstanceType<typeof C.ToolsClientError>;
          const one = new ReadableStream<Uint8Array>({ pull: (c) => (c.enqueue(new Uint8Array(10)), c.close()) });
          const streamed = (await client.upload(one, { size: 10 }).then(
            () => null,
            (e: unknown) => e,
          )) as InstanceType<typeof C.ToolsClientError>;
          return {
            slug: found.toolkits[0]?.slug,
            connectionToolkit: connection.toolkit,
            sum: executed.data,
            staged: { size: staged.size, contentType: staged.contentType },
            progress,
            download: { filename: file.filename, size: file.size, read: size, same, chunks },
            error: {
              isClass: error instanceof C.ToolsClientError,
              name: error.name,
              code: error.code,
              status: error.status,
              message: error.message,
            },
            streamed: { code: streamed?.code, message: streamed?.message },
          };
        },
        { baseUrl: server.baseUrl, apiKey: key, headerKey: CREDENTIALS.headerKey },
      );

      expect(result).toMatchObject({
        slug: "calc",
        connectionToolkit: "acme",
        sum: { sum: 42 },
        staged: { size: 3 * 1024 * 1024, contentType: "application/octet-stream" },
        download: { filename: "page.bin", size: 3 * 1024 * 1024, read: 3 * 1024 * 1024, same: true },
        error: { isClass: true, name: "ToolsClientError", code: "not_found", status: 404 },
      });
      expect(result.error.message).toContain('No toolkit "nope"');
      // Chromium streams a request body only over HTTP/2: the client says so instead of blaming the network alone.
      expect(result.streamed.code).toBe("network_error");
      expect(result.streamed.message).toMatch(/cannot stream a request body .* Upload a Blob or File instead\.$/);
      expect(result.progress[0]).toEqual({ loaded: 0, total: 3 * 1024 * 1024 });
      expect(result.progress.at(-1)).toEqual({ loaded: 3 * 1024 * 1024, total: 3 * 1024 * 1024 });
      for (let i = 1; i < result.progress.length; i++) expect(result.progress[i]!.loaded).toBeGreaterThan(result.progress[i - 1]!.loaded);
      // The upload went out as XMLHttpRequest (the browser sets Content-Length from the Blob).
      const upload = server.requests.find((r) => r.url === "/proxy/tools/upload")!;
      expect(Number(upload.headers["content-length"])).toBeGreaterThan(3 * 1024 * 1024);
      expect(upload.headers.authorization).toBe(`Bearer ${key}`);
    } finally {
      await browser.close();
    }
  });
});
