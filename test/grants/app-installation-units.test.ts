/**
 * The GitHub App installation grant called directly with a recording fetch: the app JWT's claims
 * and header, the request as sent (the toolkit's headers, GitHub's Accept by default), the
 * installation id's checks, and the deployer's missing or unreadable key, with their sentences.
 */
import { decodeJwt, decodeProtectedHeader } from "jose";
import { beforeAll, describe, expect, it } from "vitest";
import type { HandlerContext } from "../../src/context/context.js";
import { ToolsError } from "../../src/core/errors.js";
import type { AppInstallationScheme } from "../../src/credentials/grant-schemes.js";
import { INSTALLATION_ID_PROBLEM } from "../../src/grants/app-installation.js";
import { GRANTS, GrantError } from "../../src/grants/index.js";
import { defineToolkit } from "../../src/index.js";
import { type TestKey, testKey } from "./jwt-emulation.js";

let key: TestKey;
beforeAll(async () => {
  key = await testKey();
});

function toolkitWith(headers?: Record<string, string>) {
  return defineToolkit({
    slug: "gh",
    name: "GitHub",
    description: "An API.",
    baseUrl: "https://api.github.test",
    ...(headers ? { headers } : {}),
    auth: { type: "none" },
    tools: [],
  });
}

function grant(
  scheme: Partial<AppInstallationScheme>,
  credential: Record<string, string> = { installationId: "42" },
  toolkit = toolkitWith(),
  answer: () => Response = () =>
    Response.json({ token: "ghs_tok", expires_at: new Date(Date.now() + 3_600_000).toISOString() }, { status: 201 }),
) {
  const sent: Array<{ url: string; headers: Record<string, string> }> = [];
  const fetch = (async (url: string, init: RequestInit) => {
    sent.push({ url: String(url), headers: init.headers as Record<string, string> });
    return answer();
  }) as unknown as typeof globalThis.fetch;
  const run = GRANTS.appInstallation({
    ctx: { fetch } as unknown as HandlerContext,
    toolkit,
    scheme: { type: "appInstallation", appId: "1234", privateKey: key.pkcs1, ...scheme },
    credential,
    config: {},
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

describe("appInstallation", () => {
  it("the app JWT: RS256 JWT header, iss the app id, iat a minute back, exp nine minutes on; GitHub's Accept by default", async () => {
    const { sent, run } = grant({}, { installationId: " 42 " });
    const before = Math.floor(Date.now() / 1000);
    const token = await run;
    expect(token.accessToken).toBe("ghs_tok");
    expect(sent).toHaveLength(1);
    expect(sent[0]?.url).toBe("https://api.github.test/app/installations/42/access_tokens");
    expect(sent[0]?.headers.accept).toBe("application/vnd.github+json");
    const jwt = (sent[0]?.headers.authorization ?? "").replace(/^Bearer /, "");
    expect(decodeProtectedHeader(jwt)).toEqual({ alg: "RS256", typ: "JWT" });
    const claims = decodeJwt(jwt);
    expect(claims.iss).toBe("1234");
    expect(Math.abs((claims.iat ?? 0) - (before - 60))).toBeLessThanOrEqual(2);
    expect((claims.exp ?? 0) - (claims.iat ?? 0)).toBe(600);
  });

  it("the toolkit's own Accept and headers are kept", async () => {
    const { sent, run } = grant({}, undefined, toolkitWith({ Accept: "application/json", "X-GitHub-Api-Version": "2022-11-28" }));
    await run;
    expect(sent[0]?.headers.accept).toBe("application/json");
    expect(sent[0]?.headers["x-github-api-version"]).toBe("2022-11-28");
  });

  it("an installation id that is not a number, or none: a refusal, no request", async () => {
    for (const credential of [{ installationId: "abc" }, {}] as Record<string, string>[]) {
      const { sent, run } = grant({}, credential);
      const error = await thrown(run);
      expect(error).toBeInstanceOf(GrantError);
      expect(error.message).toBe(INSTALLATION_ID_PROBLEM);
      expect(sent).toHaveLength(0);
    }
  });

  it("the deployer's app id or key missing, or the mode unconfigured: a 400 for the operator", async () => {
    for (const scheme of [{ appId: "" }, { privateKey: "" }]) {
      const error = await thrown(grant(scheme).run);
      expect(error).toBeInstanceOf(ToolsError);
      expect((error as ToolsError).code).toBe("invalid_request");
      expect(error.message).toBe("GitHub's app installation mode has no app id or private key on this server; its operator must set them.");
    }
    const unconfigured = await thrown(grant({ unconfigured: "Set TOOLS_PROXY_GH_APP_ID." }).run);
    expect(unconfigured.message).toBe("Set TOOLS_PROXY_GH_APP_ID.");
  });

  it("an unreadable key: a 400 naming the app's key, for the operator", async () => {
    const error = await thrown(grant({ privateKey: "not a key" }).run);
    expect(error).toBeInstanceOf(ToolsError);
    expect((error as ToolsError).code).toBe("invalid_request");
    expect(error.message).toMatch(/^The server's private key of the GitHub app .*Its operator must fix it\.$/);
  });

  it("a refusal quoting the app JWT does not repeat it", async () => {
    let jwt = "";
    const { sent, run } = grant({}, undefined, undefined, () => Response.json({ message: `Bad JWT ${jwt}` }, { status: 401 }));
    const pending = thrown(run);
    await expect.poll(() => sent.length).toBe(1);
    jwt = (sent[0]?.headers.authorization ?? "").replace(/^Bearer /, "");
    const error = await pending;
    expect(error).toBeInstanceOf(GrantError);
    expect(error.message).not.toContain(jwt.split(".")[2] ?? "no signature");
  });
});
