/**
 * What every curated tool shares through `src/toolkits/provider-requests.ts`, seen from an agent
 * through the real handler: the query as the provider receives it, and a provider's failure that
 * quotes the connection's token, which reaches neither the agent nor the logs.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { githubTools } from "../../../src/catalog/tools/github.js";
import { CREDENTIALS } from "../../support/harness.js";
import { reply, toolkitHarness } from "./support.js";

let t: Awaited<ReturnType<typeof toolkitHarness>>;

beforeAll(async () => {
  t = await toolkitHarness({ slug: "github", name: "GitHub", baseUrl: "https://api.github.com", tools: githubTools });
});
afterAll(() => t.close());

describe("curated tools' requests", () => {
  it("send a space in the query as %20, as the OpenAPI runner does", async () => {
    t.api.answer(() => reply({ total_count: 0, incomplete_results: false, items: [] }));
    await t.execute("GITHUB_SEARCH_ISSUES", { query: "is:pr author:alice" });
    expect(t.api.sent[0]!.url.search).toBe("?q=is%3Apr%20author%3Aalice&per_page=30&page=1");
  });

  it("a failure quoting the connection's token gives the agent the status, the reason and the advice, the token redacted", async () => {
    t.api.answer(() => reply({ message: `Bad credentials: ${CREDENTIALS.bearerToken}` }, 401));
    const result = await t.execute("GITHUB_GET_ISSUE", { owner: "octo", repo: "app", issueNumber: 1 });
    expect(result).toMatchObject({ successful: false, code: "upstream_error", upstreamStatus: 401 });
    expect(result.error).toBe(
      "GitHub answered 401: Bad credentials: [redacted]. The GitHub connection's credential was refused: reconnect it with POST /auth and call again.",
    );
  });
});
