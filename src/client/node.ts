import { openAsBlob } from "node:fs";
import { stat } from "node:fs/promises";
import { basename, extname } from "node:path";

/**
 * `tools-proxy/client/node`: Node-only helpers of the client, kept out of `tools-proxy/client`
 * so that browser bundles never see `node:` imports. (Bun and Deno run it too.)
 */

const TYPES: Record<string, string> = {
  ".txt": "text/plain",
  ".md": "text/markdown",
  ".csv": "text/csv",
  ".html": "text/html",
  ".json": "application/json",
  ".pdf": "application/pdf",
  ".zip": "application/zip",
  ".png": "image/png",
  ".jpg": "image/jpeg",
  ".jpeg": "image/jpeg",
  ".gif": "image/gif",
  ".webp": "image/webp",
  ".svg": "image/svg+xml",
  ".mp3": "audio/mpeg",
  ".wav": "audio/wav",
  ".mp4": "video/mp4",
  ".webm": "video/webm",
  ".docx": "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
  ".xlsx": "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
  ".pptx": "application/vnd.openxmlformats-officedocument.presentationml.presentation",
};

/** Options of `fileFromPath`. */
export interface FileFromPathOptions {
  /** Media type; default from the extension (a short table), else `application/octet-stream`. */
  type?: string;
  /** File name sent with the upload; default the path's last segment. */
  name?: string;
}

/**
 * A `File` backed by the file at `path`, for `client.upload(await fileFromPath(path))`. Nothing
 * is read until the upload streams it (Node's `fs.openAsBlob`), so any size works. Rejects with
 * the fs error when the file cannot be read (`ENOENT`), or with `EISDIR` for a directory; if the
 * file changes before it is read, reading fails rather than sending a mix.
 */
export async function fileFromPath(path: string, options: FileFromPathOptions = {}): Promise<File> {
  if (!(await stat(path)).isFile()) throw Object.assign(new Error(`${path} is not a file; upload a regular file.`), { code: "EISDIR" });
  const type = options.type ?? TYPES[extname(path).toLowerCase()] ?? "application/octet-stream";
  const blob = await openAsBlob(path, { type });
  return new File([blob], options.name ?? basename(path), { type });
}
