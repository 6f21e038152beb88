import { ToolsError } from "../core/errors.js";
import { fromBase64Url, toBase64Url } from "../util/encoding.js";
import type { Signer } from "./signer.js";

/** A place in a listing ordered by creation time, then id (the store's `ListPosition`). */
export interface CursorPosition {
  createdAt: Date;
  id: string;
}

interface CursorData {
  /** Offset of the next item (a list held in memory, such as the catalog). */
  o?: number;
  /** Creation time (ms) and id of the last item of the page (a store listing, by keyset). */
  p?: [number, string];
  /** Fingerprint hash of the query the cursor belongs to. */
  f: string;
}

const MALFORMED = "The cursor is malformed: pass the nextCursor of a previous answer unchanged.";

/**
 * Opaque, signed page cursors: `<base64url JSON {o, f}>.<HMAC tag>`. The tag (see `Signer`) makes
 * a hand-made or edited cursor a 400, not a page the server never offered.
 */
export interface Cursors {
  /** An opaque cursor for `offset` within the results of the query `fingerprint` names. */
  encode(offset: number, fingerprint: string): Promise<string>;
  /**
   * The offset a cursor points at. Throws `ToolsError("invalid_request")` (400) when the cursor is
   * malformed, was not signed by this server, or was issued for another query (`fingerprint`).
   */
  decode(cursor: string, fingerprint: string): Promise<number>;
  /** A cursor for the page after `position` in the listing `fingerprint` names (a store listing). */
  encodePosition(position: CursorPosition, fingerprint: string): Promise<string>;
  /** The position a cursor of `encodePosition` holds; throws as `decode` does. */
  decodePosition(cursor: string, fingerprint: string): Promise<CursorPosition>;
  /**
   * One page of `items`: `limit` items from the cursor's offset (from the start without a cursor),
   * and the cursor of the next page, or null on the last page. The route validates `limit`; a
   * cursor past the end gives an empty last page.
   */
  paginate<T>(
    items: T[],
    options: { limit: number; cursor?: string | undefined; fingerprint: string },
  ): Promise<{ page: T[]; nextCursor: string | null }>;
}

export function createCursors(signer: Signer): Cursors {
  const seal = async (data: Omit<CursorData, "f">, fingerprint: string) => {
    const payload = toBase64Url(JSON.stringify({ ...data, f: hash(fingerprint) } satisfies CursorData));
    return `${payload}.${await signer.sign(payload)}`;
  };
  /** The cursor's data once its signature and fingerprint are checked. */
  const open = async (cursor: string, fingerprint: string): Promise<Partial<CursorData>> => {
    const [payload, tag, extra] = cursor.split(".");
    if (!payload || !tag || extra !== undefined || !/^[A-Za-z0-9_-]+$/.test(payload)) throw new ToolsError("invalid_request", MALFORMED);
    if (!(await signer.verify(payload, tag))) {
      throw new ToolsError(
        "invalid_request",
        "The cursor was not issued by this server (edited, or the server's secret changed): repeat the request without a cursor.",
      );
    }
    let data: Partial<CursorData> | null;
    try {
      data = JSON.parse(new TextDecoder("utf-8", { fatal: true }).decode(fromBase64Url(payload)));
    } catch {
      throw new ToolsError("invalid_request", MALFORMED);
    }
    // Signed but not ours (another release's format): a number, a string or an array has no f.
    if (data === null || typeof data !== "object" || typeof data.f !== "string") throw new ToolsError("invalid_request", MALFORMED);
    if (data.f !== hash(fingerprint)) {
      throw new ToolsError("invalid_request", "The cursor belongs to another query or filter: repeat the request without a cursor.");
    }
    return data;
  };

  const cursors: Cursors = {
    encode: (offset, fingerprint) => seal({ o: offset }, fingerprint),
    async decode(cursor, fingerprint) {
      const { o } = await open(cursor, fingerprint);
      if (!Number.isSafeInteger(o) || o! < 0) throw new ToolsError("invalid_request", MALFORMED);
      return o!;
    },
    encodePosition: (position, fingerprint) => seal({ p: [position.createdAt.getTime(), position.id] }, fingerprint),
    async decodePosition(cursor, fingerprint) {
      const { p } = await open(cursor, fingerprint);
      const [at, id] = Array.isArray(p) && p.length === 2 ? p : [];
      if (!Number.isSafeInteger(at) || typeof id !== "string") throw new ToolsError("invalid_request", MALFORMED);
      return { createdAt: new Date(at as number), id };
    },
    async paginate(items, options) {
      const offset = options.cursor ? await cursors.decode(options.cursor, options.fingerprint) : 0;
      const end = offset + options.limit;
      return {
        page: items.slice(offset, end),
        nextCursor: end < items.length ? await cursors.encode(end, options.fingerprint) : null,
      };
    },
  };
  return cursors;
}

// Not a secret (the signature is what protects the cursor): it keeps cursors short and tells a
// cursor reused with another query from a forged one (cyrb53).
function hash(text: string): string {
  let h1 = 0xdeadbeef;
  let h2 = 0x41c6ce57;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    h1 = Math.imul(h1 ^ c, 2654435761);
    h2 = Math.imul(h2 ^ c, 1597334677);
  }
  h1 = Math.imul(h1 ^ (h1 >>> 16), 2246822507) ^ Math.imul(h2 ^ (h2 >>> 13), 3266489909);
  h2 = Math.imul(h2 ^ (h2 >>> 16), 2246822507) ^ Math.imul(h1 ^ (h1 >>> 13), 3266489909);
  return (4294967296 * (2097151 & h2) + (h1 >>> 0)).toString(36);
}
