/** docs/catalog.md is generated from the catalog: it must be what the generator writes now. */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { CATALOG_PAGE, renderCatalogPage } from "../../scripts/catalog-docs.js";
import { catalogToolkit, providers } from "../../src/catalog/index.js";

describe("docs/catalog.md", () => {
  const page = readFileSync(CATALOG_PAGE, "utf8");

  it("is up to date with the catalog (else run: npm run catalog:docs)", () => {
    expect(page, "docs/catalog.md is out of date: run `npm run catalog:docs` and commit the page").toBe(renderCatalogPage());
  });

  it.each(providers.map((p) => ({ slug: p.slug, provider: p })))(
    "describes $slug with its auth modes, inputs and tools",
    ({ provider }) => {
      const start = page.indexOf(`\n- Slug: \`${provider.slug}\`\n`);
      expect(start).toBeGreaterThan(-1);
      const section = page.slice(start, page.indexOf("\n### ", start) === -1 ? undefined : page.indexOf("\n### ", start));
      expect(section).toContain(`<${provider.docsUrl}>`);
      for (const category of provider.categories) expect(section).toContain(category);
      for (const mode of provider.auth) {
        if (mode.type === "oauth2") for (const scope of mode.scopes) expect(section).toContain(`\`${scope}\``);
      }
      for (const input of provider.inputs ?? []) expect(section).toContain(`\`${input.name}\``);
      for (const tool of catalogToolkit(provider.slug).tools) expect(section).toContain(`\`${tool.slug}\``);
      // What the provider's pages did not confirm is shown, so that a reader knows what may not work.
      for (const fact of provider.unconfirmed ?? []) expect(section).toContain(fact.slice(0, 60).replace(/</g, "&lt;"));
    },
  );

  it("says a provider that cannot work yet is not usable, in the table and in its section", () => {
    const limited = providers.filter((p) => p.limitation);
    expect(limited.length).toBeGreaterThan(0);
    expect(page.match(/\(not usable yet, see below\)/g)?.length).toBe(limited.length);
    for (const provider of limited) {
      expect(page).toMatch(new RegExp(`\\| \\[${provider.name}\\]\\(#${provider.slug}\\) .*\\(not usable yet, see below\\) \\|`));
      expect(page).toContain(`> **${provider.limitation}**`);
    }
  });
});
