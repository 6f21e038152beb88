import { importOpenApi } from "../../src/openapi/index.js";
import type { JsonToolkit } from "../../src/toolkits/json.js";

/** One operation of an OpenAPI 3.0 document, as its text declares it (parameters resolved). */
export interface Operation {
  operationId: string;
  method: string;
  path: string;
  description: string;
  parameter(name: string): { in: string; name: string; schema?: unknown; style?: string; explode?: boolean };
  /** A property of the JSON request body's schema (the document must be dereferenced there). */
  bodyProperty(name: string): Record<string, unknown>;
  /** The request body's media types, as listed. */
  bodyTypes: string[];
  responses: Record<string, { content?: Record<string, unknown> }>;
  /** The media types of the 2xx answers. */
  successTypes: string[];
  /** The operation's own servers, if it has some. */
  servers: string[];
}

type Document = { paths: Record<string, Record<string, any>>; components: { parameters: Record<string, any> } };

/** Finds the operation with this `operationId` in the spec and reads what it declares. */
export function operationOf(spec: Document, operationId: string): Operation {
  for (const [path, item] of Object.entries(spec.paths)) {
    for (const [method, op] of Object.entries(item)) {
      if (op?.operationId !== operationId) continue;
      const parameters = [...(item.parameters ?? []), ...(op.parameters ?? [])].map((p: any) =>
        p.$ref ? spec.components.parameters[p.$ref.split("/").pop()] : p,
      );
      const responses = op.responses as Operation["responses"];
      return {
        operationId,
        method: method.toUpperCase(),
        path,
        description: op.description ?? "",
        parameter(name) {
          const found = parameters.find((p: any) => p.name === name);
          if (!found) throw new Error(`${operationId} has no parameter ${name}`);
          return found;
        },
        bodyProperty(name) {
          const body = op.requestBody?.content?.["application/json"]?.schema;
          const found = body?.properties?.[name];
          if (!found) throw new Error(`${operationId} has no body property ${name}`);
          return found;
        },
        bodyTypes: Object.keys(op.requestBody?.content ?? {}),
        responses,
        successTypes: Object.entries(responses)
          .filter(([status]) => status.startsWith("2"))
          .flatMap(([, answer]) => Object.keys(answer.content ?? {})),
        servers: (op.servers ?? []).map((server: { url: string }) => server.url),
      };
    }
  }
  throw new Error(`no operation ${operationId}`);
}

type Tool = JsonToolkit["tools"][number] & { request?: { body?: { arg?: string } } };

/**
 * Imports GitHub's spec as a deployer would, then makes the two changes its text cannot say: the
 * spec declares no security scheme, so the toolkit is given GitHub's bearer token (a personal
 * access token); and `codeload.github.com` is added as a base URL, where the archive endpoints
 * redirect (a redirect is only followed to the toolkit's own base URLs).
 */
export async function importGithub(spec: unknown) {
  const document = (await importDocument(spec)) as JsonToolkit & { tools: Tool[] };
  const baseUrls = [document.baseUrl ?? []].flat();
  document.baseUrl = [...baseUrls, "https://codeload.github.com"];
  document.auth = [{ type: "bearer" }] as JsonToolkit["auth"];
  const toolFor = (operationId: string): Tool => {
    const operation = operationOf(spec as Document, operationId);
    const tool = document.tools.find((t) => t.method === operation.method && t.path.endsWith(operation.path));
    if (!tool) throw new Error(`no tool for ${operationId} (${operation.method} ${operation.path})`);
    return tool;
  };
  return { document, toolFor };
}

async function importDocument(spec: unknown): Promise<unknown> {
  const { toolkit } = await importOpenApi(spec as object, { slug: "github" });
  return toolkit;
}
