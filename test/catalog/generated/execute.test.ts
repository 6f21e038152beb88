/**
 * A sample of each provider's generated tools, run through the real handler (`POST /execute`)
 * against an emulation of the provider's API at its catalog base URLs. The emulation checks each
 * request against the provider's OpenAPI document, read by the test itself: the method and path
 * are one of its operations, every query parameter sent is one the operation declares and every
 * required one is sent, the body has the operation's media type and required properties; and the
 * connection's credential is where the provider's mode puts it.
 *
 * The sample is deterministic: the provider's first default tool and the tools at a third and two
 * thirds of its list.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { catalogToolkit, generatedSources } from "../../../src/catalog/index.js";
import type { AuthScheme, Credential } from "../../../src/credentials/auth-schemes.js";
import type { Tool, Toolkit } from "../../../src/toolkits/define.js";
import { CREDENTIALS, createHarness, type Harness, multipart } from "../../support/harness.js";
import { emulatedApi, reply, type Sent } from "../tools/support.js";
import { STAGED, sampleArguments } from "./arguments.js";
import { type DocumentOperation, documentOperations, operationOf } from "./document.js";

const TOKEN = CREDENTIALS.oauthAccessToken;

/** The mode a sample connection uses: one a person types where the provider has one, else OAuth. */
function modeOf(toolkit: Toolkit): AuthScheme {
  const typed = toolkit.authModes.find((mode) => mode.type === "bearer" || mode.type === "apiKey" || mode.type === "basic");
  return typed ?? toolkit.authModes.find((mode) => mode.type === "oauth2") ?? toolkit.auth;
}

function credentialFor(mode: AuthScheme): Credential {
  if (mode.type === "bearer") return { type: "bearer", token: TOKEN };
  if (mode.type === "apiKey") {
    // The further values a person types beside the key (Discourse's API username), each a plain word.
    const fields = ((mode as { fields?: Array<{ name: string }> }).fields ?? []).map((field) => [field.name, "system"]);
    return { type: "apiKey", apiKey: TOKEN, ...(fields.length ? { fields: Object.fromEntries(fields) } : {}) };
  }
  if (mode.type === "basic") return { type: "basic", username: CREDENTIALS.basicUser, password: CREDENTIALS.basicPassword };
  return { type: "oauth2", accessToken: TOKEN };
}

/** Where the credential must be: the mode's placements, else its header or query, else `Authorization`. */
function expectCredential(mode: AuthScheme, request: Sent): void {
  const placements = (mode as { placements?: Array<{ in: string; name: string; value: string }> }).placements;
  if (placements?.length) {
    for (const placement of placements.filter((p) => /\{(token|apiKey)\}/.test(p.value))) {
      const value = placement.value.replace(/\{(token|apiKey)\}/, TOKEN);
      if (placement.in === "query") expect(request.url.searchParams.get(placement.name)).toBe(value);
      else if (placement.in === "header") expect(request.headers.get(placement.name)).toContain(value);
      else expect(decodeURIComponent(request.url.pathname)).toContain(value);
    }
    return;
  }
  if (mode.type === "basic") {
    const pair = Buffer.from(`${CREDENTIALS.basicUser}:${CREDENTIALS.basicPassword}`).toString("base64");
    expect(request.headers.get("authorization")).toBe(`Basic ${pair}`);
  } else if (mode.type === "apiKey" && (mode as { in?: string }).in === "query") {
    expect(request.url.searchParams.get((mode as { name: string }).name)).toBe(TOKEN);
  } else if (mode.type === "apiKey") {
    const { name, prefix = "" } = mode as { name: string; prefix?: string };
    expect(request.headers.get(name)).toBe(`${prefix}${TOKEN}`);
  } else {
    expect(request.headers.get("authorization")).toBe(`Bearer ${TOKEN}`);
  }
}

/** The request matches the document's operation: method and path, query, body. */
function expectDocumented(operation: DocumentOperation | undefined, request: Sent, mode: AuthScheme): void {
  expect(operation, `${request.method} ${request.url} is no operation of the document`).toBeDefined();
  const declared = operation!.parameters.filter((p) => p?.in === "query");
  const modeQuery = new Set(
    [
      (mode as { in?: string; name?: string }).in === "query" ? (mode as { name: string }).name : "",
      ...((mode as { placements?: Array<{ in: string; name: string }> }).placements ?? [])
        .filter((p) => p.in === "query")
        .map((p) => p.name),
    ].filter(Boolean),
  );
  for (const name of new Set(request.url.searchParams.keys())) {
    if (modeQuery.has(name)) continue;
    const root = name.replace(/\[.*$/, "");
    expect(
      declared.some((p) => p.name === name || p.name === root),
      `query parameter ${name} of ${operation!.where}`,
    ).toBe(true);
  }
  for (const parameter of declared.filter((p) => p.required))
    expect(request.url.searchParams.has(parameter.name), `required ${parameter.name}`).toBe(true);
  if (!operation!.body || request.text === "") return;
  const type = request.headers.get("content-type") ?? "";
  const wanted = operation!.body.type.split(";")[0]!;
  expect(type.split(";")[0], `content type of ${operation!.where}`).toBe(wanted);
  const schema = operation!.deref(operation!.body.schema) ?? {};
  const body = /json/.test(wanted) ? request.json() : /form-urlencoded/.test(wanted) ? Object.fromEntries(request.form()) : undefined;
  if (body === undefined || body === null || typeof body !== "object" || Array.isArray(body)) return;
  for (const name of schema.required ?? [])
    expect(
      Object.keys(body).some((key) => key === name || key.startsWith(`${name}[`)),
      `required ${name}`,
    ).toBe(true);
  if (schema.properties && schema.additionalProperties === undefined) {
    for (const key of Object.keys(body))
      expect(Object.hasOwn(schema.properties, key.replace(/\[.*$/, "")), `body property ${key}`).toBe(true);
  }
}

/** A value for each URL placeholder of the provider: an input's example, else a DNS label. */
function paramsOf(toolkit: Toolkit): Record<string, string> {
  const params: Record<string, string> = {};
  for (const base of toolkit.baseUrls) for (const [, name] of base.matchAll(/\{([A-Za-z0-9_]+)\}/g)) params[name!] = "tenant1";
  for (const input of toolkit.inputs) params[input.name] = inputValue(input);
  return params;
}

/** A value an input accepts: an origin, one of its hosts or values, its example. */
function inputValue(input: Toolkit["inputs"][number]): string {
  if (input.type === "origin") return "https://origin.example.com";
  if (input.type === "host") return input.default ?? input.hosts?.[0]?.replace("*", "app") ?? "api.example.com";
  if (input.type === "enum") return input.default ?? input.values?.[0] ?? "tenant1";
  return input.example ?? input.default ?? "tenant1";
}

function sample(tools: Tool[], defaults: Set<string>): Tool[] {
  const first = tools.find((tool) => defaults.has(tool.slug)) ?? tools[0]!;
  const picked = [first, tools[Math.floor(tools.length / 3)]!, tools[Math.floor((2 * tools.length) / 3)]!];
  return picked.filter((tool, index) => picked.findIndex((other) => other.slug === tool.slug) === index);
}

const providers = generatedSources().map((source) => source.slug);

describe.each(providers)("generated tools of %s", (slug) => {
  let h: Harness;
  let key: string;
  let mode: AuthScheme;
  let tools: Tool[];
  const api = emulatedApi();

  beforeAll(async () => {
    const catalog = catalogToolkit(slug, { clientId: "client-id", clientSecret: "client-secret", values: { appKey: "deployer-app-key" } });
    const all = await catalog.lazy!.load();
    const defaults = new Set(catalog.lazy!.summaries.filter((summary) => summary.default).map((summary) => summary.slug));
    tools = sample(all, defaults);
    mode = modeOf(catalog);
    // The catalog toolkit itself: the handler loads each sampled tool from its lazy tools when it is executed.
    const toolkit: Toolkit = catalog;
    // The emulation answers every host: an origin input's name need not resolve.
    h = await createHarness({ fetch: api.fetch, allowPrivateNetworks: true, extraToolkits: () => [toolkit] });
    const agent = await h.issueAgentKey("agent-generated");
    key = agent.key;
    await h.insertConnection({
      agentId: "agent-generated",
      toolkit: slug,
      credential: { ...credentialFor(mode), mode: mode.mode } as Credential,
      params: paramsOf(catalog),
    });
  });
  /** Stages a small file through POST /upload; its key. */
  async function upload(): Promise<string> {
    const res = await h.call("POST", "/upload", { key, rawBody: multipart("sample bytes", "text/plain", "sample.txt") });
    expect(res.status, res.text).toBe(200);
    return res.json.stagingKey as string;
  }
  afterAll(async () => {
    h.assertNoLeaks();
    await h.close();
  });

  it("sends what the document describes, with the credential where the provider's mode puts it", async () => {
    const operations = documentOperations(slug);
    for (const tool of tools) {
      api.answer(() => reply({ ok: true }));
      const args = sampleArguments(tool.inputParameters as Record<string, any>);
      for (const [name, value] of Object.entries(args)) if (value === STAGED) args[name] = await upload();
      const res = await h.call("POST", "/execute", { key, body: { tool: tool.slug, arguments: args } });
      expect(res.status, res.text).toBe(200);
      expect(res.json.successful, `${tool.slug} ${JSON.stringify(args)}: ${res.text}`).toBe(true);
      expect(api.sent).toHaveLength(1);
      const request = api.sent[0]!;
      expectCredential(mode, request);
      expectDocumented(operationOf(operations, request.method, request.url), request, mode);
    }
  });
});
