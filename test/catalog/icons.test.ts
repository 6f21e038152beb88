/**
 * Catalog icons: the generated file matches the providers, every provider's icon is served without
 * a key as a safe SVG, and catalog toolkits point at that route, from publicUrl and never from Host.
 */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { ICONS_FILE, renderIcons } from "../../scripts/catalog-icons.mjs";
import { iconSvg } from "../../src/catalog/icons.js";
import { catalogToolkit, providers } from "../../src/catalog/index.js";
import { createToolsHandler, issueApiKey, memoryStore, type ToolsHandlerOptions } from "../../src/index.js";

const SECRET = "a-secret-of-at-least-thirty-two-bytes-for-icons";

async function handler(options: ToolsHandlerOptions = {}) {
  const store = memoryStore();
  const { key } = await issueApiKey(store, { workspaceId: "w", agentId: "a" });
  const tools = createToolsHandler({ secret: SECRET, store, toolkits: [catalogToolkit("github")], ...options });
  return { tools, key };
}

describe("src/catalog/icons.generated.ts", () => {
  it("is up to date with the provider files (else run: npm run catalog:icons)", () => {
    expect(readFileSync(ICONS_FILE, "utf8"), "src/catalog/icons.generated.ts is out of date: run `npm run catalog:icons`").toBe(
      renderIcons(),
    );
  });
});

describe("GET /icons/{slug}.svg", () => {
  it.each(providers.map((p) => ({ slug: p.slug, name: p.name, icon: p.icon })))(
    "serves $slug's icon without a key, as a labelled SVG that runs nothing",
    async ({ slug, name, icon }) => {
      const { tools } = await handler();
      const response = await tools(new Request(`http://localhost/proxy/tools/icons/${slug}.svg`));
      expect(response.status).toBe(200);
      expect(response.headers.get("content-type")).toBe("image/svg+xml");
      expect(response.headers.get("x-content-type-options")).toBe("nosniff");
      expect(response.headers.get("content-security-policy")).toMatch(/default-src 'none'/);
      expect(response.headers.get("cache-control")).toMatch(/^public, max-age=\d{5,}/);
      const svg = await response.text();
      expect(svg).toMatch(/^<svg xmlns="http:\/\/www\.w3\.org\/2000\/svg" role="img" viewBox="0 0 24 24"><title>[^<]+<\/title>/);
      expect(svg).toContain(`<title>${name.replace(/&/g, "&#38;")}</title>`);
      // Attributes only: "Ahrefs" in a title is text, an href= or onload= attribute would be a link or a script.
      expect(svg).not.toMatch(/<script|<style|[\s:]href\s*=|\son\w+\s*=/i);
      // A simple-icons brand is drawn as its path; the others as a monogram.
      expect(svg.includes("<path "), svg).toBe(icon !== undefined);
      expect(svg.includes("<text "), svg).toBe(icon === undefined);
    },
  );

  it("answers 404 JSON for a slug the catalog does not have, or another extension", async () => {
    const { tools } = await handler();
    for (const path of ["nope.svg", "constructor.svg", "__proto__.svg", "github.png", "github"]) {
      const response = await tools(new Request(`http://localhost/proxy/tools/icons/${path}`));
      expect(response.status, path).toBe(404);
      expect(await response.json(), path).toMatchObject({ code: "not_found" });
    }
    const unknown = await tools(new Request("http://localhost/proxy/tools/icons/nope.svg"));
    expect((await unknown.json()).error).toMatch(/No icon "nope": icons are served for the catalog's providers/);
  });

  it("is in the OpenAPI document as a public route", async () => {
    const { tools } = await handler();
    const document = await (await tools(new Request("http://localhost/proxy/tools/openapi.json"))).json();
    const operation = document.paths["/proxy/tools/icons/{slug}.svg"].get;
    expect(operation.security).toEqual([]);
    expect(operation.parameters).toEqual([{ name: "slug", in: "path", required: true, schema: { type: "string" } }]);
    expect(Object.keys(operation.responses[200].content)).toEqual(["image/svg+xml"]);
  });
});

describe("a catalog toolkit's icon", () => {
  const iconOf = async (options: ToolsHandlerOptions, url: string, headers: Record<string, string> = {}) => {
    const { tools, key } = await handler(options);
    const search = await tools(new Request(`${url}/search?keywords=github`, { headers: { "x-api-key": key, ...headers } }));
    const details = await tools(new Request(`${url}/toolkit/github`, { headers: { "x-api-key": key, ...headers } }));
    const icons = [(await search.json()).toolkits[0].icon, (await details.json()).icon];
    expect(icons[0]).toBe(icons[1]);
    return icons[0] as string;
  };

  it("is the icon route under publicUrl's origin and the basePath", async () => {
    const options = { publicUrl: "https://app.example.com/some/page", basePath: "/api/tools" };
    expect(await iconOf(options, "http://internal:8080/api/tools", { "x-forwarded-host": "evil.test" })).toBe(
      "https://app.example.com/api/tools/icons/github.svg",
    );
  });

  it("is a path without an origin when there is no publicUrl, whatever the Host says", async () => {
    expect(await iconOf({}, "http://evil.test/proxy/tools", { "x-forwarded-host": "evil.test" })).toBe("/proxy/tools/icons/github.svg");
  });

  it("points at an icon the route serves", async () => {
    const { tools } = await handler();
    expect((await tools(new Request(`http://localhost${await iconOf({}, "http://localhost/proxy/tools")}`))).status).toBe(200);
  });
});

describe("iconSvg", () => {
  it("draws a monogram of the first letter, escaped, in a colour readable on the background", () => {
    expect(iconSvg({ title: "acme", hex: "000000" })).toContain('fill="#FFFFFF"');
    expect(iconSvg({ title: "acme", hex: "000000" })).toMatch(/<title>acme<\/title><rect [^>]*fill="#000000"\/><text [^>]*>A<\/text>/);
    expect(iconSvg({ title: "yellow", hex: "FFE01B" })).toContain('fill="#111111"');
    const odd = iconSvg({ title: `<b>"Tom & Jerry's"</b>`, hex: "336699" });
    expect(odd).toContain("<title>&#60;b&#62;&#34;Tom &#38; Jerry&#39;s&#34;&#60;/b&#62;</title>");
    expect(odd).toMatch(/>&#60;<\/text><\/svg>$/);
  });

  it("draws a brand's path in its colour", () => {
    expect(iconSvg({ title: "X", hex: "000000", path: "M0 0h24v24H0z" })).toBe(
      '<svg xmlns="http://www.w3.org/2000/svg" role="img" viewBox="0 0 24 24"><title>X</title><path fill="#000000" d="M0 0h24v24H0z"/></svg>',
    );
  });
});
