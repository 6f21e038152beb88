import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type EmulatedRequest, type Flow, mint, startFlow } from "../catalog/flows/emulation.js";
import { githubApi, googleTokenEndpoint, keyFile, salesforceTokenEndpoint, type TestKey, testKey } from "./jwt-emulation.js";

/*
 * The JWT grants end to end, over real HTTP through the handler: connecting (POST /auth with
 * credentials, and the connect page where a person pastes a key file), the token on the proxy and
 * the passthrough, renewal when it expires (20 concurrent calls, one token request) and after a
 * 401, and malformed key files refused with nothing of them in any answer or log line. The
 * emulations (jwt-emulation.ts) verify each assertion as the providers' pages describe.
 */

/** Sends an agent's request with its key, e.g. to the passthrough. */
async function agentFetch(flow: Flow, path: string, headers: Record<string, string> = {}) {
  const response = await fetch(`${flow.apiUrl}${path}`, { headers: { "x-api-key": flow.key, ...headers } });
  return { status: response.status, text: await response.text() };
}

/** Waits until `condition` holds, checking every 20 ms (for at most 20 s). */
async function until(condition: () => boolean): Promise<void> {
  const deadline = Date.now() + 20_000;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error("condition not met in 20 s");
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe("Google Drive with a service account key file", () => {
  let flow: Flow;
  let key: TestKey;
  const accounts = new Map<string, CryptoKey>();
  const google = googleTokenEndpoint(accounts);
  const pasted: string[] = [];

  function drive(request: EmulatedRequest) {
    const bearer = /^Bearer (.+)$/.exec(request.headers.authorization ?? "")?.[1];
    if (!bearer || !google.live.has(bearer))
      return { status: 401, body: { error: { code: 401, message: "Request had invalid authentication credentials." } } };
    return { body: { kind: "drive#fileList", files: [{ id: "f1", name: "Plan.docx" }] } };
  }

  beforeAll(async () => {
    key = await testKey();
    flow = await startFlow({
      provider: "google-drive",
      hosts: ["oauth2.googleapis.com", "www.googleapis.com"],
      emulate: (request) => (request.host === "oauth2.googleapis.com" ? google.answer(request) : drive(request)),
    });
  });
  afterAll(() => flow?.close());

  function newKeyFile() {
    const file = keyFile(key);
    accounts.set(file.email, key.publicKey);
    pasted.push(file.text);
    return file;
  }

  it("GET /toolkit lists the service account mode with its fields: the key file (secret) and an optional subject", async () => {
    const res = await flow.call("GET", "/toolkit/google-drive");
    expect(res.json.authModes.map((mode: { type: string }) => mode.type)).toEqual(["oauth2", "jwtBearer"]);
    expect(res.json.authModes[1]).toMatchObject({ type: "jwtBearer", label: "Google service account" });
  });

  it("connects with POST /auth { credentials: { serviceAccountKey, subject } }; the proxy and the passthrough carry the token", async () => {
    const file = newKeyFile();
    const before = google.issued.length;
    const res = await flow.call("POST", "/auth", {
      toolkit: "google-drive",
      credentials: { serviceAccountKey: file.text, subject: "ada@acme.example" },
    });
    expect(res.status, res.text).toBe(201);
    expect(google.issued.length).toBe(before + 1);
    const { token, claims } = google.issued.at(-1)!;
    expect(claims).toMatchObject({ iss: file.email, sub: "ada@acme.example", scope: "https://www.googleapis.com/auth/drive" });
    const id = res.json.connection.id as string;

    const proxied = await flow.call("POST", "/proxy", {
      toolkit: "google-drive",
      method: "GET",
      url: "https://www.googleapis.com/drive/v3/files",
      connection_id: id,
    });
    expect(proxied.json).toMatchObject({ successful: true, data: { files: [{ name: "Plan.docx" }] } });
    expect(flow.at("www.googleapis.com").at(-1)!.headers.authorization).toBe(`Bearer ${token}`);

    const passed = await agentFetch(flow, "/passthrough/google-drive/files", { "x-connection-id": id });
    expect(passed.status, passed.text).toBe(200);
    expect(JSON.parse(passed.text)).toMatchObject({ kind: "drive#fileList" });
    expect(flow.at("www.googleapis.com").at(-1)!.headers.authorization).toBe(`Bearer ${token}`);
    expect(google.issued.length).toBe(before + 1);
    flow.assertNoLeaks([...pasted, key.pem, token]);
  });

  it("connects on the connect page, where a person pastes the key file (a browser's input drops its line breaks)", async () => {
    const file = newKeyFile();
    const started = await flow.call("POST", "/auth", { toolkit: "google-drive", mode: "jwtBearer" });
    expect(started.status, started.text).toBe(200);
    const page = await fetch(started.json.authorizationUrl);
    const html = await page.text();
    expect(html).toContain('name="serviceAccountKey" type="password"');
    expect(html).toContain('name="subject" type="text"');
    const csrf = /name="csrf" value="([^"]+)"/.exec(html)![1]!;
    const before = google.issued.length;
    const done = await fetch(started.json.authorizationUrl, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ csrf, serviceAccountKey: file.text.replaceAll("\n", ""), subject: "" }).toString(),
    });
    const doneText = await done.text();
    expect(done.status, doneText).toBe(200);
    expect(google.issued.length).toBe(before + 1);
    expect(google.issued.at(-1)!.claims.sub).toBeUndefined();
    const status = await flow.call("GET", `/auth/${started.json.authorizationId}`);
    expect(status.json).toMatchObject({ status: "connected" });
    expect(doneText).not.toContain(file.email.split("@")[0]);
  });

  it("renews an expired token once for 20 concurrent calls, and once after a 401", async () => {
    const file = newKeyFile();
    google.settings.expiresIn = 2;
    const res = await flow.call("POST", "/auth", { toolkit: "google-drive", credentials: { serviceAccountKey: file.text } });
    expect(res.status, res.text).toBe(201);
    const connectedAt = Date.now();
    google.settings.expiresIn = 3599;
    const id = res.json.connection.id as string;
    const first = google.issued.at(-1)!.token;
    // A 2-second token is renewed a quarter of its lifetime before it ends.
    await until(() => Date.now() - connectedAt > 1600);
    const before = google.issued.length;
    const calls = await Promise.all(
      Array.from({ length: 20 }, () =>
        flow.call("POST", "/proxy", {
          toolkit: "google-drive",
          method: "GET",
          url: "https://www.googleapis.com/drive/v3/files",
          connection_id: id,
        }),
      ),
    );
    for (const call of calls) expect(call.json, call.text).toMatchObject({ successful: true });
    expect(google.issued.length).toBe(before + 1);
    const renewed = google.issued.at(-1)!.token;
    expect(renewed).not.toBe(first);
    expect(
      flow
        .at("www.googleapis.com")
        .slice(-20)
        .every((r) => r.headers.authorization === `Bearer ${renewed}`),
    ).toBe(true);

    // Google revokes the token early: the call's 401 renews it once and the call is sent again.
    google.live.delete(renewed);
    const after401 = await flow.call("POST", "/proxy", {
      toolkit: "google-drive",
      method: "GET",
      url: "https://www.googleapis.com/drive/v3/files",
      connection_id: id,
    });
    expect(after401.json, after401.text).toMatchObject({ successful: true });
    expect(google.issued.length).toBe(before + 2);
    flow.assertNoLeaks([...pasted, key.pem, ...google.issued.map((i) => i.token)]);
  });

  it.each([
    ["not JSON", () => `pasted-${mint("")} ${key.pem}`],
    ["a truncated key file", () => keyFile(key).text.slice(0, 700)],
    ["a key file of another type", () => keyFile(key, { type: "authorized_user" }).text],
    ["a truncated private key", () => keyFile(key, { private_key: key.pem.slice(0, 500) }).text],
    [
      "an encrypted private key",
      () =>
        keyFile(key, {
          private_key:
            "-----BEGIN ENCRYPTED PRIVATE KEY-----\nMIIFHDBOBgkqhkiG9w0BBQ0wQTApBgkqhkiG9w0BBQwwHAQI\n-----END ENCRYPTED PRIVATE KEY-----",
        }).text,
    ],
    [
      "a PKCS #1 key of the wrong size",
      () =>
        keyFile(key, {
          private_key:
            "-----BEGIN RSA PRIVATE KEY-----\nMIIBOgIBAAJBAKj34GkxFhD90vcNLYLInFEX6Ppy1tPf9Cnzj4p4WGeKLs1Pt8Qu\n-----END RSA PRIVATE KEY-----",
        }).text,
    ],
    ["a huge paste", () => keyFile(key, { padding: mint("pad-").repeat(600) }).text],
  ])("%s: POST /auth is a 400 that echoes nothing of it; nothing is stored or sent", async (_, make) => {
    const text = make();
    pasted.push(text);
    const sent = flow.requests.length;
    const res = await flow.call("POST", "/auth", { toolkit: "google-drive", credentials: { serviceAccountKey: text } });
    expect(res.status, res.text).toBe(400);
    expect(res.json.code).toBe("invalid_request");
    expect(res.json.error).toMatch(/serviceAccountKey/);
    for (let i = 0; i + 8 <= text.length; i += 4) {
      const fragment = text.slice(i, i + 8);
      if (/[A-Za-z0-9+/]{6}/.test(fragment) && !/BEGIN|PRIVATE|service_|private_/.test(fragment)) expect(res.text).not.toContain(fragment);
    }
    expect(flow.requests.length).toBe(sent);
    flow.assertNoLeaks([...pasted, key.pem]);
  });
});

describe("GitHub App installation tokens", () => {
  let flow: Flow;
  let app: TestKey;
  const appId = String(200000 + Math.floor(Math.random() * 700000));
  let github: ReturnType<typeof githubApi>;

  beforeAll(async () => {
    app = await testKey();
    github = githubApi(appId, app.publicKey, new Set(["4242"]));
    flow = await startFlow({
      provider: "github",
      hosts: ["api.github.com", "github.com"],
      emulate: (request) => github.answer(request),
      overrides: { appId, privateKey: app.pkcs1 },
    });
  });
  afterAll(() => flow?.close());

  it("connects with { installationId }; the proxy and the passthrough send the installation token; a 401 renews it once", async () => {
    const res = await flow.call("POST", "/auth", { toolkit: "github", credentials: { installationId: "4242" } });
    expect(res.status, res.text).toBe(201);
    expect(github.issued.length).toBe(1);
    const id = res.json.connection.id as string;
    const token = github.issued[0]!.token;
    const proxied = await flow.call("POST", "/proxy", {
      toolkit: "github",
      method: "GET",
      url: "https://api.github.com/installation/repositories",
      connection_id: id,
    });
    expect(proxied.json).toMatchObject({ successful: true, data: { total_count: 1 } });
    const passed = await agentFetch(flow, "/passthrough/github/installation/repositories", { "x-connection-id": id });
    expect(passed.status, passed.text).toBe(200);
    expect(flow.at("api.github.com", "/installation/repositories").every((r) => r.headers.authorization === `Bearer ${token}`)).toBe(true);

    github.live.delete(token);
    const again = await flow.call("POST", "/proxy", {
      toolkit: "github",
      method: "GET",
      url: "https://api.github.com/installation/repositories",
      connection_id: id,
    });
    expect(again.json, again.text).toMatchObject({ successful: true });
    expect(github.issued.length).toBe(2);
    flow.assertNoLeaks([app.pkcs1, app.pem, ...github.issued.map((i) => i.token)]);
  });

  it("an installation the app lacks is a 400 with GitHub's words; a wrong id a 400 before anything is sent", async () => {
    const missing = await flow.call("POST", "/auth", { toolkit: "github", credentials: { installationId: "999" } });
    expect(missing.status, missing.text).toBe(400);
    expect(missing.json.error).toContain("Not Found");
    const sent = flow.requests.length;
    const wrong = await flow.call("POST", "/auth", { toolkit: "github", credentials: { installationId: "12/../7" } });
    expect(wrong.status, wrong.text).toBe(400);
    expect(wrong.json.error).toContain("installation id must be");
    expect(flow.requests.length).toBe(sent);
  });

  it("the connect page asks for the installation id", async () => {
    const started = await flow.call("POST", "/auth", { toolkit: "github", mode: "appInstallation" });
    expect(started.status, started.text).toBe(200);
    const html = await (await fetch(started.json.authorizationUrl)).text();
    expect(html).toContain('name="installationId" type="text"');
  });
});

describe("Salesforce JWT bearer", () => {
  let flow: Flow;
  let certificate: TestKey;
  let salesforce: ReturnType<typeof salesforceTokenEndpoint>;
  const consumerKey = `3MVG9${mint("")}`;

  beforeAll(async () => {
    certificate = await testKey();
    salesforce = salesforceTokenEndpoint(consumerKey, certificate.publicKey, new Set(["integration@acme.example"]));
    flow = await startFlow({
      provider: "salesforce",
      hosts: ["login.salesforce.com", "test.salesforce.com", "acme.my.salesforce.com"],
      emulate: (request) => salesforce.answer(request),
      clientId: consumerKey,
      overrides: { privateKey: certificate.pem },
    });
  });
  afterAll(() => flow?.close());

  it("connects with { subject } (the username); instance_url becomes the instance the proxy calls", async () => {
    const res = await flow.call("POST", "/auth", {
      toolkit: "salesforce",
      mode: "jwtBearer",
      credentials: { subject: "integration@acme.example" },
    });
    expect(res.status, res.text).toBe(201);
    expect(res.json.connection.config).toMatchObject({ loginHost: "login.salesforce.com", instance: "acme" });
    const token = salesforce.issued.at(-1)!.token;
    const proxied = await flow.call("POST", "/proxy", {
      toolkit: "salesforce",
      method: "GET",
      url: "https://acme.my.salesforce.com/services/data/v62.0/sobjects",
      connection_id: res.json.connection.id,
    });
    expect(proxied.json, proxied.text).toMatchObject({ successful: true, data: { sobjects: [{ name: "Account" }] } });
    expect(flow.at("acme.my.salesforce.com").at(-1)!.headers.authorization).toBe(`Bearer ${token}`);
    flow.assertNoLeaks([certificate.pem, token]);
  });

  it("a user the connected app is not approved for is a 400 with Salesforce's words", async () => {
    const res = await flow.call("POST", "/auth", { toolkit: "salesforce", credentials: { subject: "someone@else.example" } });
    expect(res.status, res.text).toBe(400);
    expect(res.json.error).toContain("user hasn't approved this consumer");
  });
});
