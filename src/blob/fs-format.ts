/**
 * The on-disk format of `filesystemBlobStore`: one file per blob, its metadata in a header before
 * the bytes and its size in a trailer after them, so that one `rename` publishes all of it at once
 * and no reader ever sees bytes without their metadata (or the reverse):
 *
 *   "TPBLOB1\n" | header length (uint32 BE) | header (UTF-8 JSON) | the bytes | "TPBLOBZ\n" | size (uint64 BE)
 *
 * A file whose trailer is missing or disagrees with its length was cut short (a crash before the
 * data reached the disk, when fsync is off) and is treated as absent.
 */
import type { FileHandle } from "node:fs/promises";
import type { BlobInfo } from "./types.js";

const MAGIC = new TextEncoder().encode("TPBLOB1\n");
const END_MAGIC = new TextEncoder().encode("TPBLOBZ\n");
const PREFIX_BYTES = MAGIC.byteLength + 4;
/** Bytes after the blob's own: the end marker and the size. */
export const TRAILER_BYTES = END_MAGIC.byteLength + 8;
/** A header is a few hundred bytes; this bounds what a damaged file can make a reader allocate. */
export const MAX_HEADER_BYTES = 256 * 1024;
/** The first read of a header; most headers fit, so opening a blob costs one read. */
const FIRST_READ_BYTES = 4096;

/** What the header of a blob file holds. */
export type BlobHeader = Omit<BlobInfo, "size">;

/** The header of a blob file, prefix included, ready to be written first. */
export function encodeHeader(header: BlobHeader): Uint8Array {
  const json = new TextEncoder().encode(
    JSON.stringify({
      key: header.key,
      contentType: header.contentType,
      filename: header.filename,
      metadata: header.metadata,
      createdAt: header.createdAt.getTime(),
      expiresAt: header.expiresAt.getTime(),
    }),
  );
  if (json.byteLength > MAX_HEADER_BYTES) throw new TypeError(`A blob's metadata and file name must stay under ${MAX_HEADER_BYTES} bytes.`);
  const out = new Uint8Array(PREFIX_BYTES + json.byteLength);
  out.set(MAGIC);
  new DataView(out.buffer).setUint32(MAGIC.byteLength, json.byteLength);
  out.set(json, PREFIX_BYTES);
  return out;
}

/** The trailer that ends a blob file of `size` bytes. */
export function encodeTrailer(size: number): Uint8Array {
  const out = new Uint8Array(TRAILER_BYTES);
  out.set(END_MAGIC);
  new DataView(out.buffer).setBigUint64(END_MAGIC.byteLength, BigInt(size));
  return out;
}

/**
 * The blob's info and where its bytes start, or null when the file is not a whole blob file of
 * this format (another file, or one cut short).
 */
export async function readHeader(handle: FileHandle): Promise<{ info: BlobInfo; dataOffset: number } | null> {
  const { size: fileSize } = await handle.stat();
  if (fileSize < PREFIX_BYTES + TRAILER_BYTES) return null;
  const trailer = new Uint8Array(TRAILER_BYTES);
  await readFully(handle, trailer, fileSize - TRAILER_BYTES);
  if (END_MAGIC.some((byte, i) => trailer[i] !== byte)) return null;
  const size = Number(new DataView(trailer.buffer).getBigUint64(END_MAGIC.byteLength));
  let buffer = new Uint8Array(Math.min(FIRST_READ_BYTES, fileSize));
  await readFully(handle, buffer, 0);
  if (buffer.byteLength < PREFIX_BYTES || MAGIC.some((byte, i) => buffer[i] !== byte)) return null;
  const length = new DataView(buffer.buffer).getUint32(MAGIC.byteLength);
  const dataOffset = PREFIX_BYTES + length;
  if (length > MAX_HEADER_BYTES || dataOffset + size + TRAILER_BYTES !== fileSize) return null;
  if (dataOffset > buffer.byteLength) {
    buffer = new Uint8Array(dataOffset);
    await readFully(handle, buffer, 0);
  }
  const header = parse(new TextDecoder().decode(buffer.subarray(PREFIX_BYTES, dataOffset)));
  if (!header) return null;
  return { info: { ...header, size }, dataOffset };
}

function parse(text: string): BlobHeader | null {
  let raw: Record<string, unknown>;
  try {
    raw = JSON.parse(text) as Record<string, unknown>;
  } catch {
    return null;
  }
  const metadata = raw.metadata as Record<string, unknown> | null;
  const valid =
    typeof raw.key === "string" &&
    typeof raw.contentType === "string" &&
    (raw.filename === null || typeof raw.filename === "string") &&
    typeof metadata === "object" &&
    metadata !== null &&
    Object.values(metadata).every((value) => typeof value === "string") &&
    Number.isFinite(raw.createdAt) &&
    Number.isFinite(raw.expiresAt);
  if (!valid) return null;
  return {
    key: raw.key as string,
    contentType: raw.contentType as string,
    filename: raw.filename as string | null,
    metadata: { ...(metadata as Record<string, string>) },
    createdAt: new Date(raw.createdAt as number),
    expiresAt: new Date(raw.expiresAt as number),
  };
}

async function readFully(handle: FileHandle, buffer: Uint8Array, position: number): Promise<void> {
  let offset = 0;
  while (offset < buffer.byteLength) {
    const { bytesRead } = await handle.read(buffer, offset, buffer.byteLength - offset, position + offset);
    if (bytesRead === 0) throw new Error("The blob file is shorter than its header says.");
    offset += bytesRead;
  }
}
