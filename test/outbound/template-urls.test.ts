/**
 * A tool may send its URL as the toolkit writes it, placeholders and all (JSON toolkit and
 * generated tools do): the check fills the base's placeholders from the connection before the
 * URL policy reads it, so it is held to the connection's own tenant.
 */
import { describe, expect, it } from "vitest";
import type { AuthScheme } from "../../src/credentials/auth-schemes.js";
import { placedBaseUrls } from "../../src/outbound/fetch.js";

const bearer = { type: "bearer" } as AuthScheme;
const credential = { type: "bearer", token: "t" } as const;

describe("template URLs", () => {
  it("fill the connection's params of the base URL", () => {
    const { checkUrl } = placedBaseUrls(["https://{dc}.api.mailchimp.com/3.0"], bearer, credential, { dc: "us6" });
    expect(checkUrl("https://{dc}.api.mailchimp.com/3.0/lists?count=1").href).toBe("https://us6.api.mailchimp.com/3.0/lists?count=1");
    expect(checkUrl("/lists").href).toBe("https://us6.api.mailchimp.com/3.0/lists");
  });

  it("fill a path placeholder of the base too, and refuse a connection without the value", () => {
    const base = "https://api.atlassian.com/ex/jira/{cloudId}";
    expect(placedBaseUrls([base], bearer, credential, { cloudId: "c1" }).checkUrl(`${base}/rest/api/3/field`).href).toBe(
      "https://api.atlassian.com/ex/jira/c1/rest/api/3/field",
    );
    expect(() => placedBaseUrls([base], bearer, credential, {}).checkUrl(`${base}/rest/api/3/field`)).toThrow(/placeholder \{cloudId\}/);
  });

  it("stay held to the base: a template URL cannot climb out of the connection's path", () => {
    const base = "https://api.atlassian.com/ex/jira/{cloudId}";
    expect(() => placedBaseUrls([base], bearer, credential, { cloudId: "c1" }).checkUrl(`${base}/../c2/rest`)).toThrow(/not allowed/);
  });
});
