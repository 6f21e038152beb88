import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { getProvider } from "../../src/catalog/index.js";

/**
 * docs/guide/auth/secrets-and-placements.md shows catalog modes as examples: each JSON block is the
 * first mode of a provider (Datadog's, then Trello's), as the provider file
 * holds it, less what the page leaves out (help and sources, the who-am-I request). An OAuth mode
 * (Google Ads') is shown by its type and the fields the page is about, each as the file holds it.
 */
const page = readFileSync(new URL("../../docs/guide/auth/secrets-and-placements.md", import.meta.url), "utf8");
const SLUGS = ["datadog", "trello", "google-ads"];
const PARTIAL = new Set(["google-ads"]);
const blocks = [...page.matchAll(/<!-- checked by test\/catalog\/secrets-page\.test\.ts -->\n\n```json\n([\s\S]*?)```/g)].map(
  (match, index) => ({
    slug: SLUGS[index] ?? "",
    mode: JSON.parse(match[1]!) as Record<string, unknown>,
  }),
);

describe("docs/guide/auth/secrets-and-placements.md", () => {
  it("shows three catalog modes", () => {
    expect(blocks).toHaveLength(SLUGS.length);
  });

  it.each(blocks)("shows $slug's mode as its provider file holds it", ({ slug, mode }) => {
    const { helpUrl: _help, sources: _sources, identify: _identify, ...held } = getProvider(slug)!.auth[0] as Record<string, unknown>;
    const shown = PARTIAL.has(slug) ? Object.fromEntries(Object.keys(mode).map((key) => [key, held[key]])) : held;
    expect(mode).toEqual(shown);
  });
});
