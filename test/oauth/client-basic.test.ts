/**
 * HTTP Basic client authentication (`client_secret_basic`), in the two spellings a provider may
 * want: `raw` (the default, `base64(id:secret)` as Notion's, GitHub's and most providers' pages
 * build it) and `form` (RFC 6749 2.3.1: id and secret form-encoded first, for a server that decodes
 * them). The catalog's flows prove `raw` against emulations that compare the header byte for byte
 * (test/catalog/flows/notion.test.ts); here `form` is proved against a real RFC server
 * (node-oidc-provider), with a secret whose raw spelling such a server reads differently.
 */
import * as oauth from "oauth4webapi";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { clientBasicAuthorization } from "../../src/credentials/auth-schemes.js";
import {
  CALLBACK_URL,
  createOAuthHarness,
  listConnections,
  notesToolkit,
  type OAuthHarness,
  tokenCalls,
} from "../support/oauth-harness.js";
import { type OidcServer, startOidcServer } from "../support/oidc-server.js";

/** A secret with the characters form-decoding changes: `+` reads as a space, `%2B` as `+`. */
const SECRET = `s3cr+t %2B-${Math.random().toString(36).slice(2)}_0123456789abcdef`;
const CLIENT_ID = "6f1c2a5e-93d1-4c7b-9a0e-5b1f2d3c4e5f";

describe("clientBasicAuthorization", () => {
  it("raw is base64 of id:secret as they stand", () => {
    expect(clientBasicAuthorization(CLIENT_ID, "secret_abc-123")).toBe(
      `Basic ${Buffer.from(`${CLIENT_ID}:secret_abc-123`).toString("base64")}`,
    );
    expect(clientBasicAuthorization("ïd", "sécret", "raw")).toBe(`Basic ${Buffer.from("ïd:sécret", "utf8").toString("base64")}`);
  });

  it.each([
    [CLIENT_ID, "secret_abc-123"],
    ["a:b", SECRET],
    ["~!*'()._-", "a b+c%d&e=f"],
  ])("form is byte for byte what oauth4webapi's ClientSecretBasic sends (%s)", async (id, secret) => {
    const headers = new Headers();
    await oauth.ClientSecretBasic(secret)({ issuer: "https://as.test" }, { client_id: id }, new URLSearchParams(), headers);
    expect(clientBasicAuthorization(id, secret, "form")).toBe(headers.get("authorization"));
  });
});

describe("client_secret_basic against an RFC 6749 server", () => {
  let as: OidcServer;
  let h: OAuthHarness;
  let agent: string;

  beforeAll(async () => {
    as = await startOidcServer({ redirectUris: [CALLBACK_URL], clientId: CLIENT_ID, clientSecret: SECRET });
    h = await createOAuthHarness({
      as,
      toolkits: [
        notesToolkit(as, { slug: "notes-form", prefix: "FORM", auth: { clientBasicEncoding: "form" } }),
        notesToolkit(as, { slug: "notes-raw", prefix: "RAW" }),
      ],
    });
    agent = await h.issueAgentKey("agent-basic");
  });
  afterAll(async () => {
    h?.assertNoLeaks();
    await as?.close();
  });

  it("form: the exchange and the revocation authenticate with the form-encoded pair", async () => {
    const started = await h.startAuth(agent, { toolkit: "notes-form" });
    const mark = as.tokenRequests.length;
    const res = await h.callback(await as.authorizeWithFetch(started.authorizationUrl));
    expect(res.status, JSON.stringify(res.json)).toBe(200);
    expect(tokenCalls(as, mark)).toEqual([["authorization_code", 200]]);
    const [connection] = await listConnections(h, agent);
    const revocations = as.revocations.length;
    expect((await h.call("DELETE", `/connections/${connection!.id}`, { key: agent })).status).toBe(204);
    expect(as.revocations.slice(revocations).map((r) => [r.authMethod, r.status])).toEqual([
      ["client_secret_basic", 200],
      ["client_secret_basic", 200],
    ]);
  });

  it("raw (the default): the same secret is another secret to a server that form-decodes it, so it refuses the client", async () => {
    const started = await h.startAuth(agent, { toolkit: "notes-raw" });
    const mark = as.tokenRequests.length;
    const res = await h.callback(await as.authorizeWithFetch(started.authorizationUrl));
    expect(res.json).toEqual({ code: "invalid_request", error: expect.stringMatching(/could not be exchanged/) });
    expect(tokenCalls(as, mark)).toEqual([["authorization_code", 401]]);
  });
});
