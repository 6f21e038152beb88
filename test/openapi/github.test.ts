import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { defineJsonToolkit } from "../../src/toolkits/json.js";
import { type EmulatedAnswer, type EmulatedRequest, type Flow, mint, startFlow } from "../catalog/flows/emulation.js";
import { importGithub, type Operation, operationOf } from "./github-spec.js";

/*
 * GitHub's own OpenAPI document (the npm package @octokit/openapi) imported as a toolkit, and eleven
 * of its operations executed as tools through the real handler over HTTP, with a bearer
 * connection, against a local emulation of api.github.com (test/catalog/flows/emulation.ts: the
 * handler's `fetch` sends GitHub's real hosts to a node:http server that records the raw request).
 *
 * Every expected request below is read from the operation in the spec, by OpenAPI 3.0's rules
 * (https://spec.openapis.org/oas/v3.0.3#style-values): path parameters are `simple` (each value
 * percent-encoded, RFC 6570 `{var}`), query parameters `form` with `explode: true` (an array
 * repeats the name; RFC 6570 `{?var*}` percent-encodes every reserved character, a space as
 * `%20`), a `application/json` body is the JSON of the body object, other media types send the
 * value as it is. Query pairs are compared as raw `name=value` strings, in any order (the spec
 * gives the parameters no order).
 *
 * The eleven, and the shape each covers:
 * 1. issues/list-for-repo: path parameters and GitHub's paging parameters (per_page, page), enums, a date-time.
 * 2. orgs/list-pat-grants: query arrays (`owner`, `token_id`; form, explode: the name repeats).
 * 3. issues/create: a JSON body assembled from top-level arguments.
 * 4. issues/update: PATCH with a JSON body holding a `null` (the spec: "use null to remove the current milestone").
 * 5. issues/delete-label: DELETE, a path value with a colon and a space, no body, 204.
 * 6. activity/star-repo-for-authenticated-user: PUT with no body ("set Content-Length to zero"), 204.
 * 7. markdown/render-raw: a text/plain body, a text/html answer.
 * 8. search/issues-and-pull-requests: a query value full of reserved characters (`:`, `/`, `"`, `'`, spaces).
 * 9. repos/download-tarball-archive: a 302 to codeload.github.com whose answer is binary: staged as a file.
 * 10. repos/upload-release-asset: an application/octet-stream body from a staged file, sent to the
 *     operation's own server (uploads.github.com).
 * 11. repos/update: a PATCH whose body schema has defaults: only the fields given are sent.
 * GitHub's spec declares no header or cookie parameter (checked below), so none is exercised here.
 */

const require = createRequire(import.meta.url);
const SPEC = JSON.parse(readFileSync(require.resolve("@octokit/openapi/generated/api.github.com.json"), "utf8"));

const HOSTS = ["api.github.com", "uploads.github.com", "codeload.github.com"];
const pat = mint("github_pat_");
let flow: Flow;
let answer: (request: EmulatedRequest) => EmulatedAnswer = () => ({ status: 404, body: { message: "Not Found" } });
let toolCount = 0;
let toolByOperation: (operationId: string) => { slug: string; request?: { body?: { arg?: string } } };

function emulate(request: EmulatedRequest): EmulatedAnswer {
  // GitHub refuses requests without a User-Agent and unauthenticated calls to these endpoints.
  if (!request.headers["user-agent"]) return { status: 403, body: { message: "Request forbidden by administrative rules." } };
  if (request.host !== "codeload.github.com" && request.headers.authorization !== `Bearer ${pat}`) {
    return { status: 401, body: { message: "Bad credentials" } };
  }
  return answer(request);
}

beforeAll(async () => {
  const imported = await importGithub(SPEC);
  toolCount = imported.document.tools.length;
  toolByOperation = imported.toolFor;
  flow = await startFlow({ provider: imported.document.slug, hosts: HOSTS, emulate, toolkit: () => defineJsonToolkit(imported.document) });
  const connected = await flow.call("POST", "/auth", { toolkit: imported.document.slug, credentials: { token: pat } });
  expect(connected.status, connected.text).toBe(201);
});
afterAll(() => flow?.close());

/** Executes the operation's tool with `args`; returns the tool's answer and what the emulation received. */
async function execute(operationId: string, args: Record<string, unknown>) {
  const from = flow.requests.length;
  const res = await flow.call("POST", "/execute", { tool: toolByOperation(operationId).slug, arguments: args });
  expect(res.status, res.text).toBe(200);
  return { result: res.json, sent: flow.requests.slice(from) };
}

/** The query's raw `name=value` pairs, sorted. */
function rawQuery(target: string): string[] {
  const query = target.includes("?") ? target.slice(target.indexOf("?") + 1) : "";
  return query === "" ? [] : query.split("&").sort();
}

/**
 * What every request to GitHub carries: the connection's token as a bearer credential and
 * nothing of the agent's (its API key) or of the handler; only the headers a fetch sends by
 * itself beside those the operation calls for.
 */
function expectHeaders(sent: EmulatedRequest, operation: Operation, extra: string[] = []) {
  expect(sent.headers.authorization).toBe(`Bearer ${pat}`);
  const expected = new Set(["host", "connection", "user-agent", "accept", "accept-encoding", "accept-language", "sec-fetch-mode"]);
  for (const name of ["authorization", "x-emulated-host", ...extra]) expected.add(name);
  expect(Object.keys(sent.headers).filter((name) => !expected.has(name))).toEqual([]);
  expect(Object.values(sent.headers).join("\n")).not.toContain(flow.key);
  // An Accept the runner sends admits the media type of the operation's success answer.
  const accept = sent.headers.accept ?? "*/*";
  for (const type of operation.successTypes) expect(admits(accept, type), `accept ${accept} admits ${type}`).toBe(true);
}

function admits(accept: string, type: string): boolean {
  return accept.split(",").some((range) => {
    const [wanted = ""] = range.trim().split(";");
    if (wanted === "*/*" || wanted === type) return true;
    return wanted.endsWith("/*") && type.startsWith(wanted.slice(0, -1));
  });
}

describe("GitHub's OpenAPI document as a toolkit", () => {
  it("imports every operation that is not deprecated as a tool: about a thousand", () => {
    const operations = Object.values(SPEC.paths as Record<string, Record<string, { operationId?: string; deprecated?: boolean }>>)
      .flatMap((item) => Object.values(item))
      .filter((op) => typeof op === "object" && op !== null && "operationId" in op);
    expect(operations.length).toBeGreaterThan(1000);
    expect(toolCount).toBe(operations.filter((op) => !op.deprecated).length);
  });

  it("declares no header or cookie parameter (so the operations below cannot exercise one)", () => {
    const where = (SPEC.paths ? Object.values(SPEC.paths) : []).flatMap((item: any) =>
      Object.values(item).flatMap((op: any) => (Array.isArray(op?.parameters) ? op.parameters : [])),
    );
    const resolved = where.map((p: any) => (p.$ref ? SPEC.components.parameters[p.$ref.split("/").pop()] : p));
    expect(resolved.filter((p: any) => p.in === "header" || p.in === "cookie")).toEqual([]);
  });
});

describe("eleven GitHub operations send exactly the request the spec describes", () => {
  it("1. issues/list-for-repo: path parameters, enums, a date-time and the paging parameters in the query", async () => {
    const operation = operationOf(SPEC, "issues/list-for-repo");
    answer = () => ({ body: [{ number: 1347, title: "Found a bug" }] });
    const { result, sent } = await execute("issues/list-for-repo", {
      owner: "octo-org",
      repo: "hello-world",
      state: "closed",
      labels: "bug,ui",
      sort: "updated",
      direction: "asc",
      since: "2026-01-02T03:04:05Z",
      per_page: 50,
      page: 2,
    });
    expect(result).toMatchObject({ successful: true, data: [{ number: 1347, title: "Found a bug" }] });
    expect(sent).toHaveLength(1);
    const [request] = sent as [EmulatedRequest];
    expect([request.method, request.host, request.path]).toEqual(["GET", "api.github.com", "/repos/octo-org/hello-world/issues"]);
    expect(operation.path).toBe("/repos/{owner}/{repo}/issues");
    expect(rawQuery(request.target)).toEqual(
      [
        "state=closed",
        "labels=bug%2Cui",
        "sort=updated",
        "direction=asc",
        "since=2026-01-02T03%3A04%3A05Z",
        "per_page=50",
        "page=2",
      ].sort(),
    );
    expect(request.body).toBe("");
    expectHeaders(request, operation);
  });

  it("2. orgs/list-pat-grants: array query parameters repeat their name (form, explode)", async () => {
    const operation = operationOf(SPEC, "orgs/list-pat-grants");
    // The spec declares `owner` and `token_id` as arrays with no style: form, explode true. (Its
    // `example` shows `owner[]=...`, which is not what the declared name and style produce.)
    expect(operation.parameter("owner")).toMatchObject({ in: "query", schema: { type: "array" } });
    expect(operation.parameter("owner").style ?? "form").toBe("form");
    expect(operation.parameter("owner").explode ?? true).toBe(true);
    answer = () => ({ body: [] });
    const { sent } = await execute("orgs/list-pat-grants", {
      org: "octo-org",
      owner: ["octocat", "hubot"],
      token_id: ["17", "42"],
      last_used_before: "2026-06-01T00:00:00Z",
      per_page: 10,
    });
    // `sort`, `direction` and `page` have defaults; left out by the agent, they are not sent.
    const [request] = sent as [EmulatedRequest];
    expect([request.method, request.path]).toEqual(["GET", "/orgs/octo-org/personal-access-tokens"]);
    expect(rawQuery(request.target)).toEqual(
      ["owner=octocat", "owner=hubot", "token_id=17", "token_id=42", "last_used_before=2026-06-01T00%3A00%3A00Z", "per_page=10"].sort(),
    );
    expectHeaders(request, operation);
  });

  it("3. issues/create: a JSON body of the body's properties, path parameters outside it", async () => {
    const operation = operationOf(SPEC, "issues/create");
    answer = (request) => ({ status: 201, body: { number: 1348, title: JSON.parse(request.body).title } });
    const { result, sent } = await execute("issues/create", {
      owner: "octo-org",
      repo: "hello-world",
      title: "Found a bug",
      body: "I'm having a problem with this.",
      assignees: ["octocat"],
      milestone: 1,
      labels: ["bug", { name: "ui" }],
    });
    expect(result).toMatchObject({ successful: true, data: { number: 1348, title: "Found a bug" } });
    const [request] = sent as [EmulatedRequest];
    expect([request.method, request.path, request.target]).toEqual([
      "POST",
      "/repos/octo-org/hello-world/issues",
      "/repos/octo-org/hello-world/issues",
    ]);
    expect(request.headers["content-type"]).toMatch(/^application\/json\b/);
    expect(JSON.parse(request.body)).toEqual({
      title: "Found a bug",
      body: "I'm having a problem with this.",
      assignees: ["octocat"],
      milestone: 1,
      labels: ["bug", { name: "ui" }],
    });
    expect(request.headers["content-length"]).toBe(String(request.bytes.length));
    expectHeaders(request, operation, ["content-type", "content-length"]);
  });

  it("4. issues/update: PATCH, an integer path parameter, a null kept in the JSON body", async () => {
    const operation = operationOf(SPEC, "issues/update");
    answer = () => ({ body: { number: 1347, state: "closed" } });
    const { sent } = await execute("issues/update", {
      owner: "octo-org",
      repo: "hello-world",
      issue_number: 1347,
      state: "closed",
      state_reason: "not_planned",
      milestone: null,
    });
    const [request] = sent as [EmulatedRequest];
    expect([request.method, request.target]).toEqual(["PATCH", "/repos/octo-org/hello-world/issues/1347"]);
    expect(request.headers["content-type"]).toMatch(/^application\/json\b/);
    expect(JSON.parse(request.body)).toEqual({ state: "closed", state_reason: "not_planned", milestone: null });
    expectHeaders(request, operation, ["content-type", "content-length"]);
  });

  it("5. issues/delete-label: DELETE, a label name percent-encoded in the path (`:` too), no body", async () => {
    const operation = operationOf(SPEC, "issues/delete-label");
    answer = () => ({ status: 204 });
    const { result, sent } = await execute("issues/delete-label", { owner: "octo-org", repo: "hello-world", name: "priority: high" });
    expect(result).toMatchObject({ successful: true, data: null });
    const [request] = sent as [EmulatedRequest];
    expect([request.method, request.target]).toEqual(["DELETE", "/repos/octo-org/hello-world/labels/priority%3A%20high"]);
    expect(request.bytes.length).toBe(0);
    expectHeaders(request, operation);
  });

  it("6. activity/star-repo-for-authenticated-user: PUT with an empty body and Content-Length: 0", async () => {
    const operation = operationOf(SPEC, "activity/star-repo-for-authenticated-user");
    expect(operation.description).toContain("you'll need to set `Content-Length` to zero");
    answer = () => ({ status: 204 });
    const { result, sent } = await execute("activity/star-repo-for-authenticated-user", { owner: "octo-org", repo: "hello-world" });
    expect(result).toMatchObject({ successful: true });
    const [request] = sent as [EmulatedRequest];
    expect([request.method, request.target]).toEqual(["PUT", "/user/starred/octo-org/hello-world"]);
    expect(request.headers["content-length"]).toBe("0");
    expect(request.headers["content-type"]).toBeUndefined();
    expectHeaders(request, operation, ["content-length"]);
  });

  it("7. markdown/render-raw: the text sent as text/plain, the text/html answer returned as text", async () => {
    const operation = operationOf(SPEC, "markdown/render-raw");
    expect(operation.bodyTypes).toEqual(["text/plain", "text/x-markdown"]);
    answer = (request) => ({
      headers: { "content-type": "text/html;charset=utf-8" },
      body: request.body === "Hello **world**" ? "<p>Hello <strong>world</strong></p>" : "<p>unexpected</p>",
    });
    const bodyArg = toolByOperation("markdown/render-raw").request?.body?.arg ?? "body";
    const { result, sent } = await execute("markdown/render-raw", { [bodyArg]: "Hello **world**" });
    expect(result).toMatchObject({ successful: true, data: "<p>Hello <strong>world</strong></p>" });
    const [request] = sent as [EmulatedRequest];
    expect([request.method, request.target]).toEqual(["POST", "/markdown/raw"]);
    expect(request.headers["content-type"]).toMatch(/^text\/plain\b/);
    expect(request.body).toBe("Hello **world**");
    expectHeaders(request, operation, ["content-type", "content-length"]);
  });

  it("8. search/issues-and-pull-requests: reserved characters of a query value are percent-encoded", async () => {
    const operation = operationOf(SPEC, "search/issues-and-pull-requests");
    answer = () => ({ body: { total_count: 0, incomplete_results: false, items: [] } });
    const { sent } = await execute("search/issues-and-pull-requests", {
      q: `repo:octo-org/hello-world is:issue label:"good first issue" it's`,
      sort: "reactions-+1",
      order: "asc",
      per_page: 5,
    });
    const [request] = sent as [EmulatedRequest];
    expect([request.method, request.path]).toEqual(["GET", "/search/issues"]);
    expect(rawQuery(request.target)).toEqual(
      [
        "q=repo%3Aocto-org%2Fhello-world%20is%3Aissue%20label%3A%22good%20first%20issue%22%20it%27s",
        "sort=reactions-%2B1",
        "order=asc",
        "per_page=5",
      ].sort(),
    );
    expectHeaders(request, operation);
  });

  it("9. repos/download-tarball-archive: the 302 to codeload is followed and the archive staged as a file", async () => {
    const operation = operationOf(SPEC, "repos/download-tarball-archive");
    expect(Object.keys(operation.responses)).toEqual(["302"]);
    const archive = new Uint8Array([0x1f, 0x8b, 0x08, 0x00, 0xff, 0x00, 0x80, 0x7f, 0x01, 0x02]);
    const redirect: EmulatedAnswer = {
      status: 302,
      headers: { location: "https://codeload.github.com/octo-org/hello-world/legacy.tar.gz/refs/tags/v1.0.0" },
    };
    const download: EmulatedAnswer = {
      headers: { "content-type": "application/x-gzip", "content-disposition": "attachment; filename=octo-org-hello-world-v1.0.0.tar.gz" },
      body: archive,
    };
    answer = (request) => (request.host === "api.github.com" ? redirect : download);
    const { result, sent } = await execute("repos/download-tarball-archive", { owner: "octo-org", repo: "hello-world", ref: "v1.0.0" });
    expect(sent.map((r) => [r.method, r.host, r.target])).toEqual([
      ["GET", "api.github.com", "/repos/octo-org/hello-world/tarball/v1.0.0"],
      ["GET", "codeload.github.com", "/octo-org/hello-world/legacy.tar.gz/refs/tags/v1.0.0"],
    ]);
    expectHeaders(sent[0]!, operation);
    expect(result).toMatchObject({
      successful: true,
      data: { contentType: "application/x-gzip", filename: "octo-org-hello-world-v1.0.0.tar.gz", size: archive.length },
    });
    const file = await fetch(`${flow.apiUrl}/files/${result.data.stagingKey}`, { headers: { "x-api-key": flow.key } });
    expect(file.status).toBe(200);
    expect(new Uint8Array(await file.arrayBuffer())).toEqual(archive);
  });

  it("10. repos/upload-release-asset: a staged file streamed as application/octet-stream to uploads.github.com", async () => {
    const operation = operationOf(SPEC, "repos/upload-release-asset");
    expect(operation.servers).toEqual(["https://uploads.github.com"]);
    // A zip's first bytes (the upload route checks them against the declared type), then anything.
    const asset = new Uint8Array(4096).map((_, i) => [0x50, 0x4b, 0x03, 0x04][i] ?? (i * 31) % 256);
    const form = new FormData();
    form.append("file", new Blob([asset], { type: "application/zip" }), "notes.zip");
    const staged = await fetch(`${flow.apiUrl}/upload`, { method: "POST", headers: { "x-api-key": flow.key }, body: form });
    expect(staged.status).toBe(200);
    const { stagingKey } = (await staged.json()) as { stagingKey: string };
    answer = (request) => ({ status: 201, body: { id: 1, name: request.query.get("name"), size: request.bytes.length } });
    const bodyArg = toolByOperation("repos/upload-release-asset").request?.body?.arg ?? "body";
    const { result, sent } = await execute("repos/upload-release-asset", {
      owner: "octo-org",
      repo: "hello-world",
      release_id: 1,
      name: "notes.zip",
      label: "Release notes (zip)",
      [bodyArg]: stagingKey,
    });
    expect(result).toMatchObject({ successful: true, data: { id: 1, name: "notes.zip", size: asset.length } });
    const [request] = sent as [EmulatedRequest];
    expect([request.method, request.host, request.path]).toEqual([
      "POST",
      "uploads.github.com",
      "/repos/octo-org/hello-world/releases/1/assets",
    ]);
    expect(rawQuery(request.target)).toEqual(["label=Release%20notes%20%28zip%29", "name=notes.zip"]);
    expect(request.headers["content-type"]).toBe("application/octet-stream");
    expect(new Uint8Array(request.bytes)).toEqual(asset);
    expectHeaders(request, operation, ["content-type", "content-length", "transfer-encoding"]);
  });

  it("11. repos/update: a PATCH sends only the fields given, none of the schema's defaults", async () => {
    const operation = operationOf(SPEC, "repos/update");
    // Sixteen body properties have a default (`private: false`, `archived: false`, ...). A default
    // says what GitHub assumes when the field is absent; sending it would change the repository
    // (a PATCH of the description would make a private repository public).
    expect(operation.bodyProperty("private")).toMatchObject({ type: "boolean", default: false });
    answer = () => ({ body: { full_name: "octo-org/hello-world", private: true } });
    const { sent } = await execute("repos/update", { owner: "octo-org", repo: "hello-world", description: "Our first repository" });
    const [request] = sent as [EmulatedRequest];
    expect([request.method, request.target]).toEqual(["PATCH", "/repos/octo-org/hello-world"]);
    expect(JSON.parse(request.body)).toEqual({ description: "Our first repository" });
    expectHeaders(request, operation, ["content-type", "content-length"]);
  });

  it("no answer or log line holds the token", () => {
    flow.assertNoLeaks([pat, flow.key]);
  });
});
