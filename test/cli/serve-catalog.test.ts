import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { mcpProviders, mcpToolkitSlug, providers } from "../../src/catalog/index.js";
import { callApi, missingBuild, type ServeProcess, startServe } from "../support/serve-process.js";

/** `serve --catalog` and `{ "provider": ... }` entries, in the real command. */

const skip = missingBuild ? `serve --catalog (skipped: ${missingBuild})` : "serve --catalog";

describe.skipIf(missingBuild)(skip, () => {
  const dir = mkdtempSync(join(tmpdir(), "serve-catalog-"));
  const started: ServeProcess[] = [];
  afterAll(async () => {
    await Promise.all(started.map((serve) => serve.stop()));
    rmSync(dir, { recursive: true, force: true });
  });

  type Found = { slug: string; configured: boolean; toolCount: number };
  async function searchAll(serve: ServeProcess): Promise<Found[]> {
    const found: Found[] = [];
    let cursor: string | null = null;
    do {
      const query: string = `/search?limit=200${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`;
      const page = (await (await callApi(serve.api, serve.key!, query)).json()) as { toolkits: Found[]; nextCursor: string | null };
      found.push(...page.toolkits);
      cursor = page.nextCursor;
    } while (cursor);
    return found;
  }

  it("serves every provider and every provider's MCP server; one with its client's variables set is configured, the others are listed as not", async () => {
    const serve = await startServe(["--memory", "--no-demo", "--catalog"], {
      TOOLS_PROXY_SLACK_CLIENT_ID: "slack-client",
      TOOLS_PROXY_SLACK_CLIENT_SECRET: "slack-secret",
    });
    started.push(serve);
    const slugs = [...providers.map((p) => p.slug), ...mcpProviders.map((p) => mcpToolkitSlug(p.slug))];
    expect(serve.stdout()).toMatch(new RegExp(`toolkits: ${slugs.length} with \\d+ tools; \\d+ OAuth providers are not configured`));
    const toolkits = await searchAll(serve);
    expect(toolkits.map((t) => t.slug).sort()).toEqual(slugs.sort());
    const bySlug = Object.fromEntries(toolkits.map((t) => [t.slug, t]));
    expect(bySlug.slack!.configured).toBe(true);
    expect(bySlug.github!.configured).toBe(false);
    expect(bySlug["brave-search"]!.configured).toBe(true);
    expect(bySlug.github!.toolCount).toBeGreaterThanOrEqual(6);
    const refused = await callApi(serve.api, serve.key!, "/auth", { toolkit: "github" });
    expect(refused.status).toBe(400);
    expect(((await refused.json()) as { error: string }).error).toMatch(
      /TOOLS_PROXY_GITHUB_CLIENT_ID and TOOLS_PROXY_GITHUB_CLIENT_SECRET/,
    );
  });

  it('a toolkit file\'s { "provider": "github", ... } entry configures GitHub, in place of the catalog\'s', async () => {
    const file = join(dir, "providers.json");
    writeFileSync(file, JSON.stringify([{ provider: "github", clientId: "${GH_ID}", clientSecret: "${GH_SECRET}" }]));
    const serve = await startServe(["--memory", "--no-demo", "--catalog", "--toolkits", file], { GH_ID: "gh-id", GH_SECRET: "gh-secret" });
    started.push(serve);
    const github = (await searchAll(serve)).filter((t) => t.slug === "github");
    expect(github).toHaveLength(1);
    expect(github[0]!.configured).toBe(true);
    const res = await callApi(serve.api, serve.key!, "/auth", { toolkit: "github" });
    expect(res.status).toBe(200);
    const url = new URL(((await res.json()) as { authorizationUrl: string }).authorizationUrl);
    expect(url.origin + url.pathname).toBe("https://github.com/login/oauth/authorize");
    expect(url.searchParams.get("client_id")).toBe("gh-id");
  });
});
