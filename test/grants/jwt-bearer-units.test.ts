/**
 * The JWT bearer grant called directly with a recording fetch: the assertion's claims for each
 * signer, the subject's checks, the request as sent, the answers with and without a lifetime,
 * `tokenConfig`, and each key or answer that cannot work, with the sentence it fails with.
 */
import { decodeJwt, decodeProtectedHeader } from "jose";
import { beforeAll, describe, expect, it } from "vitest";
import type { HandlerContext } from "../../src/context/context.js";
import { ToolsError } from "../../src/core/errors.js";
import type { JwtBearerScheme } from "../../src/credentials/grant-schemes.js";
import { GRANTS, GrantError } from "../../src/grants/index.js";
import { defineToolkit } from "../../src/index.js";
import { keyFile, type TestKey, testKey } from "./jwt-emulation.js";

let key: TestKey;
beforeAll(async () => {
  key = await testKey();
});

const toolkit = defineToolkit({
  slug: "acme",
  name: "Acme",
  description: "An API.",
  baseUrl: "https://api.acme.test/v1",
  auth: { type: "none" },
  tools: [],
});

interface Sent {
  url: string;
  headers: Record<string, string>;
  body: URLSearchParams;
}

function grant(
  scheme: Partial<JwtBearerScheme>,
  credential: Record<string, string>,
  answer: () => Response = () => Response.json({ access_token: "tok", expires_in: 3599 }),
  config: Record<string, string> = {},
) {
  const sent: Sent[] = [];
  const fetch = (async (url: string, init: RequestInit) => {
    sent.push({ url: String(url), headers: init.headers as Record<string, string>, body: new URLSearchParams(init.body as string) });
    return answer();
  }) as unknown as typeof globalThis.fetch;
  const run = GRANTS.jwtBearer({
    ctx: { fetch } as unknown as HandlerContext,
    toolkit,
    scheme: { type: "jwtBearer", signer: "serviceAccount", tokenUrl: "https://auth.acme.test/token", ...scheme },
    credential,
    config,
    signal: new AbortController().signal,
  });
  return { sent, run };
}

async function thrown(run: Promise<unknown>): Promise<Error> {
  return run.then(
    () => {
      throw new Error("no error");
    },
    (e: unknown) => e as Error,
  );
}

describe("jwtBearer", () => {
  it("a service account: iss its email, aud its token_uri, kid its key id, the request as RFC 7523 says", async () => {
    const file = keyFile(key);
    const { sent, run } = grant({ scopes: ["a", "b"] }, { serviceAccountKey: file.text });
    expect(await run).toEqual({ accessToken: "tok", expiresIn: 3599 });
    expect(sent).toHaveLength(1);
    expect(sent[0]?.url).toBe("https://auth.acme.test/token");
    expect(sent[0]?.headers).toEqual({ "content-type": "application/x-www-form-urlencoded", accept: "application/json" });
    expect(sent[0]?.body.get("grant_type")).toBe("urn:ietf:params:oauth:grant-type:jwt-bearer");
    const assertion = sent[0]?.body.get("assertion") ?? "";
    expect(decodeProtectedHeader(assertion)).toEqual({ alg: "RS256", typ: "JWT", kid: file.fields.private_key_id });
    const claims = decodeJwt(assertion);
    expect(claims).toMatchObject({ iss: file.email, aud: file.fields.token_uri, scope: "a b" });
    expect(claims.sub).toBeUndefined();
    expect((claims.exp ?? 0) - (claims.iat ?? 0)).toBe(300);
  });

  it("a subject is trimmed and sent as sub; one with a space or unprintable is refused with the scheme's label, or 'subject'", async () => {
    const file = keyFile(key);
    const ok = grant({}, { serviceAccountKey: file.text, subject: "  alice@acme.test " });
    await ok.run;
    expect(decodeJwt(ok.sent[0]?.body.get("assertion") ?? "").sub).toBe("alice@acme.test");

    const blank = grant({}, { serviceAccountKey: file.text, subject: "   " });
    await blank.run;
    expect(decodeJwt(blank.sent[0]?.body.get("assertion") ?? "").sub).toBeUndefined();

    const unnamed = await thrown(grant({}, { serviceAccountKey: file.text, subject: "alice smith" }).run);
    expect(unnamed).toBeInstanceOf(GrantError);
    expect(unnamed.message).toBe("The subject must be printable, without spaces, at most 256 characters.");
    const named = await thrown(grant({ subject: { label: "User's email" } }, { serviceAccountKey: file.text, subject: "a\tb" }).run);
    expect(named.message).toBe("The User's email must be printable, without spaces, at most 256 characters.");
  });

  it("the deployer's issuer and key: iss the issuer, aud the token URL filled from the config, no kid", async () => {
    const { sent, run } = grant(
      {
        signer: "deployer",
        issuer: "consumer-key",
        privateKey: key.pem,
        tokenUrl: "https://{host}/services/oauth2/token",
        assertionLifetime: 7200,
      },
      { subject: "user@example.com" },
      () => Response.json({ access_token: "tok", instance_url: "https://na1.example.com" }),
      { host: "login.example.com" },
    );
    // No expires_in (Salesforce): no lifetime.
    expect(await run).toEqual({ accessToken: "tok" });
    expect(sent[0]?.url).toBe("https://login.example.com/services/oauth2/token");
    const assertion = sent[0]?.body.get("assertion") ?? "";
    expect(decodeProtectedHeader(assertion)).toEqual({ alg: "RS256", typ: "JWT" });
    const claims = decodeJwt(assertion);
    expect(claims).toMatchObject({ iss: "consumer-key", aud: "https://login.example.com/services/oauth2/token", sub: "user@example.com" });
    expect((claims.exp ?? 0) - (claims.iat ?? 0)).toBe(3600);
  });

  it("tokenConfig: the answer's values kept, a missing one an answer error naming it", async () => {
    const scheme = {
      signer: "deployer" as const,
      issuer: "ck",
      privateKey: key.pem,
      tokenConfig: { instanceUrl: "instance_url" },
    };
    const ok = grant(scheme, {}, () => Response.json({ access_token: "tok", instance_url: "na1" }));
    expect(await ok.run).toEqual({ accessToken: "tok", config: { instanceUrl: "na1" } });
    const missing = await thrown(grant(scheme, {}, () => Response.json({ access_token: "tok" })).run);
    expect(missing).toBeInstanceOf(GrantError);
    expect((missing as GrantError).kind).toBe("answer");
    expect(missing.message).toContain("token answer");
    expect(missing.message).toContain("instance_url");
  });

  it("a JSON answer that is not an object is an answer error, not a crash", async () => {
    const file = keyFile(key);
    for (const body of ["null", '"tok"']) {
      const error = await thrown(
        grant({}, { serviceAccountKey: file.text }, () => new Response(body, { headers: { "content-type": "application/json" } })).run,
      );
      expect(error).toBeInstanceOf(GrantError);
    }
  });

  it("a refusal quoting the assertion does not repeat it", async () => {
    const file = keyFile(key);
    let assertion = "";
    const { sent, run } = grant({}, { serviceAccountKey: file.text }, () => {
      return Response.json({ error: "invalid_grant", error_description: `Bad assertion ${assertion}` }, { status: 400 });
    });
    const pending = thrown(run);
    await expect.poll(() => sent.length).toBe(1);
    assertion = sent[0]?.body.get("assertion") ?? "";
    const error = await pending;
    expect(error).toBeInstanceOf(GrantError);
    expect(error.message).toContain("Acme refused the credentials (400");
    expect(error.message).not.toContain(assertion.split(".")[2] ?? "no signature");
  });

  it("the deployer's issuer or key missing, or a key that cannot be read: a 400 for the operator", async () => {
    for (const scheme of [{ privateKey: key.pem }, { issuer: "ck" }]) {
      const error = await thrown(grant({ signer: "deployer", ...scheme }, {}).run);
      expect(error).toBeInstanceOf(ToolsError);
      expect((error as ToolsError).code).toBe("invalid_request");
      expect(error.message).toBe("Acme's JWT bearer mode has no issuer or private key on this server; its operator must set them.");
    }
    const unreadable = await thrown(grant({ signer: "deployer", issuer: "ck", privateKey: "not a key" }, {}).run);
    expect(unreadable).toBeInstanceOf(ToolsError);
    expect((unreadable as ToolsError).code).toBe("invalid_request");
    expect(unreadable.message).toMatch(/^The server's private key for Acme .*Its operator must fix it\.$/);
  });

  it("a key file that cannot work is a refusal naming the field", async () => {
    const error = await thrown(grant({}, { serviceAccountKey: "{}" }).run);
    expect(error).toBeInstanceOf(GrantError);
    expect((error as GrantError).kind).toBe("refused");
    expect(error.message).toMatch(/^credentials\.serviceAccountKey: /);
  });
});
