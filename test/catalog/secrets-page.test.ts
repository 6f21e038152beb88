import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { getProvider } from "../../src/catalog/index.js";

/**
 * docs/guide/auth/secrets-and-placements.md shows catalog modes as examples: each JSON block is the
 * first mode of a provider (Datadog's, then Trello's), as the provider file
 * holds it, less what the page leaves out (help and sources, the who-am-I request).
 */
const page = readFileSync(new URL("../../docs/guide/auth/secrets-and-placements.md", import.meta.url), "utf8");
const SLUGS = ["datadog", "trello"];
const blocks = [...page.matchAll(/<!-- checked by test\/catalog\/secrets-page\.test\.ts -->\n\n```json\n([\s\S]*?)```/g)].map(
  (match, index) => ({
    slug: SLUGS[index] ?? "",
    mode: JSON.parse(match[1]!) as Record<string, unknown>,
  }),
);

describe("docs/guide/auth/secrets-and-placements.md", () => {
  it("shows two catalog modes", () => {
    expect(blocks).toHaveLength(SLUGS.length);
  });

  it.each(blocks)("shows $slug's mode as its provider file holds it", ({ slug, mode }) => {
    const { helpUrl: _help, sources: _sources, identify: _identify, ...held } = getProvider(slug)!.auth[0] as Record<string, unknown>;
    expect(mode).toEqual(held);
  });
});
