/**
 * The operations of a document, in its order, and which of them to import: deprecated ones are
 * left out unless asked; tags, paths and operationIds include and exclude.
 */
import { isRecord } from "./text.js";
import type { HttpMethod } from "./types.js";

const METHODS = ["get", "put", "post", "delete", "options", "head", "patch"] as const;

export interface Operation {
  method: HttpMethod;
  path: string;
  operation: Record<string, unknown>;
  /** The path item's parameters, then the operation's (an operation's wins for the same name and location). */
  parameters: Record<string, unknown>[];
  /** Where the operation is in the document, as a JSON pointer. */
  pointer: string;
  /** The operation's own `servers` (or its path item's), when it lists some. */
  servers?: unknown[];
}

/** Which operations an import keeps. */
export interface OperationFilter {
  /** Keep only operations with one of these tags. */
  includeTags?: string[];
  excludeTags?: string[];
  /**
   * Keep only operations whose path matches one of these patterns: `*` matches within one
   * segment, `**` across segments (`/repos/**`), anything else literally.
   */
  includePaths?: string[];
  excludePaths?: string[];
  /** Keep only these operationIds. */
  includeOperations?: string[];
  excludeOperations?: string[];
  /** Import deprecated operations too. Default false. */
  includeDeprecated?: boolean;
}

/** Every operation of the document; `resolve` follows a `$ref` (path items and parameters may be references). */
export function operationsOf(paths: unknown, resolve: (value: unknown) => unknown): Operation[] {
  if (!isRecord(paths)) return [];
  const found: Operation[] = [];
  for (const [path, rawItem] of Object.entries(paths)) {
    const item = resolve(rawItem);
    if (!isRecord(item)) continue;
    const shared = parametersOf(item.parameters, resolve);
    for (const method of METHODS) {
      const operation = item[method];
      if (!isRecord(operation)) continue;
      const own = parametersOf(operation.parameters, resolve);
      const key = (p: Record<string, unknown>) => `${String(p.in)} ${String(p.name)}`;
      const parameters = [...shared.filter((p) => !own.some((o) => key(o) === key(p))), ...own];
      const pointer = `/paths/${path.replace(/~/g, "~0").replace(/\//g, "~1")}/${method}`;
      const servers = [operation.servers, item.servers].find((list) => Array.isArray(list) && list.length > 0) as unknown[] | undefined;
      found.push({ method: method.toUpperCase() as HttpMethod, path, operation, parameters, pointer, ...(servers ? { servers } : {}) });
    }
  }
  return found;
}

function parametersOf(list: unknown, resolve: (value: unknown) => unknown): Record<string, unknown>[] {
  if (!Array.isArray(list)) return [];
  return (
    list
      .map(resolve)
      .filter(isRecord)
      // A parameter without a name (brainbi.net's `name: ""`) has nothing to send.
      .filter((p) => typeof p.name === "string" && p.name !== "" && ["path", "query", "header", "cookie"].includes(p.in as string))
  );
}

/** Whether the filter keeps the operation: each kind of include given must match, and no exclude may. */
export function keeps(filter: OperationFilter, { path, operation }: Operation): boolean {
  if (operation.deprecated === true && !filter.includeDeprecated) return false;
  const tags = Array.isArray(operation.tags) ? operation.tags.map(String) : [];
  const id = typeof operation.operationId === "string" ? operation.operationId : undefined;
  const tagged = (list: string[]) => list.some((tag) => tags.includes(tag));
  const pathed = (list: string[]) => list.some((pattern) => globMatches(pattern, path));
  const named = (list: string[]) => id !== undefined && list.includes(id);
  const includes: Array<[string[] | undefined, (list: string[]) => boolean]> = [
    [filter.includeTags, tagged],
    [filter.includePaths, pathed],
    [filter.includeOperations, named],
  ];
  const excludes: Array<[string[] | undefined, (list: string[]) => boolean]> = [
    [filter.excludeTags, tagged],
    [filter.excludePaths, pathed],
    [filter.excludeOperations, named],
  ];
  return (
    includes.every(([list, test]) => list === undefined || list.length === 0 || test(list)) &&
    !excludes.some(([list, test]) => list !== undefined && list.length > 0 && test(list))
  );
}

/** `*` within a segment, `**` across segments; a pattern ending in `/**` also matches its prefix itself. */
export function globMatches(pattern: string, path: string): boolean {
  let source = "";
  for (let i = 0; i < pattern.length; i++) {
    if (pattern.startsWith("/**", i) && i + 3 === pattern.length) {
      source += "(?:/.*)?";
      i += 2;
    } else if (pattern.startsWith("**", i)) {
      source += ".*";
      i += 1;
    } else if (pattern[i] === "*") source += "[^/]*";
    else source += pattern[i]!.replace(/[.+?^${}()|[\]\\]/g, "\\$&");
  }
  return new RegExp(`^${source}$`).test(path);
}
