import { OpenApiImportError } from "./errors.js";

/**
 * Bounds on what one import may cost, so that a huge document or a reference bomb fails fast with
 * an error instead of exhausting memory or time.
 */
export interface ImportLimits {
  /** Characters of a document given as text. Default 64 MiB (the largest spec of the APIs.guru collection is 47 MB). */
  maxDocumentBytes: number;
  /**
   * Values (objects, arrays and scalars) of the document, counted as a tree: an object reached
   * twice (YAML aliases, or a shared object in a document given as an object) counts twice.
   * Default 8,000,000.
   */
  maxDocumentNodes: number;
  /** Nesting depth of the document. Default 256. */
  maxDepth: number;
  /**
   * Schema values written into the toolkit, over all tools: each tool carries the component
   * schemas it reaches in its own `$defs`, so a large schema shared by many operations is
   * copied once per tool. Default 4,000,000.
   */
  maxSchemaNodes: number;
}

export const DEFAULT_LIMITS: ImportLimits = {
  maxDocumentBytes: 64 * 1024 * 1024,
  maxDocumentNodes: 8_000_000,
  maxDepth: 256,
  maxSchemaNodes: 4_000_000,
};

/**
 * Walks the document without recursion (a deep document cannot overflow the stack) and throws
 * when it is deeper than `maxDepth` or has more than `maxDocumentNodes` values. A cycle is an
 * endless depth, so it is caught too.
 */
export function assertDocumentShape(document: unknown, limits: ImportLimits): void {
  const stack: Array<[value: unknown, depth: number]> = [[document, 0]];
  let nodes = 0;
  while (stack.length > 0) {
    const [value, depth] = stack.pop()!;
    if (++nodes > limits.maxDocumentNodes) {
      throw new OpenApiImportError(
        "too_large",
        `The document has more than ${limits.maxDocumentNodes} values (limits.maxDocumentNodes); YAML aliases count each time they are used. Split the document or raise the limit.`,
      );
    }
    if (value === null || typeof value !== "object") continue;
    if (depth >= limits.maxDepth) {
      throw new OpenApiImportError(
        "too_large",
        `The document is nested deeper than ${limits.maxDepth} levels (limits.maxDepth), or has a cycle; a real API description is far shallower.`,
      );
    }
    for (const item of Array.isArray(value) ? value : Object.values(value)) stack.push([item, depth + 1]);
  }
}
