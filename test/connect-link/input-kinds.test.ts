/**
 * The connect page shows each kind of input as a person expects it: an enum as a `<select>` with
 * its default chosen, an optional text field not required, an input the provider fills not at
 * all. A real form POST connects with the chosen value, and the connection's config lists it with
 * the value the account lookup filled.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { apiKey, defineToolkit } from "../../src/index.js";
import { startKeyedUpstream } from "../support/connect.js";
import { BASE, type CallResult, createHarness, type Harness } from "../support/harness.js";
import type { TestServer } from "../support/upstream.js";

const RUN = Math.random().toString(36).slice(2, 10);
const GOOD_KEY = `good-key-${RUN}-3333`;

let h: Harness;
let keyed: TestServer;
let key: string;

beforeAll(async () => {
  keyed = await startKeyedUpstream(GOOD_KEY);
  h = await createHarness({
    publicUrl: BASE,
    extraToolkits: () => [
      defineToolkit({
        slug: "regional",
        name: "Regional",
        description: "An API key for one region's API; the account is read from /me.",
        baseUrl: `${keyed.origin}/{region}/v1`,
        headers: { "X-Workspace": "{workspace}" },
        inputs: [
          { name: "region", label: "Data region", type: "enum", values: ["us", "eu", "au"], default: "us" },
          { name: "workspace", label: "Workspace name", type: "text", optional: true, maxLength: 80 },
          { name: "account", label: "Account", from: "lookup" },
        ],
        auth: apiKey({ in: "header", name: "X-Key", identify: { url: "/me", remoteUser: "login", config: { account: "login" } } }),
        tools: [],
      }),
    ],
  });
  h.addSecret(GOOD_KEY);
  key = (await h.issueAgentKey(`agent-kinds-${RUN}`)).key;
});
afterAll(async () => {
  h.assertNoLeaks();
  await Promise.all([h.close(), keyed.close()]);
});

const csrfOf = (page: CallResult) => /name="csrf" value="([^"]+)"/.exec(page.text)?.[1] ?? "";
const submit = (url: string, fields: Record<string, string>) =>
  h.call("POST", url, {
    headers: { "content-type": "application/x-www-form-urlencoded" },
    rawBody: new URLSearchParams(fields).toString(),
  });

async function link(config?: Record<string, string>) {
  const res = await h.call("POST", "/auth", { key, body: { toolkit: "regional", ...(config ? { config } : {}) } });
  expect(res.status, res.text).toBe(200);
  return res.json as { authorizationId: string; authorizationUrl: string };
}

describe("inputs on the connect page", () => {
  it("GET /toolkit lists the filled input as filled, never asked", async () => {
    const inputs = (await h.call("GET", "/toolkit/regional", { key })).json.inputs;
    expect(inputs.find((i: { name: string }) => i.name === "account")).toEqual({
      name: "account",
      label: "Account",
      type: "label",
      from: "lookup",
      optional: true,
      filled: true,
    });
  });

  it("shows an enum as a select with its default chosen, an optional text field not required, and no filled input", async () => {
    const { authorizationUrl } = await link();
    const page = await h.call("GET", authorizationUrl);
    expect(page.status).toBe(200);
    expect(page.text).toContain(
      '<label for="f-input-region">Data region</label><select id="f-input-region" name="input.region" required>' +
        '<option value="us" selected>us</option><option value="eu">eu</option><option value="au">au</option></select>',
    );
    expect(page.text).toContain('<label for="f-input-workspace">Workspace name <span class="optional">(optional)</span></label>');
    expect(page.text).toMatch(/<input id="f-input-workspace" name="input\.workspace" type="text" maxlength="80" /);
    expect(page.text).not.toContain("input.account");
    expect(page.text).toContain('id="f-apiKey" name="apiKey" type="password" required');
  });

  it("a form POST with another region connects with it; the lookup fills the account, the empty optional stays out", async () => {
    const { authorizationId, authorizationUrl } = await link();
    const page = await h.call("GET", authorizationUrl);
    const done = await submit(authorizationUrl, { csrf: csrfOf(page), apiKey: GOOD_KEY, "input.region": "eu", "input.workspace": "" });
    expect(done.status, done.text).toBe(200);
    const status = (await h.call("GET", `/auth/${authorizationId}`, { key })).json;
    expect(status.status).toBe("connected");
    const connection = (await h.call("GET", "/connections?toolkit=regional", { key })).json.connections.find(
      (c: { id: string }) => c.id === status.connectionId,
    );
    expect(connection.config).toEqual({ region: "eu", account: "alice" });
    expect(connection.remoteUser).toBe("alice");
    // The lookup went to the chosen region's API.
    expect(keyed.requests.at(-1)!.url).toBe("/eu/v1/me");
  });

  it("a value outside the enum sent by hand is refused on the page, listing the values; the link stays usable", async () => {
    const { authorizationId, authorizationUrl } = await link();
    const page = await h.call("GET", authorizationUrl);
    const before = keyed.requests.length;
    const refused = await submit(authorizationUrl, { csrf: csrfOf(page), apiKey: GOOD_KEY, "input.region": "mars" });
    expect(refused.status).toBe(400);
    expect(refused.text).toContain("config.region is not valid: it must be one of: us, eu, au (default us).");
    expect(refused.text).not.toContain(GOOD_KEY);
    expect(keyed.requests.length).toBe(before);
    expect((await h.call("GET", `/auth/${authorizationId}`, { key })).json.status).toBe("pending");
  });

  it("an input the agent gave is shown, not asked", async () => {
    const { authorizationUrl } = await link({ region: "au" });
    const page = await h.call("GET", authorizationUrl);
    expect(page.text).toContain('<p class="given">Data region: <strong>au</strong></p>');
    expect(page.text).not.toContain("<select");
  });
});
