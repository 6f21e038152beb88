import { describe, expect, it } from "vitest";
import { defineToolkit, oauth2 } from "../../src/index.js";

const kit = (authorizationUrl: string) =>
  defineToolkit({
    slug: "kit",
    name: "Kit",
    description: "d",
    baseUrl: "https://api.kit.example",
    auth: oauth2({ authorizationUrl, tokenUrl: "https://api.kit.example/oauth/token", clientId: "c" }),
    tools: [],
  });

describe("OAuth endpoints", () => {
  it("refuse a fragment (RFC 6749 3.1): the request's parameters would land before it, unread by a hash-routed page", () => {
    for (const url of ["https://app.kit.example/#/oauth/authorize", "https://app.kit.example/authorize#"]) {
      expect(() => kit(url), url).toThrow("has a fragment (#...), which OAuth endpoints may not have");
    }
    expect(kit("https://app.kit.example/oauth/authorize").auth.type).toBe("oauth2");
  });
});
