/**
 * What verifyCredential makes of each answer of a "who am I" request (src/connect-link/verify.ts):
 * nothing asked without one, the account on success, a refusal as invalid_request, anything else as
 * unavailable with the failure logged under the credential's redaction.
 */
import { describe, expect, it } from "vitest";
import { verifyCredential } from "../../src/connect-link/verify.js";
import type { HandlerContext } from "../../src/context/context.js";
import { ToolsError } from "../../src/core/errors.js";
import type { AuthScheme, Credential } from "../../src/credentials/auth-schemes.js";
import type { Toolkit } from "../../src/toolkits/define.js";

const toolkit = { slug: "acme", name: "Acme", baseUrls: ["https://{org}.acme.test"], headers: {} } as unknown as Toolkit;
const key: Credential = { type: "apiKey", apiKey: "key-secret-1" };
const scheme: AuthScheme = { type: "apiKey", in: "header", name: "x-api-key", identify: { url: "/me", remoteUser: "login" } };

function context(answer: () => Response | Promise<Response>) {
  const logs: { level: string; message: string; fields: Record<string, unknown>; secrets: unknown }[] = [];
  let calls = 0;
  const ctx = {
    fetch: async () => {
      calls++;
      return answer();
    },
    timeouts: { toolMs: 30_000, proxyMs: 30_000 },
    logger: {
      log: (level: string, message: string, fields: Record<string, unknown>, secrets: unknown) =>
        logs.push({ level, message, fields, secrets }),
    },
  } as unknown as HandlerContext;
  return { ctx, logs, calls: () => calls };
}

describe("verifyCredential", () => {
  it("asks nothing for none, OAuth, or a scheme without a lookup", async () => {
    const { ctx, calls } = context(() => Response.json({ login: "ada" }));
    for (const s of [{ type: "none" }, { type: "oauth2", identify: { url: "/me" } }, { type: "apiKey", in: "header", name: "k" }]) {
      expect(await verifyCredential(ctx, toolkit, s as AuthScheme, key, { org: "o" })).toStrictEqual({ config: {} });
    }
    expect(calls()).toBe(0);
  });

  it("answers the account and values the lookup read", async () => {
    const { ctx } = context(() => Response.json({ login: "ada" }));
    expect(await verifyCredential(ctx, toolkit, scheme, key, { org: "o" })).toStrictEqual({ remoteUser: "ada", config: {} });
  });

  it("refuses a credential the provider refuses, naming the toolkit", async () => {
    const { ctx, logs } = context(() => new Response(null, { status: 401 }));
    const error = await verifyCredential(ctx, toolkit, scheme, key, { org: "o" }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ToolsError);
    expect(error).toMatchObject({
      code: "invalid_request",
      message: "Acme refused these credentials (401 or 403). Check them and send them again.",
    });
    expect(logs).toEqual([]);
  });

  it("is unavailable, retry in 5 s, when the provider answers oddly, and logs why with the credential redacted", async () => {
    const { ctx, logs } = context(() => new Response("<html>", { status: 500 }));
    const error = await verifyCredential(ctx, toolkit, scheme, key, { org: "o" }).catch((e: unknown) => e);
    expect(error).toMatchObject({
      code: "unavailable",
      retryAfter: 5,
      message: "Acme could not be asked whether these credentials work; try again shortly.",
    });
    expect(logs).toHaveLength(1);
    expect(logs[0]).toMatchObject({ level: "warn", message: "could not verify a credential with its provider", secrets: ["key-secret-1"] });
    expect(logs[0]!.fields.toolkit).toBe("acme");
    expect(logs[0]!.fields.error).toBeInstanceOf(Error);
  });

  it("is unavailable when the provider cannot be reached", async () => {
    const { ctx } = context(() => Promise.reject(new TypeError("fetch failed")));
    await expect(verifyCredential(ctx, toolkit, scheme, key, { org: "o" })).rejects.toMatchObject({ code: "unavailable" });
  });

  it("passes on a refusal of the request itself (a config value that cannot fill the URL) as it is", async () => {
    const { ctx, calls } = context(() => Response.json({}));
    await expect(verifyCredential(ctx, toolkit, scheme, key, {})).rejects.toMatchObject({
      code: "invalid_request",
      message: "The connection has no valid value for the base URL placeholder {org}.",
    });
    expect(calls()).toBe(0);
  });
});
