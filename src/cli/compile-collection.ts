import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { createCollectionWriter } from "../collection/write.js";
import { type ImportOptions, importOpenApi, OpenApiImportError } from "../openapi/index.js";

/** Options of `compileCollection`. */
export interface CompileOptions extends Pick<ImportOptions, "includeDeprecated" | "maxTools"> {
  /** The address of documents whose server URL is relative or missing; without it they are left out. */
  defaultBaseUrl?: string;
  /** Hears each document's outcome: its toolkit's slug and tool count, or why it was left out. */
  onDocument?: (file: string, outcome: { slug: string; tools: number } | { skipped: string }) => void;
}

/** What a compile wrote. */
export interface CompileResult {
  toolkits: number;
  tools: number;
  skipped: number;
}

const DOCUMENT = /\.(json|ya?ml)$/i;

/**
 * Imports every OpenAPI or Swagger document of `inputs` (files, or folders searched for
 * `.json`, `.yaml` and `.yml` files, in sorted order) into a compiled collection in `out` (see
 * src/collection/format.ts), one document at a time, so memory holds one document's import at once. A document
 * that does not import is left out and told to `onDocument`; two documents with one title get
 * `<slug>` and `<slug>_2`.
 */
export async function compileCollection(inputs: readonly string[], out: string, options: CompileOptions = {}): Promise<CompileResult> {
  const writer = createCollectionWriter(out);
  const taken = new Set<string>();
  let skipped = 0;
  for (const file of documentsOf(inputs)) {
    try {
      const toolkit = await importOne(file, taken, options);
      if (!writer.fits(toolkit)) throw new TypeError("a tool slug of another toolkit of the collection");
      writer.add(toolkit);
      taken.add(toolkit.slug);
      options.onDocument?.(file, { slug: toolkit.slug, tools: toolkit.tools.length });
    } catch (error) {
      skipped++;
      const reason = error instanceof OpenApiImportError ? `${error.code}: ${error.message}` : (error as Error).message;
      options.onDocument?.(file, { skipped: reason });
    }
  }
  return { ...writer.finish(), skipped };
}

async function importOne(file: string, taken: ReadonlySet<string>, options: CompileOptions) {
  const text = readFileSync(file, "utf8");
  const common = { takenSlugs: taken, includeDeprecated: options.includeDeprecated, maxTools: options.maxTools };
  try {
    return (await importOpenApi(text, common)).toolkit;
  } catch (error) {
    if (!(error instanceof OpenApiImportError && error.code === "relative_server" && options.defaultBaseUrl)) throw error;
    return (await importOpenApi(text, { ...common, baseUrl: options.defaultBaseUrl })).toolkit;
  }
}

/** The documents of `inputs`: files as given, folders searched (sorted) for JSON and YAML files. */
export function documentsOf(inputs: readonly string[]): string[] {
  const found: string[] = [];
  const walk = (path: string, given: boolean) => {
    if (statSync(path).isDirectory()) {
      for (const name of readdirSync(path).sort()) walk(join(path, name), false);
    } else if (given || DOCUMENT.test(path)) found.push(path);
  };
  for (const input of inputs) walk(input, true);
  return found;
}
