import { describe, expect, it } from "vitest";
import type { OAuth2Scheme } from "../../src/credentials/auth-schemes.js";
import { normalizeTokenAnswer, type TokenAnswer } from "../../src/oauth/token-answer.js";

const scheme = { type: "oauth2" } as OAuth2Scheme;

async function normalize(body: unknown): Promise<{ fields: Record<string, unknown>; raw: TokenAnswer["raw"] }> {
  const answer: TokenAnswer = { raw: null };
  const response = await normalizeTokenAnswer(
    new Response(JSON.stringify(body), { headers: { "content-type": "application/json" } }),
    scheme,
    answer,
  );
  return { fields: (await response.json()) as Record<string, unknown>, raw: answer.raw };
}

describe("token answers that say 'never expires' their own way", () => {
  it("Mailchimp's expires_in: 0 and scope: null are left out, so the token has no expiry and no scope", async () => {
    const { fields, raw } = await normalize({ access_token: "tok", expires_in: 0, scope: null });
    expect(fields).toEqual({ access_token: "tok", token_type: "bearer" });
    expect(raw).toEqual({ access_token: "tok", expires_in: 0, scope: null });
  });

  it("a string zero is the same; a real lifetime and scope are kept", async () => {
    expect((await normalize({ access_token: "tok", expires_in: "0" })).fields).toEqual({ access_token: "tok", token_type: "bearer" });
    expect((await normalize({ access_token: "tok", expires_in: 3600, scope: "read" })).fields).toEqual({
      access_token: "tok",
      expires_in: 3600,
      scope: "read",
      token_type: "bearer",
    });
  });
});

describe("other shapes of a token answer", () => {
  it("a list of scopes is read as the space-separated string of RFC 6749", async () => {
    expect((await normalize({ access_token: "tok", scope: ["read", "write"] })).fields).toEqual({
      access_token: "tok",
      scope: "read write",
      token_type: "bearer",
    });
  });

  it("an error sent with 200 is a 400 with the provider's code; Slack's ok: false the same", async () => {
    for (const body of [
      { error: "bad_verification_code", error_description: "The code is wrong." },
      { ok: false, error: "invalid_code" },
    ]) {
      const response = await normalizeTokenAnswer(Response.json(body), scheme, { raw: null });
      expect(response.status).toBe(400);
      expect(((await response.json()) as { error: string }).error).toBe(body.error);
    }
  });

  it("tokens under tokensAt are lifted to the top, and token types such as bot are read as bearer", async () => {
    const answer: TokenAnswer = { raw: null };
    const response = await normalizeTokenAnswer(
      Response.json({ ok: true, access_token: "xoxb", token_type: "bot", authed_user: { access_token: "xoxp", token_type: "user" } }),
      { ...scheme, tokensAt: "authed_user" },
      answer,
    );
    expect(await response.json()).toEqual({ access_token: "xoxp", token_type: "bearer" });
    expect((answer.raw as { access_token: string }).access_token).toBe("xoxb");
  });
});
