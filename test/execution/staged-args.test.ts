/**
 * `resolveStagedFiles`: which argument values are opened as staged files, following the JSON
 * Schema that `stagedFile()` marks, and which are left as they are.
 */
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { resolveStagedFiles } from "../../src/execution/staged-args.js";
import { type StagedFile, stagedFile } from "../../src/toolkits/define.js";
import { inputParametersOf } from "../../src/toolkits/schemas.js";

const key = (c: string) => `stg_${c.repeat(22)}`;
const opened = (stagingKey: string, path: string) => ({ stagingKey, path }) as unknown as StagedFile;

async function resolve(schema: z.ZodType, args: unknown) {
  const paths: string[] = [];
  const out = await resolveStagedFiles(inputParametersOf("T", schema, undefined), args, async (k, path) => {
    paths.push(path);
    return opened(k, path);
  });
  return { out, paths };
}

describe("resolveStagedFiles", () => {
  it("opens files in properties, arrays and nested objects, with their paths, and leaves the rest", async () => {
    const schema = z.object({
      file: stagedFile(),
      title: z.string(),
      many: z.array(stagedFile()),
      nested: z.object({ cover: stagedFile(), caption: z.string() }),
      table: z.array(z.object({ scan: stagedFile() })),
    });
    const args = {
      file: key("a"),
      title: key("t"),
      many: [key("b"), key("c")],
      nested: { cover: key("d"), caption: "x" },
      table: [{ scan: key("e") }],
    };
    const copy = structuredClone(args);
    const { out, paths } = await resolve(schema, args);
    expect(paths).toEqual(["file", "many.0", "many.1", "nested.cover", "table.0.scan"]);
    expect(out).toEqual({
      file: opened(key("a"), "file"),
      title: key("t"), // a string that looks like a key, but is not marked as a file
      many: [opened(key("b"), "many.0"), opened(key("c"), "many.1")],
      nested: { cover: opened(key("d"), "nested.cover"), caption: "x" },
      table: [{ scan: opened(key("e"), "table.0.scan") }],
    });
    expect(args).toEqual(copy); // not modified
  });

  it("follows optional and nullable files, and opens nothing for an absent or null one", async () => {
    const schema = z.object({ maybe: stagedFile().optional(), orNull: stagedFile().nullable() });
    expect((await resolve(schema, { orNull: null })).paths).toEqual([]);
    expect((await resolve(schema, { maybe: key("a"), orNull: key("b") })).paths).toEqual(["maybe", "orNull"]);
  });

  it("opens a string in a union only when it is a staging key for the file branch", async () => {
    const schema = z.object({ source: z.union([stagedFile(), z.string().url()]) });
    expect((await resolve(schema, { source: "https://example.com/a.png" })).paths).toEqual([]);
    expect((await resolve(schema, { source: key("a") })).paths).toEqual(["source"]);
  });

  it("rejects with the opener's error", async () => {
    const schema = inputParametersOf("T", z.object({ files: z.array(stagedFile()) }), undefined);
    const failing = resolveStagedFiles(schema, { files: [key("a"), key("b")] }, async (_k, path) => {
      if (path === "files.1") throw new Error(`no file at ${path}`);
      return opened(_k, path);
    });
    await expect(failing).rejects.toThrow("no file at files.1");
  });
});
