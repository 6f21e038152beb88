/**
 * Writes docs/catalog.md, the page that lists every provider of the built-in catalog, from the
 * catalog itself (the provider files and the curated tools). Run it after changing either:
 *
 *   npm run catalog:docs
 *
 * test/catalog/docs.test.ts fails when the page is out of date.
 */
import { writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import {
  appVariables,
  catalogToolkit,
  clientVariables,
  generatedSources,
  type McpServerDefinition,
  mcpProviders,
  mcpToolkitSlug,
  type ProviderDefinition,
  privateKeyVariable,
  providers,
} from "../src/catalog/index.js";

export const CATALOG_PAGE = fileURLToPath(new URL("../docs/catalog.md", import.meta.url));

type Mode = ProviderDefinition["auth"][number];

const MODE_NAMES: Record<Mode["type"], string> = {
  oauth2: "OAuth 2",
  apiKey: "API key",
  bearer: "Bearer token",
  basic: "Username and password",
  none: "No credential",
  clientCredentials: "Client credentials",
  tokenExchange: "Two-step token exchange",
  jwtBearer: "JWT bearer",
  appInstallation: "App installation",
};

/** The text of docs/catalog.md for the catalog as it is now. */
export function renderCatalogPage(): string {
  const lines = [
    "# Provider catalog",
    "",
    "<!-- Generated from the catalog by `npm run catalog:docs`: edit the provider files, not this page. -->",
    "",
    `\`tools-proxy/catalog\` holds ${providers.length} provider${providers.length === 1 ? "" : "s"}, ready to serve with your own OAuth client: \`catalogToolkit(slug, { clientId, clientSecret })\`,`,
    'a `{ "provider": "<slug>", ... }` entry in a toolkit file, or `tools-proxy serve --catalog`, which reads an OAuth',
    "provider's client from `TOOLS_PROXY_<SLUG>_CLIENT_ID` and `TOOLS_PROXY_<SLUG>_CLIENT_SECRET`. See",
    "[toolkits](guide/toolkits.md) and [OAuth connections](guide/oauth.md).",
    "",
    "Each catalog toolkit's `icon` is `catalog:<slug>`, which the routes answer as the URL of",
    "`GET /icons/<slug>.svg` under the handler's `basePath`: with the `publicUrl` option's origin, or",
    "without an origin when there is none (never from the request's Host). The handler serves the icon",
    "itself (the brand's glyph from simple-icons, or a monogram), so pages need not load it from elsewhere.",
    "",
    "Search (`GET /search?keywords=`) matches names, slugs, aliases, categories and descriptions, then",
    "the names and descriptions of a provider's tools.",
    "",
    "Tools are curated (written and tested by hand) or generated from the provider's published OpenAPI",
    "document (`npm run catalog:tools`, see [generated tools](guide/generated-tools.md)); generated tools are",
    "loaded on first use, and each provider marks a default set of the operations agents use most.",
    "",
    `${mcpProviders.length} providers also list their vendor's own remote MCP server, served as the toolkit \`<slug>-mcp\` whose tools`,
    'the vendor keeps (`mcpToolkit(slug)`, or `{ "provider": "<slug>", "mcp": true }`): see [remote MCP servers](guide/remote-mcp.md).',
    "",
    "| provider | slug | categories | ways to connect | tools (curated, generated) |",
    "| --- | --- | --- | --- | --- |",
    ...providers.map(
      (p) =>
        `| [${text(p.name)}](#${anchor(p.name)}) | \`${p.slug}\` | ${p.categories.map(text).join(", ")} | ` +
        `${p.auth.map((mode) => MODE_NAMES[mode.type]).join(", ")}${p.limitation ? " (not usable yet, see below)" : ""} | ` +
        `${catalogToolkit(p.slug).tools.length}, ${catalogToolkit(p.slug).lazy?.count ?? 0} |`,
    ),
    "",
    "## Providers",
    ...providers.flatMap(providerSection),
  ];
  return `${lines.join("\n")}\n`;
}

function providerSection(provider: ProviderDefinition): string[] {
  const tools = catalogToolkit(provider.slug).tools;
  const lines = [
    "",
    `### ${text(provider.name)}`,
    "",
    markdown(provider.description),
    "",
    ...(provider.limitation ? [`> **${sentence(markdown(provider.limitation))}**`, ""] : []),
    `- Slug: \`${provider.slug}\``,
    `- Categories: ${provider.categories.map(text).join(", ")}`,
    ...(provider.aliases.length ? [`- Also found as: ${provider.aliases.map(text).join(", ")}`] : []),
    `- API documentation: <${provider.docsUrl}>`,
    `- Ways to connect:`,
    ...provider.auth.map((mode) => `  - ${modeLine(provider, mode)}`),
  ];
  if (provider.inputs?.length) {
    lines.push("- Connection inputs (`POST /auth { config }`):");
    for (const input of provider.inputs) {
      const details = [
        input.description ? sentence(markdown(input.description)) : "",
        input.example ? `Example: \`${input.example}\`.` : "",
        input.pattern ? `Pattern: \`${input.pattern}\`.` : "",
        input.values ? `One of ${input.values.map((value) => `\`${value}\``).join(", ")}.` : "",
        input.hosts ? `One of the hosts ${input.hosts.map((host) => `\`${host}\``).join(", ")} (\`*\` is one DNS label).` : "",
        input.default ? `Optional, default \`${input.default}\`.` : "",
      ].filter(Boolean);
      lines.push(`  - \`${input.name}\`, ${text(input.label)}${details.length ? `: ${details.join(" ")}` : ""}`);
    }
  }
  if (provider.unconfirmed?.length) {
    lines.push("- Not confirmed on the provider's pages (or limits of this entry):");
    for (const fact of provider.unconfirmed) lines.push(`  - ${sentence(markdown(fact))}`);
  }
  if (tools.length) {
    lines.push(`- Tools (${tools.length}):`);
    for (const tool of tools) lines.push(`  - \`${tool.slug}\`: ${markdown(firstSentence(tool.description))}`);
  } else {
    lines.push("- Tools: none curated yet; `POST /proxy` and the passthrough reach the whole API with the connection's credential.");
  }
  lines.push(...generatedLines(provider.slug));
  if (provider.mcp) lines.push(...mcpLines(provider.slug, provider.mcp));
  return lines;
}

/** The vendor's own remote MCP server: the toolkit it is served as, its URL, how it connects, the page that gives it. */
function mcpLines(slug: string, server: McpServerDefinition): string[] {
  const connects =
    server.auth === "provider"
      ? "with the provider's own ways to connect"
      : server.dynamicRegistration === false
        ? `by the MCP authorization spec, with a client you register (\`${clientVariables(mcpToolkitSlug(slug)).id}\`)`
        : server.dynamicRegistration
          ? "by the MCP authorization spec (the client registers itself)"
          : "by the MCP authorization spec (the client registers itself where the server allows it, else configure one)";
  return [
    `- Remote MCP server: \`${mcpToolkitSlug(slug)}\` at <${server.url}>${server.transport === "sse" ? " (HTTP+SSE)" : ""}, connected ${connects}; source <${server.source}>.`,
    ...(server.limitation ? [`  - ${sentence(markdown(server.limitation))}`] : []),
  ];
}

/** A provider's generated tools: how many, from which document, and its default set. */
function generatedLines(slug: string): string[] {
  const lazy = catalogToolkit(slug).lazy;
  const source = generatedSources().find((entry) => entry.slug === slug)?.source;
  if (!lazy || !source) return ["- Generated tools: none (see [generated tools](guide/generated-tools.md) for why)."];
  const defaults = lazy.summaries.filter((summary) => summary.default);
  return [
    `- Generated tools (${lazy.count}), from ${markdown(source)}; the default set (${defaults.length}):`,
    ...defaults.map((summary) => `  - \`${summary.slug}\`: ${markdown(firstSentence(summary.description))}`),
  ];
}

function modeLine(provider: ProviderDefinition, mode: Mode): string {
  const name = MODE_NAMES[mode.type];
  const head = mode.label ? `${name}, "${text(mode.label)}"` : name;
  const parts: string[] = [];
  if (mode.type === "oauth2") {
    parts.push(mode.scopes.length ? `scopes ${mode.scopes.map((s) => `\`${s}\``).join(", ")}` : "no scopes");
    if (mode.userScopes?.length) parts.push(`user scopes ${mode.userScopes.map((s) => `\`${s}\``).join(", ")}`);
    const variables = clientVariables(provider.clientOf ?? provider.slug);
    parts.push(`client from \`${variables.id}\` and \`${variables.secret}\``);
  }
  if (mode.type === "apiKey") parts.push(`sent in the ${mode.in} \`${mode.name}\``);
  if (mode.type === "jwtBearer") {
    if (mode.scopes?.length) parts.push(`scopes ${mode.scopes.map((s) => `\`${s}\``).join(", ")}`);
    parts.push(
      mode.signer === "serviceAccount"
        ? "the person pastes a service account key file"
        : `signed with the key in \`${privateKeyVariable(provider.slug)}\``,
    );
    if (mode.subject) parts.push(`${mode.subject.optional ? "optional " : ""}subject: ${text(mode.subject.label)}`);
  }
  if (mode.type === "appInstallation") {
    parts.push(
      `the app from \`${appVariables(provider.slug).id}\` and \`${appVariables(provider.slug).privateKey}\`; the installation chosen per connection`,
    );
  }
  if (mode.helpUrl) parts.push(`get one at <${mode.helpUrl}>`);
  return parts.length ? `${head}: ${parts.join("; ")}` : head;
}

/** Text that ends with a full stop. */
function sentence(value: string): string {
  return /[.!?]$/.test(value.trim()) ? value.trim() : `${value.trim()}.`;
}

/** The first sentence of a description, for a one-line list. */
function firstSentence(description: string): string {
  const line = description.trim().split("\n")[0]!;
  const end = line.search(/(?<!\b(?:e\.g|i\.e|etc|vs))\.(\s|$)/);
  return end === -1 ? line : line.slice(0, end + 1);
}

/** A description, which its authors write as Markdown (with code spans): only `<` outside code spans is escaped, so no HTML gets in. */
function markdown(value: string): string {
  return value
    .split(/(`+[^`]*`+)/)
    .map((part, index) => (index % 2 ? part : part.replace(/</g, "&lt;")))
    .join("");
}

/** Text with the characters Markdown would read as markup escaped. */
function text(value: string): string {
  return value.replace(/[\\`*_[\]<>|#]/g, (c) => `\\${c}`);
}

/** The anchor GitHub gives a heading (lower case, punctuation dropped, spaces as hyphens). */
function anchor(heading: string): string {
  return text(heading)
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N} _-]/gu, "")
    .replace(/ /g, "-");
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  writeFileSync(CATALOG_PAGE, renderCatalogPage());
  console.log(`Wrote ${CATALOG_PAGE}`);
}
