/**
 * Reading a document: text (JSON or YAML) or an object, within the limits, validated by
 * @scalar/openapi-parser against the schema of its own version, then upgraded to OpenAPI 3.1 so
 * that the mapping reads one version.
 */
import { upgrade, validate } from "@scalar/openapi-parser";
import { parse as parseYaml } from "yaml";
import { OpenApiImportError } from "./errors.js";
import { assertDocumentShape, type ImportLimits } from "./limits.js";
import { escapePointer, isRecord } from "./text.js";

/** An OpenAPI 3.1 document, as the parser's upgrade leaves it. */
export type Document = Record<string, unknown>;

/** Parses, checks and upgrades a document; every failure is an `OpenApiImportError`. */
export async function loadDocument(input: string | object, limits: ImportLimits): Promise<Document> {
  const parsed = typeof input === "string" ? parseText(input, limits) : input;
  assertDocumentShape(parsed, limits);
  // The parser writes into what it reads: a caller's object is copied first.
  const document = parsed === input ? structuredClone(parsed) : parsed;
  if (!isRecord(document) || (typeof document.openapi !== "string" && typeof document.swagger !== "string")) {
    throw new OpenApiImportError(
      "invalid_document",
      'This is not an OpenAPI document: it has no "openapi" (3.x) or "swagger" (2.0) field at the top level.',
      "",
    );
  }
  const version = String(document.openapi ?? document.swagger);
  if (!/^(2\.0|3\.[01])(\.\d+)?$/.test(version)) {
    throw new OpenApiImportError("invalid_document", `OpenAPI version ${version} is not supported; use 2.0, 3.0 or 3.1.`, "/openapi");
  }
  const result = await quietly(() => validate(document));
  const errors = (result.errors ?? []).filter((error) => !isPropertyNamedRef(document, error));
  if (!result.valid && errors.length > 0) throw invalid(document, errors);
  return upgrade(document).specification as unknown as Document;
}

function parseText(text: string, limits: ImportLimits): unknown {
  if (text.length > limits.maxDocumentBytes) {
    throw new OpenApiImportError(
      "too_large",
      `The document is larger than ${limits.maxDocumentBytes} characters (limits.maxDocumentBytes); import a smaller one or raise the limit.`,
    );
  }
  if (/^\s*[{[]/.test(text)) {
    try {
      return JSON.parse(text);
    } catch (error) {
      throw new OpenApiImportError("invalid_document", `The document is not valid JSON: ${(error as Error).message}.`);
    }
  }
  try {
    // yaml's default alias limit (100) stops the "billion laughs" of YAML anchors.
    return parseYaml(text, { merge: true });
  } catch (error) {
    const message = (error as Error).message.split("\n")[0]!.replace(/\.$/, "");
    throw new OpenApiImportError("invalid_document", `The document is neither JSON nor valid YAML: ${message}.`);
  }
}

/**
 * Runs the parser's validation with `console.error` silenced: on an invalid enum value its error
 * formatter fails, logs that failure's stack with `console.error` and falls back to Ajv's own
 * messages (dist/utils/transform-errors.js), which would print a stack above the import's error.
 * `validate` does all its work before it returns its promise, so nothing else runs meanwhile.
 */
function quietly<T>(run: () => T): T {
  const error = console.error;
  console.error = () => {};
  try {
    return run();
  } finally {
    console.error = error;
  }
}

interface ParserError {
  message: string;
  path?: string | string[];
}

/** The error for an invalid document: its most precise problem (the deepest pointer), and how many there are. */
function invalid(document: Document, errors: ParserError[]): OpenApiImportError {
  const located = errors.map((error) => ({ message: error.message, pointer: pointerOf(document, error) }));
  const first = located.reduce<(typeof located)[number] | undefined>(
    (best, error) => (best === undefined || depth(error.pointer) > depth(best.pointer) ? error : best),
    undefined,
  );
  if (first === undefined) return new OpenApiImportError("invalid_document", "The document is not a valid OpenAPI document.");
  const where = first.pointer === undefined ? "" : ` at ${first.pointer || "the top level"}`;
  const more = errors.length > 1 ? ` (${errors.length - 1} more problem${errors.length > 2 ? "s" : ""})` : "";
  return new OpenApiImportError(
    "invalid_document",
    `The document is not valid OpenAPI${where}: ${first.message.replace(/\.$/, "")}${more}.`,
    first.pointer,
  );
}

/**
 * The parser reads a property named `$ref` (SCIM schemas have one: GitHub Enterprise's
 * `properties: { "$ref": { "type": "string" } }`) as a reference that does not resolve; such an
 * error is dropped when every non-string `$ref` of the document is a property name.
 */
function isPropertyNamedRef(document: Document, error: ParserError): boolean {
  if (error.message !== "Can't resolve reference: [object Object]") return false;
  const stack: Array<[unknown, string | undefined]> = [[document, undefined]];
  while (stack.length > 0) {
    const [value, key] = stack.pop()!;
    if (!isRecord(value) && !Array.isArray(value)) continue;
    if (isRecord(value) && value.$ref !== undefined && typeof value.$ref !== "string" && key !== "properties") return false;
    for (const [name, item] of Object.entries(value)) stack.push([item, name]);
  }
  return true;
}

const depth = (pointer: string | undefined) => (pointer === undefined ? -1 : pointer.split("/").length);

function pointerOf(document: Document, error: ParserError): string | undefined {
  if (Array.isArray(error.path)) return error.path.map((segment) => `/${escapePointer(segment)}`).join("");
  if (typeof error.path === "string") return error.path;
  // "Can't resolve reference: #/components/schemas/Nope" has no path: point at the first $ref that uses it.
  // "Can't resolve reference to itself: #/components/schemas/A." (a $ref cycle) names one of its references too.
  const reference = /reference(?: to itself)?: (\S+?)\.?$/.exec(error.message)?.[1];
  return reference === undefined ? undefined : findReference(document, reference);
}

function findReference(document: Document, reference: string): string | undefined {
  const stack: Array<[unknown, string]> = [[document, ""]];
  while (stack.length > 0) {
    const [value, pointer] = stack.pop()!;
    if (!isRecord(value) && !Array.isArray(value)) continue;
    if (isRecord(value) && value.$ref === reference) return `${pointer}/$ref`;
    const entries = Object.entries(value).reverse();
    for (const [key, item] of entries) stack.push([item, `${pointer}/${escapePointer(key)}`]);
  }
  return undefined;
}
