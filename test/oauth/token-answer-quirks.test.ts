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
