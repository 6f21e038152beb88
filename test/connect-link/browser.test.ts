/**
 * The connect page in a real headless Chromium: the handler runs on a real node:http server (the
 * Node adapter), an agent makes a connect link over HTTP, a person opens it, fills the form with
 * the keyboard only and lands on the app's return URL on another origin (so the CSP's
 * form-action must allow the redirect); the connection then works through /proxy. Screenshots at
 * desktop and phone widths go to test-results/connect/ and are checked for obvious breakage, and
 * axe-core finds no serious or critical violation, in light and dark mode.
 */
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import AxeBuilder from "@axe-core/playwright";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { toNodeHandler } from "../../adapters/node.js";
import { basic, bearer, createToolsHandler, defineToolkit, issueApiKey, memoryStore, type Toolkit } from "../../src/index.js";
import { connectToolkits, startKeyedUpstream } from "../support/connect.js";
import { TEST_SECRET } from "../support/harness.js";
import { CHROMIUM_MISSING, chromiumAvailable, keepBrowserLocal, launchChromium } from "../support/oidc-browser.js";
import type { TestServer } from "../support/upstream.js";

const NAME = "connects with the keyboard only, lands on the return URL, and the key then works through /proxy";
const RUN = Math.random().toString(36).slice(2, 10);
const GOOD_KEY = `good-key-${RUN}-3333`;
const ARTIFACTS = join(process.cwd(), "test-results", "connect");

let server: Server;
let app: Server;
let origin: string;
let appOrigin: string;
let keyed: TestServer;
let key: string;
const logged: string[] = [];

beforeAll(async () => {
  if (!chromiumAvailable) return;
  keyed = await startKeyedUpstream(GOOD_KEY);
  app = createServer((_req, res) => {
    res.writeHead(200, { "content-type": "text/html; charset=utf-8" }).end("<!doctype html><title>Done</title><h1>Back in the app</h1>");
  });
  await new Promise<void>((resolve) => app.listen(0, "127.0.0.1", resolve));
  // Another origin than the handler's: localhost, not 127.0.0.1.
  appOrigin = `http://localhost:${(app.address() as AddressInfo).port}`;
  let handler: ReturnType<typeof toNodeHandler> = (_req, res) => void res.writeHead(503).end();
  server = createServer((req, res) => handler(req, res));
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const store = memoryStore();
  const record = (message: string, fields?: unknown) => void logged.push(`${message} ${JSON.stringify(fields ?? {})}`);
  handler = toNodeHandler(
    createToolsHandler({
      store,
      secret: TEST_SECRET,
      publicUrl: origin,
      allowedReturnOrigins: [appOrigin],
      toolkits: [...connectToolkits(keyed.origin), ...otherKinds(keyed.origin)],
      logger: { debug: record, info: record, warn: record, error: record },
      connectPage: { appName: "Acme Assistant" },
    }),
  );
  key = (await issueApiKey(store, { workspaceId: "ws1", agentId: "agent-browser" })).key;
  mkdirSync(ARTIFACTS, { recursive: true });
});
afterAll(async () => {
  if (!chromiumAvailable) return;
  expect(logged.filter((line) => line.includes(GOOD_KEY))).toEqual([]);
  for (const s of [server, app]) {
    s.closeAllConnections();
    await new Promise((resolve) => s.close(resolve));
  }
  await keyed.close();
});

async function http(method: string, path: string, body?: unknown) {
  const response = await fetch(`${origin}/proxy/tools${path}`, {
    method,
    headers: { "x-api-key": key, ...(body ? { "content-type": "application/json" } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
  const text = await response.text();
  return { status: response.status, text, json: text ? JSON.parse(text) : undefined };
}

/** The width and height written in a PNG's IHDR chunk. */
function pngSize(path: string): { width: number; height: number; bytes: number } {
  const png = readFileSync(path);
  expect(png.subarray(1, 4).toString("latin1")).toBe("PNG");
  return { width: png.readUInt32BE(16), height: png.readUInt32BE(20), bytes: png.length };
}

/**
 * The other kinds of credential a person types: a bearer token with a `team` input in the URL (sent
 * in X-Key, which the keyed upstream checks), and a username and password.
 */
function otherKinds(origin: string): Toolkit[] {
  return [
    defineToolkit({
      slug: "teamtoken",
      name: "Team Token",
      description: "A token for one team.",
      baseUrl: `${origin}/t/{team}`,
      inputs: [{ name: "team", label: "Team", pattern: "^[a-z][a-z0-9-]*$", example: "acme" }],
      auth: bearer({ placement: { in: "header", name: "X-Key" }, label: "Team token" }),
      tools: [],
    }),
    defineToolkit({
      slug: "passworded",
      name: "Passworded",
      description: "A username and password.",
      baseUrl: `${origin}/v1`,
      auth: basic(),
      tools: [],
    }),
  ];
}

/** axe-core's findings on every page the tests looked at, by impact: written beside the screenshots. */
const axeSummary: Array<{ page: string; passes: number; violations: Record<string, number> }> = [];

/** Serious and critical axe-core violations on the page, as short strings. */
async function seriousViolations(page: Page): Promise<string[]> {
  const results = await new AxeBuilder({ page }).analyze();
  const violations: Record<string, number> = {};
  for (const v of results.violations) violations[v.impact ?? "unknown"] = (violations[v.impact ?? "unknown"] ?? 0) + 1;
  axeSummary.push({ page: new URL(page.url()).pathname.replace(/\.[^/]+$/, ".***"), passes: results.passes.length, violations });
  writeFileSync(join(ARTIFACTS, "axe.json"), `${JSON.stringify(axeSummary, null, 2)}\n`);
  return results.violations
    .filter((v) => v.impact === "serious" || v.impact === "critical")
    .map((v) => `${v.id} (${v.impact}): ${v.nodes.map((n) => n.target.join(" ")).join(", ")}`);
}

/** Opens the page at a width, checks the form is visible and fits, screenshots it and runs axe-core. */
async function inspect(browser: Browser, url: string, name: string, viewport: { width: number; height: number }, dark = false) {
  const context = await browser.newContext({ viewport, colorScheme: dark ? "dark" : "light" });
  await keepBrowserLocal(context);
  const page = await context.newPage();
  const problems: string[] = [];
  page.on("console", (message) => void (/Content Security Policy|Refused to/.test(message.text()) && problems.push(message.text())));
  await page.goto(url);
  expect(await page.locator("form").isVisible()).toBe(true);
  expect(await page.getByLabel("API key").isVisible()).toBe(true);
  expect(await page.getByRole("button", { name: "Connect" }).isVisible()).toBe(true);
  // Nothing wider than the screen: no sideways scrolling at phone width.
  expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(viewport.width);
  // The styles applied (the CSP let the nonced style through): the button has the accent colour.
  expect(await page.getByRole("button").evaluate((b) => getComputedStyle(b).backgroundColor)).toBe("rgb(29, 78, 216)");
  const file = join(ARTIFACTS, `${name}.png`);
  await page.screenshot({ path: file });
  const png = pngSize(file);
  expect(png).toMatchObject({ width: viewport.width, height: viewport.height });
  expect(png.bytes).toBeGreaterThan(5_000);
  expect(await seriousViolations(page)).toEqual([]);
  expect(problems).toEqual([]);
  await context.close();
}

describe("the connect page in a real browser", () => {
  it.skipIf(!chromiumAvailable)(chromiumAvailable ? NAME : `${NAME} (${CHROMIUM_MISSING})`, async () => {
    const started = await http("POST", "/auth", { toolkit: "keyed", label: "Browser", returnUrl: `${appOrigin}/done` });
    expect(started.status, started.text).toBe(200);
    const url: string = started.json.authorizationUrl;

    const browser = await launchChromium();
    try {
      await inspect(browser, url, "desktop", { width: 1280, height: 800 });
      await inspect(browser, url, "phone", { width: 375, height: 740 });
      await inspect(browser, url, "phone-dark", { width: 375, height: 740 }, true);

      const context = await browser.newContext({ viewport: { width: 375, height: 740 } });
      await keepBrowserLocal(context);
      const page = await context.newPage();
      const requested: string[] = [];
      const problems: string[] = [];
      page.on("request", (request) => void requested.push(new URL(request.url()).origin));
      page.on("console", (message) => void (/Content Security Policy|Refused to/.test(message.text()) && problems.push(message.text())));
      await page.goto(url);

      // Keyboard only: Tab to the key field, type, Tab to the button, Enter.
      const focused = () => page.evaluate(() => document.activeElement?.getAttribute("name") ?? document.activeElement?.tagName);
      for (let i = 0; i < 10 && (await focused()) !== "apiKey"; i++) await page.keyboard.press("Tab");
      expect(await focused()).toBe("apiKey");
      await page.keyboard.type("not-the-key");
      await page.keyboard.press("Enter");
      await page.waitForLoadState();
      expect(await page.getByRole("alert").textContent()).toContain("Keyed refused these credentials");
      expect(await page.content()).not.toContain("not-the-key");
      expect(await seriousViolations(page)).toEqual([]);
      await page.screenshot({ path: join(ARTIFACTS, "phone-error.png") });

      for (let i = 0; i < 10 && (await focused()) !== "apiKey"; i++) await page.keyboard.press("Tab");
      expect(await focused()).toBe("apiKey");
      await page.keyboard.type(GOOD_KEY);
      await page.keyboard.press("Tab");
      expect(await focused()).toBe("BUTTON");
      await page.keyboard.press("Enter");
      await page.waitForURL((landed) => landed.pathname === "/done", { timeout: 15_000 });

      const landed = new URL(page.url());
      expect(landed.origin).toBe(appOrigin);
      expect(landed.searchParams.get("status")).toBe("connected");
      const connectionId = landed.searchParams.get("connection_id");
      expect(connectionId).toMatch(/^conn_/);
      expect(await page.locator("h1").textContent()).toBe("Back in the app");
      expect(new Set(requested)).toEqual(new Set([origin, appOrigin]));
      expect(problems).toEqual([]);
      await context.close();

      expect((await http("GET", `/auth/${started.json.authorizationId}`)).json).toEqual({ status: "connected", connectionId });
      const before = keyed.requests.length;
      const proxied = await http("POST", "/proxy", { toolkit: "keyed", method: "GET", url: `${keyed.origin}/v1/echo` });
      expect(proxied.json).toMatchObject({ successful: true, status: 200, data: { ok: true, path: "/v1/echo" } });
      expect(keyed.requests.slice(before).map((r) => r.headers["x-key"])).toEqual([GOOD_KEY]);
    } finally {
      await browser.close();
    }
  });

  it.skipIf(!chromiumAvailable)(
    chromiumAvailable
      ? "a bearer token with an input, and a username and password: typed on the page with the keyboard, then used"
      : `the other kinds of credential (${CHROMIUM_MISSING})`,
    async () => {
      const browser = await launchChromium();
      try {
        const cases = [
          { toolkit: "teamtoken", fields: { "input.team": "acme", token: GOOD_KEY }, path: "/t/acme/echo" },
          { toolkit: "passworded", fields: { username: "ada", password: `pw-${RUN}` }, path: "/v1/echo" },
        ];
        for (const { toolkit, fields, path } of cases) {
          const started = await http("POST", "/auth", { toolkit, returnUrl: `${appOrigin}/done` });
          expect(started.status, started.text).toBe(200);
          const context = await browser.newContext({ viewport: { width: 375, height: 740 } });
          await keepBrowserLocal(context);
          const page = await context.newPage();
          await page.goto(started.json.authorizationUrl);
          expect(await seriousViolations(page)).toEqual([]);
          const focused = () => page.evaluate(() => document.activeElement?.getAttribute("name") ?? document.activeElement?.tagName);
          for (const [name, value] of Object.entries(fields)) {
            for (let i = 0; i < 12 && (await focused()) !== name; i++) await page.keyboard.press("Tab");
            expect(await focused()).toBe(name);
            await page.keyboard.type(value);
          }
          await page.keyboard.press("Enter");
          await page.waitForURL((landed) => landed.pathname === "/done", { timeout: 15_000 });
          const landed = new URL(page.url());
          expect(landed.searchParams.get("status")).toBe("connected");
          await context.close();
          const connection_id = landed.searchParams.get("connection_id");
          const before = keyed.requests.length;
          const proxied = await http("POST", "/proxy", { toolkit, method: "GET", url: `${keyed.origin}${path}`, connection_id });
          expect(proxied.json).toMatchObject({ status: toolkit === "passworded" ? 401 : 200 });
          const sent = keyed.requests.slice(before)[0]!;
          if (toolkit === "passworded") {
            // The keyed upstream knows only X-Key; what matters is the pair the page took, sent as Basic.
            expect(sent.headers.authorization).toBe(`Basic ${Buffer.from(`ada:pw-${RUN}`).toString("base64")}`);
          } else {
            expect(sent.headers["x-key"]).toBe(GOOD_KEY);
          }
        }
      } finally {
        await browser.close();
      }
    },
  );
});
