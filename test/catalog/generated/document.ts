/**
 * The test's own reading of a provider's OpenAPI documents, apart from the generator's: which
 * operation a request sent to the provider is (by method and a regular expression of server and
 * path template), and what that operation declares of its query and body.
 */
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";

const require = createRequire(import.meta.url);
const SOURCES = join(import.meta.dirname, "../../../src/catalog/generated/sources.json");

interface DocumentSource {
  package: string;
  path: string;
  server?: string;
}

/** The mapping table, as the generator reads it. */
export const sources = JSON.parse(readFileSync(SOURCES, "utf8")) as { providers: Record<string, { documents: DocumentSource[] }> };

/** One operation of a document, with what a request to it must carry. */
export interface DocumentOperation {
  method: string;
  where: string;
  pattern: RegExp;
  /** Literal characters of its path template: the most literal match is the operation a URL is. */
  literal: number;
  parameters: Array<{ in: string; name: string; required?: boolean }>;
  body?: { type: string; schema: Record<string, any> };
  deref: (value: any) => any;
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

/** `https://{dc}.api.example.com/3.0` + `/lists/{id}` → a pattern for `host/path`, placeholders one segment (or part of one). */
function templatePattern(server: string, path: string): RegExp {
  const template = `${server.replace(/^(https?:)?\/\//, "").replace(/\/+$/, "")}${path}`;
  const source = template
    .split(/(\{[^}]+\})/)
    .map((part) => (part.startsWith("{") ? "[^/]+" : escapeRegExp(part)))
    .join("");
  return new RegExp(`^${source}/?$`, "i");
}

/** The operations of a provider's documents. */
export function documentOperations(slug: string): DocumentOperation[] {
  return sources.providers[slug]!.documents.flatMap((source) => {
    const document = JSON.parse(readFileSync(require.resolve(`${source.package}/${source.path}`), "utf8"));
    const deref = (value: any): any => {
      let current = value;
      for (let i = 0; i < 20 && current && typeof current.$ref === "string"; i++) {
        current = current.$ref
          .slice(2)
          .split("/")
          .reduce((node: any, key: string) => node?.[key.replace(/~1/g, "/").replace(/~0/g, "~")], document);
      }
      return current;
    };
    const server = source.server ?? document.servers?.[0]?.url ?? "";
    return Object.entries<Record<string, any>>(document.paths).flatMap(([written, item]) =>
      ["get", "put", "post", "delete", "patch", "head", "options"]
        .filter((method) => item[method])
        .map((method) => {
          const operation = item[method];
          const path = written.replace(/[?#].*$/, "");
          const parameters = [...(item.parameters ?? []), ...(operation.parameters ?? [])].map(deref);
          const content = deref(operation.requestBody)?.content ?? {};
          const type = Object.keys(content)[0];
          return {
            method: method.toUpperCase(),
            where: `${method.toUpperCase()} ${written}`,
            pattern: templatePattern(server, path),
            literal: path.replace(/\{[^}]+\}/g, "").length,
            parameters,
            ...(type ? { body: { type, schema: deref(content[type].schema) ?? {} } } : {}),
            deref,
          };
        }),
    );
  });
}

/** The operation a request is: its method, and the most literal path template its URL matches. */
export function operationOf(operations: DocumentOperation[], method: string, url: URL): DocumentOperation | undefined {
  const target = `${url.host}${url.pathname}`;
  return operations
    .filter((operation) => operation.method === method && operation.pattern.test(target))
    .sort((a, b) => b.literal - a.literal)[0];
}
