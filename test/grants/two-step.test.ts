import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { catalogToolkit } from "../../src/catalog/index.js";
import { memoryStore } from "../../src/index.js";
import { type EmulatedRequest, mint } from "../catalog/flows/emulation.js";
import { type Rig, startRig } from "./rig.js";

/*
 * Two-step exchanges as two providers document them:
 * - Tableau Cloud, https://help.tableau.com/current/api/rest_api/en-us/REST/rest_api_concepts_auth.htm
 *   and https://help.tableau.com/current/api/rest_api/en-us/REST/rest_api_ref_authentication.htm:
 *   POST https://{pod}.online.tableau.com/api/{version}/auth/signin with the JSON body
 *   `{"credentials":{"personalAccessTokenName":...,"personalAccessTokenSecret":...,"site":{"contentUrl":...}}}`
 *   (JSON asked with `Accept: application/json`); the answer's `credentials.token`, `credentials.site.id`
 *   and `credentials.user.id`; later calls carry the token in `X-Tableau-Auth` and name the site by
 *   its id in the path (`/sites/{site-luid}/...`); a refused sign-in is a 401 whose `error` holds
 *   `summary`, `detail` and `code` 401001.
 * - IBM Cloud IAM, https://cloud.ibm.com/docs/iam?topic=iam-iamtoken_from_apikey: POST
 *   https://iam.cloud.ibm.com/identity/token with `Content-Type: application/x-www-form-urlencoded`
 *   and the pairs grant_type=urn:ibm:params:oauth:grant-type:apikey and apikey=MY_APIKEY (the page's
 *   curl writes the colons raw; form encoding sends them as %3A, the same value to any form
 *   reader); the answer's `access_token` and `expires_in` (one hour at most), used as Bearer.
 */

const POD = "10ay";
const SITE = "acme";
const SITE_ID = crypto.randomUUID();
const USER_ID = crypto.randomUUID();
const PAT = { name: "agent-pat", secret: mint("PAT+secret/") };
const IBM_KEY = mint("ibmkey_");
const TABLEAU = `${POD}.online.tableau.com`;
const IAM = "iam.cloud.ibm.com";
const RC = "resource-controller.cloud.ibm.com";

let rig: Rig;
let live = new Set<string>();
let delayMs = 0;
let dropToken = false;
let dropLifetime = false;

async function emulate(request: EmulatedRequest) {
  if (request.host === TABLEAU && request.path === "/api/3.22/auth/signin") {
    const body = JSON.parse(request.body) as { credentials: Record<string, unknown> };
    const c = body.credentials;
    if (c.personalAccessTokenName !== PAT.name || c.personalAccessTokenSecret !== PAT.secret) {
      return { status: 401, body: { error: { summary: "Signin Error", detail: "Error signing in to Tableau Server", code: "401001" } } };
    }
    await new Promise((resolve) => setTimeout(resolve, delayMs));
    const token = mint("tab|");
    live.add(token);
    const credentials: Record<string, unknown> = { site: { id: SITE_ID, contentUrl: SITE }, user: { id: USER_ID }, token };
    if (dropToken) delete credentials.token;
    return { body: { credentials } };
  }
  if (request.host === TABLEAU && request.path === `/api/3.22/sites/${SITE_ID}/workbooks`) {
    if (!live.has(request.headers["x-tableau-auth"] ?? ""))
      return { status: 401, body: { error: { summary: "Unauthorized", code: "401002" } } };
    return { body: { pagination: { totalAvailable: "0" }, workbooks: {} } };
  }
  if (request.host === IAM && request.path === "/identity/token") {
    const pairs = new URLSearchParams(request.body);
    if (pairs.get("grant_type") !== "urn:ibm:params:oauth:grant-type:apikey") return { status: 400, body: { errorCode: "BXNIM0308E" } };
    if (pairs.get("apikey") !== IBM_KEY) {
      return { status: 400, body: { errorCode: "BXNIM0415E", errorMessage: "Provided API key could not be found.", context: {} } };
    }
    const token = mint("eyJraWQi");
    live.add(token);
    const answer: Record<string, unknown> = {
      access_token: token,
      refresh_token: "not_supported",
      token_type: "Bearer",
      expires_in: 3600,
      expiration: Math.floor(Date.now() / 1000) + 3600,
      scope: "ibm openid",
    };
    if (dropLifetime) delete answer.expires_in;
    return { body: answer };
  }
  if (request.host === RC) {
    const token = /^Bearer (.+)$/.exec(request.headers.authorization ?? "")?.[1] ?? "";
    return live.has(token) ? { body: { rows_count: 0, resources: [] } } : { status: 401, body: { message: "Unauthorized" } };
  }
  return { status: 404, body: {} };
}

const signIns = () => rig.at(TABLEAU, "/api/3.22/auth/signin");

beforeAll(async () => {
  const store = memoryStore();
  rig = await startRig({
    hosts: [TABLEAU, IAM, RC],
    emulate,
    toolkits: [catalogToolkit("tableau"), catalogToolkit("ibm-cloud")],
    stores: [store, store],
  });
});
afterAll(() => rig.close());

async function connectTableau(): Promise<string> {
  const res = await rig.call("POST", "/auth", {
    toolkit: "tableau",
    config: { pod: POD, site: SITE },
    credentials: { tokenName: PAT.name, tokenSecret: PAT.secret },
  });
  expect(res.status, res.text).toBe(201);
  return res.json.connection.id as string;
}

function workbooks(id: string, on = 0) {
  return rig.call(
    "POST",
    "/proxy",
    { toolkit: "tableau", method: "GET", url: `https://${TABLEAU}/api/3.22/sites/${SITE_ID}/workbooks`, connection_id: id },
    on,
  );
}

describe("Tableau Cloud: sign in with a personal access token", () => {
  it("signs in with the documented JSON body, keeps the site and user ids, and sends the token in X-Tableau-Auth", async () => {
    const before = signIns().length;
    const id = await connectTableau();
    const sent = signIns().slice(before);
    expect(sent).toHaveLength(1);
    expect(sent[0]!.method).toBe("POST");
    expect(sent[0]!.headers["content-type"]).toBe("application/json");
    expect(sent[0]!.headers.accept).toBe("application/json");
    expect(sent[0]!.body).toBe(
      `{"credentials":{"personalAccessTokenName":"${PAT.name}","personalAccessTokenSecret":"${PAT.secret}","site":{"contentUrl":"${SITE}"}}}`,
    );
    const listed = (await rig.call("GET", "/connections?toolkit=tableau")).json.connections.find((c: { id: string }) => c.id === id);
    expect(listed.config).toEqual({ pod: POD, site: SITE, siteId: SITE_ID, userId: USER_ID });
    const res = await workbooks(id);
    expect(res.json).toMatchObject({ successful: true, data: { pagination: { totalAvailable: "0" } } });
    const call = rig.at(TABLEAU, `/api/3.22/sites/${SITE_ID}/workbooks`).at(-1)!;
    expect(live.has(call.headers["x-tableau-auth"]!)).toBe(true);
    expect(call.headers.authorization).toBeUndefined();
    expect(signIns().length).toBe(before + 1);
  });

  it("connects on the connect page, asking the token name, its secret (hidden) and the inputs", async () => {
    const started = await rig.call("POST", "/auth", { toolkit: "tableau" });
    expect(started.status, started.text).toBe(200);
    const done = await rig.submitPage(started.json.authorizationUrl, {
      tokenName: PAT.name,
      tokenSecret: PAT.secret,
      "input.pod": POD,
      "input.site": SITE,
    });
    expect(done.page).toMatch(/name="tokenName" type="text"/);
    expect(done.page).toMatch(/name="tokenSecret" type="password"/);
    expect(done.page).toMatch(/name="input\.pod"/);
    expect(done.status, done.text).toBe(200);
    expect((await rig.call("GET", `/auth/${started.json.authorizationId}`)).json.status).toBe("connected");
  });

  it("a wrong secret is a 400 with Tableau's sentence and no secret; an answer without the token names credentials.token", async () => {
    const wrong = mint("wrong/");
    const bad = await rig.call("POST", "/auth", {
      toolkit: "tableau",
      config: { pod: POD, site: SITE },
      credentials: { tokenName: PAT.name, tokenSecret: wrong },
    });
    expect(bad.status).toBe(400);
    expect(bad.json.error).toBe(
      "Tableau Cloud refused the credentials (401: Error signing in to Tableau Server). Check them and connect again.",
    );
    dropToken = true;
    try {
      const missing = await rig.call("POST", "/auth", {
        toolkit: "tableau",
        config: { pod: POD, site: SITE },
        credentials: { tokenName: PAT.name, tokenSecret: PAT.secret },
      });
      expect(missing.status).toBe(400);
      expect(missing.json.error).toMatch(/has no usable "credentials\.token"/);
    } finally {
      dropToken = false;
    }
    rig.assertNoLeaks([wrong, PAT.secret]);
  });

  it("20 concurrent calls over two handlers, the session expired: one sign-in between them", async () => {
    const id = await connectTableau();
    await rig.expire(id);
    delayMs = 150;
    const before = signIns().length;
    try {
      const results = await Promise.all(Array.from({ length: 20 }, (_, i) => workbooks(id, i % 2)));
      expect(results.map((r) => r.json?.successful ?? r.text)).toEqual(Array(20).fill(true));
    } finally {
      delayMs = 0;
    }
    expect(signIns().length - before).toBe(1);
  });

  it("a session Tableau ended (401) signs in again once", async () => {
    const id = await connectTableau();
    live = new Set();
    const before = signIns().length;
    const res = await workbooks(id);
    expect(res.json.successful, res.text).toBe(true);
    expect(signIns().length - before).toBe(1);
  });
});

describe("IBM Cloud: an IAM API key exchanged for an access token", () => {
  it("posts the documented form pairs and calls the Resource Controller with the token as Bearer", async () => {
    const res = await rig.call("POST", "/auth", { toolkit: "ibm-cloud", credentials: { apiKey: IBM_KEY } });
    expect(res.status, res.text).toBe(201);
    const sent = rig.at(IAM, "/identity/token").at(-1)!;
    expect(sent.method).toBe("POST");
    expect(sent.headers["content-type"]).toBe("application/x-www-form-urlencoded");
    expect(sent.body).toBe(`grant_type=urn%3Aibm%3Aparams%3Aoauth%3Agrant-type%3Aapikey&apikey=${IBM_KEY}`);
    const through = await rig.passthrough("ibm-cloud", "resource_instances", res.json.connection.id, 1);
    expect(through.status, through.text).toBe(200);
    expect(JSON.parse(through.text)).toEqual({ rows_count: 0, resources: [] });
  });

  it("a key IBM does not know is a 400 with IBM's sentence; an answer without expires_in names it", async () => {
    const wrong = mint("ibmkey_");
    const bad = await rig.call("POST", "/auth", { toolkit: "ibm-cloud", credentials: { apiKey: wrong } });
    expect(bad.status).toBe(400);
    expect(bad.json.error).toBe(
      "IBM Cloud refused the credentials (400: Provided API key could not be found.). Check them and connect again.",
    );
    dropLifetime = true;
    try {
      const missing = await rig.call("POST", "/auth", { toolkit: "ibm-cloud", credentials: { apiKey: IBM_KEY } });
      expect(missing.status).toBe(400);
      expect(missing.json.error).toBe(
        "IBM Cloud's token answer has no usable \"expires_in\" (the token's lifetime in seconds), so no token could be kept.",
      );
    } finally {
      dropLifetime = false;
    }
    rig.assertNoLeaks([wrong, IBM_KEY]);
  });
});
