import { StoreUnavailableError } from "../core/errors.js";
import { fromBase64Url, toBase64Url } from "../util/encoding.js";

/** What `s3BlobStore` keeps as object metadata, besides the content type and the size. */
export interface S3BlobFields {
  filename: string | null;
  metadata: Record<string, string>;
  createdAt: Date;
  expiresAt: Date;
}

// S3 lower-cases metadata names and accepts only ASCII values, at most 2 KB in all: the dates are
// plain numbers (readable in a console), the name and owner fields one base64url JSON value.
const CREATED = "tp-created";
const EXPIRES = "tp-expires";
const INFO = "tp-info";
const MAX_METADATA_BYTES = 2000;

/** The object metadata for a blob. Throws a TypeError when it would pass S3's 2 KB limit. */
export function encodeFields(fields: S3BlobFields): Record<string, string> {
  const encoded = {
    [CREATED]: String(fields.createdAt.getTime()),
    [EXPIRES]: String(fields.expiresAt.getTime()),
    [INFO]: toBase64Url(JSON.stringify({ filename: fields.filename, metadata: fields.metadata })),
  };
  const size = Object.entries(encoded).reduce((n, [name, value]) => n + name.length + value.length, 0);
  if (size > MAX_METADATA_BYTES)
    throw new TypeError(`s3BlobStore: the file name and metadata take ${size} bytes as S3 metadata; S3 keeps at most 2 KB.`);
  return encoded;
}

/** The blob's fields from object metadata; null for an object this store did not write. */
export function decodeFields(metadata: Record<string, string> | undefined): S3BlobFields | null {
  const created = Number(metadata?.[CREATED]);
  const expires = Number(metadata?.[EXPIRES]);
  const info = metadata?.[INFO];
  if (!Number.isFinite(created) || !Number.isFinite(expires) || !info) return null;
  try {
    const parsed = JSON.parse(new TextDecoder().decode(fromBase64Url(info))) as { filename?: unknown; metadata?: unknown };
    return {
      filename: typeof parsed.filename === "string" ? parsed.filename : null,
      metadata: isStringRecord(parsed.metadata) ? parsed.metadata : {},
      createdAt: new Date(created),
      expiresAt: new Date(expires),
    };
  } catch {
    return null;
  }
}

/**
 * Where things live under the prefix: each blob at `blobs/<key>`, and an empty marker at
 * `expiry/<expiresAt, 15 digits>_<key>` so that `deleteExpired` lists only what is due, in order.
 */
export function layout(prefix: string) {
  const blobs = `${prefix}blobs/`;
  const expiry = `${prefix}expiry/`;
  return {
    blob: (key: string) => blobs + key,
    expiryPrefix: expiry,
    marker: (key: string, expiresAt: Date) => `${expiry}${String(Math.max(0, expiresAt.getTime())).padStart(15, "0")}_${key}`,
    /** The expiry instant (ms) and blob key of a marker, or null for a name that is not one. */
    parseMarker(name: string): { expiresAtMs: number; key: string } | null {
      const match = /^(\d{15})_([A-Za-z0-9_-]+)$/.exec(name.slice(expiry.length));
      return match ? { expiresAtMs: Number(match[1]), key: match[2]! } : null;
    },
  };
}

interface S3ErrorShape {
  name?: string;
  $metadata?: { httpStatusCode?: number };
}

/** Whether S3 answered "no such key" (404). */
export function isNotFound(error: unknown): boolean {
  const e = error as S3ErrorShape;
  return e?.name === "NoSuchKey" || e?.name === "NotFound" || e?.$metadata?.httpStatusCode === 404;
}

/** Whether S3 refused a conditional request because the object changed (412). */
export function isPreconditionFailed(error: unknown): boolean {
  const e = error as S3ErrorShape;
  return e?.name === "PreconditionFailed" || e?.$metadata?.httpStatusCode === 412;
}

/**
 * S3 unreachable, timing out, throttling or failing (5xx, 429, no answer) becomes
 * `StoreUnavailableError`. Anything else (access denied, no such bucket) is a configuration
 * error: rethrown, so the request answers 500 and the operator's log says what S3 said.
 */
export function toStoreError(error: unknown): unknown {
  if (error instanceof StoreUnavailableError) return error;
  const status = (error as S3ErrorShape)?.$metadata?.httpStatusCode;
  if (status === undefined || status >= 500 || status === 429 || (error as S3ErrorShape)?.name === "TimeoutError") {
    return new StoreUnavailableError("The file storage (S3) is unavailable; retry shortly.", { cause: error });
  }
  return error;
}

function isStringRecord(value: unknown): value is Record<string, string> {
  return typeof value === "object" && value !== null && !Array.isArray(value) && Object.values(value).every((v) => typeof v === "string");
}
