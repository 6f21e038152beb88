/**
 * The toolkit's base URL from the document's first server. A server variable that is a whole
 * label of the host's subdomain (`https://{tenant}.api.example.com`) becomes a connection input,
 * filled by each connection; any other (`{scheme}`, a port, a path, the whole host) is fixed to
 * its default, because a connection may only choose a subdomain.
 */
import { OpenApiImportError } from "./errors.js";
import type { Document } from "./load.js";
import { isRecord } from "./text.js";
import type { ImportedInput } from "./types.js";

export interface ServerResult {
  baseUrl: string;
  inputs: ImportedInput[];
}

/**
 * `override` (the `baseUrl` option) replaces an absolute server URL and is the base a relative one
 * is resolved against; without it, a relative server URL is an error that says to give one.
 */
export function baseUrlOf(document: Document, override: string | undefined, warn: (message: string) => void): ServerResult {
  if (override !== undefined && !isHttpUrl(override)) {
    throw new OpenApiImportError("invalid_option", `baseUrl "${override}" is not an absolute http(s) URL.`);
  }
  const servers = Array.isArray(document.servers) ? document.servers.filter(isRecord) : [];
  const server = servers[0] ?? { url: "/" };
  if (servers.length > 1) warn(`the document lists ${servers.length} servers; the toolkit uses the first, ${String(server.url)}.`);
  const template = typeof server.url === "string" ? server.url : "/";
  const variables = isRecord(server.variables) ? server.variables : {};
  const absolute = /^([A-Za-z][A-Za-z0-9+.-]*|\{[^}]+\}):\/\//.test(template);
  if (absolute && override !== undefined) return { baseUrl: trimSlash(override), inputs: [] };
  if (!absolute) {
    if (override === undefined) {
      throw new OpenApiImportError(
        "relative_server",
        `The document's server URL "${template}" is relative: give the API's address with --base-url (the baseUrl option), e.g. https://api.example.com.`,
        "/servers/0/url",
      );
    }
    const path = fill(template, variables, () => false, warn).url;
    return { baseUrl: trimSlash(new URL(path, override.endsWith("/") ? override : `${override}/`).href), inputs: [] };
  }
  const host = /^[^:]+:\/\/([^/?#]*)/.exec(template)![1]!;
  const { url, inputs } = fill(template, variables, (name) => isSubdomainLabel(host, name), warn);
  if (!isHttpUrl(url)) {
    throw new OpenApiImportError("invalid_document", `The document's server URL "${template}" is not an http(s) URL.`, "/servers/0/url");
  }
  return { baseUrl: trimSlash(url.replace(/[?#].*$/, "")), inputs };
}

/**
 * The base URL of an operation with its own `servers` (GitHub's release asset upload goes to
 * uploads.github.com): the first one, its variables fixed to their defaults. A relative URL, or a
 * variable without a default, leaves the operation on the toolkit's base URL, with a warning.
 */
export function operationBaseUrl(servers: unknown[], where: string, warn: (message: string) => void): string | undefined {
  const server = servers.find(isRecord);
  const template = typeof server?.url === "string" ? server.url : "";
  const variables = isRecord(server?.variables) ? server.variables : {};
  const url = template.replace(/\{([^}]+)\}/g, (_, name: string) => {
    const variable = isRecord(variables[name]) ? variables[name] : {};
    const values = Array.isArray(variable.enum) ? variable.enum.map(String) : [];
    return variable.default !== undefined ? String(variable.default) : (values[0] ?? `{${name}}`);
  });
  if (!isHttpUrl(url) || /\{[^}]*\}/.test(url)) {
    warn(
      `${where} lists its own server "${template}", which is not an absolute http(s) URL with defaults; the tool uses the toolkit's base URL.`,
    );
    return undefined;
  }
  return trimSlash(url.replace(/[?#].*$/, ""));
}

/** Replaces each `{variable}` by its default, or by a placeholder for an input when `asInput` says so. */
function fill(
  template: string,
  variables: Record<string, unknown>,
  asInput: (name: string) => boolean,
  warn: (message: string) => void,
): { url: string; inputs: ImportedInput[] } {
  const inputs: ImportedInput[] = [];
  const url = template.replace(/\{([^}]+)\}/g, (_, name: string) => {
    const variable = isRecord(variables[name]) ? variables[name] : {};
    const values = Array.isArray(variable.enum) ? variable.enum.map(String) : [];
    const fallback = variable.default !== undefined ? String(variable.default) : values[0];
    if (asInput(name)) {
      const input = connectionInput(name, variable, values, fallback);
      inputs.push(input);
      return `{${input.name}}`;
    }
    if (fallback === undefined) {
      throw new OpenApiImportError(
        "invalid_document",
        `The server variable {${name}} has no default value.`,
        `/servers/0/variables/${name.replace(/~/g, "~0").replace(/\//g, "~1")}`,
      );
    }
    if (values.length > 1)
      warn(`the server variable {${name}} is fixed to its default "${fallback}"; a connection may only choose a subdomain.`);
    return fallback;
  });
  return { url, inputs };
}

function connectionInput(name: string, variable: Record<string, unknown>, values: string[], example: string | undefined): ImportedInput {
  const clean = name.replace(/[^A-Za-z0-9_]+/g, "_").replace(/^[^A-Za-z]+/, "");
  const inputName = (clean || "subdomain").slice(0, 64);
  const label = inputName.replace(/_/g, " ").replace(/^./, (c) => c.toUpperCase());
  return {
    name: inputName,
    label,
    ...(typeof variable.description === "string" && variable.description ? { description: variable.description } : {}),
    ...(values.length > 0 ? { pattern: `^(?:${values.map(escapeRegExp).join("|")})$` } : {}),
    ...(example !== undefined ? { example } : {}),
  };
}

/** Whether `{name}` is a whole label of the host with at least two labels after it (`{tenant}.example.com`). */
function isSubdomainLabel(host: string, name: string): boolean {
  const labels = host.replace(/:[^:]*$/, "").split(".");
  const index = labels.indexOf(`{${name}}`);
  return index >= 0 && labels.length - index > 2;
}

function isHttpUrl(value: string): boolean {
  return URL.canParse(value.replace(/\{[^}]*\}/g, "placeholder")) && /^https?:\/\//i.test(value);
}

const trimSlash = (url: string) => url.replace(/\/+$/, "");

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}
