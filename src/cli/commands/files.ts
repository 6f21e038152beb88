/** `upload <path>` (with a progress bar) and `files <stagingKey>` (a download, streamed). */
import { createWriteStream, existsSync, renameSync, rmSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import { Readable, type Writable } from "node:stream";
import { pipeline } from "node:stream/promises";
import type { Command } from "commander";
import { fileFromPath } from "../../client/node.js";
import type { UploadSource } from "../../client/upload.js";
import { agentOption, jsonOption, withExamples } from "../command.js";
import { CliError } from "../errors.js";
import { safeDownloadName } from "../file-names.js";
import { formatBytes, note, printFields, printJson } from "../output.js";
import { startProgressBar } from "../progress.js";
import { interruptSignal, openClient } from "../session.js";

/** Adds `upload <path>` and `files <stagingKey>`. */
export function registerFiles(program: Command): void {
  const upload = program
    .command("upload")
    .argument("<path>", 'the file to stage ("-" for stdin)')
    .description("Stage a file for tools and proxied requests; prints its staging key (a progress bar on a terminal)")
    .option("--type <mediaType>", "its media type (default: from the extension, else application/octet-stream)")
    .option("--name <name>", "the file name sent with it (default: the path's last part)")
    .addOption(jsonOption())
    .addOption(agentOption())
    .action(async (path: string, opts: { type?: string; name?: string; json?: boolean; agent?: string }) => {
      const { client } = openClient(opts);
      let source: UploadSource;
      try {
        source =
          path === "-"
            ? (Readable.toWeb(process.stdin) as ReadableStream<Uint8Array>)
            : await fileFromPath(path, { type: opts.type, name: opts.name });
      } catch (error) {
        throw new CliError(`cannot read ${path} (${(error as NodeJS.ErrnoException).code ?? (error as Error).message}).`);
      }
      const bar = startProgressBar(opts.name ?? (path === "-" ? "stdin" : basename(path)));
      let staged: Awaited<ReturnType<typeof client.upload>>;
      try {
        staged = await client.upload(source, {
          filename: opts.name,
          contentType: opts.type,
          signal: interruptSignal(),
          onProgress: ({ loaded, total }) => bar.update(loaded, total),
        });
      } finally {
        bar.stop();
      }
      if (opts.json) return printJson(staged);
      printFields([
        ["stagingKey", staged.stagingKey],
        ["type", staged.contentType],
        ["size", `${formatBytes(staged.size)} (${staged.size} bytes)`],
        ["expires", staged.expiresAt],
      ]);
    });
  withExamples(
    upload,
    "tools-proxy upload notes.txt",
    "tools-proxy upload report.pdf --json",
    "tar c dir | tools-proxy upload - --name dir.tar",
  );

  const files = program
    .command("files")
    .argument("<stagingKey>", "the staged file's key (stg_...)")
    .description("Download a staged file you uploaded")
    .option(
      "-o, --output <file>",
      'where to write it ("-" for stdout). Default: stdout when it is not a terminal, else the file\'s own name in this directory',
    )
    .option("--force", "overwrite the file named after the staged file when it exists")
    .addOption(agentOption())
    .action(async (stagingKey: string, opts: { output?: string; force?: boolean; agent?: string }) => {
      const { client } = openClient(opts);
      const signal = interruptSignal();
      const file = await client.downloadFile(stagingKey, { signal });
      const toStdout = opts.output === "-" || (opts.output === undefined && !process.stdout.isTTY);
      let target = opts.output;
      if (!toStdout && target === undefined) {
        target = safeDownloadName(file.filename ?? stagingKey);
        if (existsSync(target) && !opts.force) {
          await file.body.cancel().catch(() => {});
          throw new CliError(`${target} already exists: pass --force to overwrite it, or -o FILE.`);
        }
      }
      const bar = startProgressBar(file.filename ?? stagingKey);
      let loaded = 0;
      const count = async function* (source: AsyncIterable<Uint8Array>) {
        for await (const chunk of source) {
          loaded += chunk.byteLength;
          bar.update(loaded, file.size);
          yield chunk;
        }
      };
      const complete = () => {
        if (file.size !== undefined && loaded !== file.size)
          throw new CliError(`the download ended after ${loaded} of ${file.size} bytes; retry.`);
      };
      const bytes = Readable.fromWeb(file.body as import("node:stream/web").ReadableStream<Uint8Array>, { signal });
      try {
        if (toStdout) await pipeline(bytes, count, process.stdout as Writable, { end: false }).then(complete);
        else await writeAtomically(target!, (out) => pipeline(bytes, count, out).then(complete));
      } finally {
        bar.stop();
      }
      if (!toStdout) note(`Saved ${formatBytes(loaded)} to ${target}.`);
    });
  withExamples(
    files,
    "tools-proxy files stg_Xuoa0q1dI3_cR45ci9WaGvuF8txRo7V4QOQPF7eLiRg -o notes.txt",
    "tools-proxy files stg_... | wc -l",
  );
}

/** Writes through a temporary file renamed over `target` once complete: a failed download leaves nothing behind. */
async function writeAtomically(target: string, write: (out: Writable) => Promise<void>): Promise<void> {
  // node:crypto taken here rather than imported: loading it would slow the start of every command.
  const { randomBytes } = process.getBuiltinModule("node:crypto");
  const temporary = join(dirname(target), `.${basename(target)}.${randomBytes(4).toString("hex")}.part`);
  try {
    await write(createWriteStream(temporary, { flags: "wx" }));
    renameSync(temporary, target);
  } catch (error) {
    rmSync(temporary, { force: true });
    throw error;
  }
}
