import { APIResponseError, collectPaginatedAPI, Client as NotionClient, LogLevel as NotionLogLevel } from "@notionhq/client";
import { Octokit } from "@octokit/rest";
import { LogLevel, WebClient } from "@slack/web-api";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { catalogToolkit } from "../../../src/catalog/index.js";
import { createToolsClient } from "../../../src/client/index.js";
import { type Emulation, type Received, startEmulation, startToolsServer, type ToolsServer } from "./servers.js";

/**
 * The proof of the passthrough: the official SDKs of three catalog providers, changed only in
 * their base URL (their token is the tools-proxy API key), call a local emulation of the endpoints
 * they use through `{basePath}/passthrough/{toolkit}` on a real server. Each emulation must receive
 * the connection's credential and never the API key, and each SDK must read the answers as it
 * reads the provider's (pages followed, errors raised with their status and code).
 */

const run = crypto.randomUUID().slice(0, 8);
const GITHUB_TOKEN = `ghp_passthrough${run}`;
const SLACK_TOKEN = `xoxb-passthrough-${run}`;
const NOTION_TOKEN = `ntn_passthrough${run}`;

let github: Emulation;
let slack: Emulation;
let notion: Emulation;
let tools: ToolsServer;

/** The SDKs' base URL, as the client gives it. */
const baseUrlOf = (toolkit: string) => createToolsClient({ baseUrl: tools.api, apiKey: tools.key }).passthroughUrl(toolkit);

/** Every request an emulation received carries the credential and nothing of the API key. */
function expectCredentialOnly(received: Received[], authorization: string): void {
  expect(received.length).toBeGreaterThan(0);
  for (const request of received) {
    expect(request.headers.authorization, request.url).toBe(authorization);
    expect(JSON.stringify(request), request.url).not.toContain(tools.key);
    expect(request.headers["x-api-key"]).toBeUndefined();
  }
}

const ISSUES = [1, 2, 3, 4, 5].map((number) => ({ number, title: `Issue ${number}` }));

beforeAll(async () => {
  github = await startEmulation((request, url) => {
    if (url.pathname === "/user") return { body: { login: "octocat" } };
    if (request.method === "GET" && url.pathname === "/repos/octo/hello") {
      return { body: { id: 1, full_name: "octo/hello", private: false, topics: url.searchParams.getAll("x") } };
    }
    if (request.method === "POST" && url.pathname === "/repos/octo/hello/issues") {
      const { title, labels } = JSON.parse(request.body) as { title: string; labels: string[] };
      return { status: 201, body: { number: 42, title, labels: labels.map((name) => ({ name })) } };
    }
    // GitHub's pages: the first under the repository's name, the next ones under its id, linked absolutely.
    const issues = /^\/(?:repos\/octo\/hello|repositories\/1)\/issues$/.exec(url.pathname);
    if (issues) {
      const page = Number(url.searchParams.get("page") ?? 1);
      const perPage = Number(url.searchParams.get("per_page") ?? 30);
      const last = Math.ceil(ISSUES.length / perPage);
      const link = `${github.origin}/repositories/1/issues?per_page=${perPage}&page=`;
      const links = [page < last ? `<${link}${page + 1}>; rel="next"` : "", `<${link}${last}>; rel="last"`].filter(Boolean);
      return { headers: { link: links.join(", ") }, body: ISSUES.slice((page - 1) * perPage, page * perPage) };
    }
    return { status: 404, body: { message: "Not Found", documentation_url: "https://docs.github.com/rest", status: "404" } };
  });
  slack = await startEmulation((request, url) => {
    const form = new URLSearchParams(request.body);
    switch (url.pathname) {
      case "/api/auth.test":
        return { body: { ok: true, url: "https://acme.slack.com/", team: "Acme", user_id: "U1" } };
      case "/api/chat.postMessage":
        return { body: { ok: true, channel: form.get("channel"), ts: "1700000000.000100", message: { text: form.get("text") } } };
      case "/api/conversations.list": {
        const second = form.get("cursor") === "page-2";
        return {
          body: {
            ok: true,
            channels: second
              ? [{ id: "C3", name: "random" }]
              : [
                  { id: "C1", name: "general" },
                  { id: "C2", name: "dev" },
                ],
            response_metadata: { next_cursor: second ? "" : "page-2" },
          },
        };
      }
      case "/api/conversations.info":
        return { body: { ok: false, error: "channel_not_found" } };
      default:
        return { status: 404, body: { ok: false, error: "unknown_method" } };
    }
  });
  notion = await startEmulation((request, url) => {
    if (url.pathname === "/v1/users/me") return { body: { object: "user", id: "bot", type: "bot", bot: { workspace_name: "Acme" } } };
    if (url.pathname === "/v1/users") {
      const ids = ["u1", "u2", "u3"];
      const start = ids.indexOf(url.searchParams.get("start_cursor") ?? "u1");
      const size = Number(url.searchParams.get("page_size") ?? 100);
      const results = ids.slice(start, start + size).map((id) => ({ object: "user", id, type: "person", name: id.toUpperCase() }));
      const next = ids[start + size] ?? null;
      return { body: { object: "list", results, next_cursor: next, has_more: next !== null, type: "user", user: {} } };
    }
    if (request.method === "POST" && url.pathname === "/v1/pages") {
      const body = JSON.parse(request.body) as { parent: unknown; properties: unknown };
      return { body: { object: "page", id: "page-new", parent: body.parent, properties: body.properties } };
    }
    return {
      status: 404,
      body: { object: "error", status: 404, code: "object_not_found", message: "Could not find page with ID: missing." },
    };
  });
  tools = await startToolsServer([
    catalogToolkit("github", { baseUrl: github.origin }),
    catalogToolkit("slack", { baseUrl: `${slack.origin}/api` }),
    catalogToolkit("notion", { baseUrl: `${notion.origin}/v1` }),
  ]);
  await tools.connect({ toolkit: "github", mode: "bearer", credentials: { token: GITHUB_TOKEN } });
  await tools.connect({ toolkit: "slack", mode: "bearer", credentials: { token: SLACK_TOKEN } });
  await tools.connect({ toolkit: "notion", mode: "bearer", credentials: { token: NOTION_TOKEN } });
});

afterAll(async () => {
  await tools?.close();
  await Promise.all([github?.close(), slack?.close(), notion?.close()]);
});

describe("@octokit/rest with baseUrl set to the passthrough", () => {
  const octokit = () => new Octokit({ auth: tools.key, baseUrl: baseUrlOf("github"), request: { retries: 0 } });

  it("reads a repository (GET with a query), creates an issue (POST JSON), follows pages and raises a 404", async () => {
    const repo = await octokit().request("GET /repos/{owner}/{repo}", { owner: "octo", repo: "hello", x: "a b&c" });
    expect(repo.status).toBe(200);
    expect(repo.data).toMatchObject({ full_name: "octo/hello", topics: ["a b&c"] });

    const issue = await octokit().rest.issues.create({ owner: "octo", repo: "hello", title: "From the SDK", labels: ["bug"] });
    expect(issue.status).toBe(201);
    expect(issue.data).toMatchObject({ number: 42, title: "From the SDK", labels: [{ name: "bug" }] });

    const all = await octokit().paginate(octokit().rest.issues.listForRepo, { owner: "octo", repo: "hello", per_page: 2 });
    expect(all.map((i) => i.number)).toEqual([1, 2, 3, 4, 5]);
    // The next pages came through the passthrough too: their Link pointed at it, not at the API.
    expect(github.received.filter((r) => r.url.startsWith("/repositories/1/issues")).length).toBe(2);

    const missing = await octokit()
      .rest.repos.get({ owner: "octo", repo: "missing" })
      .catch((error: unknown) => error);
    expect(missing).toMatchObject({ name: "HttpError", status: 404 });

    expectCredentialOnly(github.received, `Bearer ${GITHUB_TOKEN}`);
    const post = github.received.find((r) => r.method === "POST")!;
    expect(post.headers["user-agent"]).toMatch(/octokit/);
    expect(post.headers["content-type"]).toMatch(/^application\/json/);
  });
});

describe("@slack/web-api with slackApiUrl set to the passthrough", () => {
  const client = () =>
    new WebClient(tools.key, { slackApiUrl: `${baseUrlOf("slack")}/`, retryConfig: { retries: 0 }, logLevel: LogLevel.ERROR });

  it("posts a message (a form body), pages through a list by cursor and raises a platform error", async () => {
    const posted = await client().chat.postMessage({ channel: "C1", text: "héllo from the SDK" });
    expect(posted).toMatchObject({ ok: true, channel: "C1", message: { text: "héllo from the SDK" } });

    const names: string[] = [];
    for await (const page of client().paginate("conversations.list", { limit: 2 })) {
      names.push(...(page as unknown as { channels: Array<{ name: string }> }).channels.map((c) => c.name));
    }
    expect(names).toEqual(["general", "dev", "random"]);

    const failed = await client()
      .conversations.info({ channel: "CNOPE" })
      .catch((error: unknown) => error);
    expect(failed).toMatchObject({ code: "slack_webapi_platform_error", data: { ok: false, error: "channel_not_found" } });

    expectCredentialOnly(
      slack.received.filter((r) => r.url !== "/api/auth.test"),
      `Bearer ${SLACK_TOKEN}`,
    );
    const post = slack.received.find((r) => r.url === "/api/chat.postMessage")!;
    expect(new URLSearchParams(post.body).get("text")).toBe("héllo from the SDK");
    expect(post.body).not.toContain("token=");
  });
});

describe("@notionhq/client with baseUrl set to the passthrough", () => {
  const client = () =>
    new NotionClient({
      auth: tools.key,
      baseUrl: baseUrlOf("notion"),
      notionVersion: "2022-06-28",
      logLevel: NotionLogLevel.ERROR,
    });

  it("lists users page by page (GET with a query), creates a page (POST JSON) and raises object_not_found", async () => {
    const users = await collectPaginatedAPI(client().users.list, { page_size: 2 });
    expect(users.map((u) => u.id)).toEqual(["u1", "u2", "u3"]);
    expect(notion.received.filter((r) => r.url.startsWith("/v1/users?")).map((r) => r.url)).toEqual([
      "/v1/users?page_size=2",
      "/v1/users?start_cursor=u3&page_size=2",
    ]);

    const page = await client().pages.create({
      parent: { page_id: "parent" },
      properties: { title: { title: [{ text: { content: "From the SDK" } }] } },
    });
    expect(page).toMatchObject({ object: "page", id: "page-new", parent: { page_id: "parent" } });

    const missing = await client()
      .pages.retrieve({ page_id: "missing" })
      .catch((error: unknown) => error);
    expect(missing).toBeInstanceOf(APIResponseError);
    expect(missing).toMatchObject({ status: 404, code: "object_not_found" });

    expectCredentialOnly(notion.received, `Bearer ${NOTION_TOKEN}`);
    // The SDK's own Notion-Version replaces the toolkit's default (2025-09-03).
    const versions = new Set(notion.received.filter((r) => r.url !== "/v1/users/me").map((r) => r.headers["notion-version"]));
    expect([...versions]).toEqual(["2022-06-28"]);
  });
});
