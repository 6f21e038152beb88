/**
 * Page cursors and the signer behind them: a cursor is accepted only as this server (or another
 * instance or release with the same secret) issued it, for the query it was issued for.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { ToolsError } from "../../src/core/errors.js";
import { createCursors } from "../../src/credentials/cursors.js";
import { createSigner } from "../../src/credentials/signer.js";
import { fromBase64Url, toBase64Url } from "../../src/util/encoding.js";

const SECRET = "cursor-tests-secret-0123456789abcdefghijklmnop";
const OLD_SECRET = "cursor-tests-old-secret-0123456789abcdefghijk";
/** Issued by release 0.1 with `FORMAT_SECRET` for offset 40 of the query "search:github". */
const FORMAT_SECRET = "format-v1-secret-kept-for-compatibility-tests";
const ISSUED_V1 = "eyJvIjo0MCwiZiI6IjFqNG9ib3psbzAyIn0.qGojFMYmjMVB5TmyFyEWPQ";

const MALFORMED = "The cursor is malformed: pass the nextCursor of a previous answer unchanged.";
const NOT_OURS = "The cursor was not issued by this server (edited, or the server's secret changed): repeat the request without a cursor.";
const OTHER_QUERY = "The cursor belongs to another query or filter: repeat the request without a cursor.";

async function refusal(promise: Promise<unknown>): Promise<string> {
  const error = await promise.then(
    (value) => {
      throw new Error(`expected a 400, got ${JSON.stringify(value)}`);
    },
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ToolsError);
  expect((error as ToolsError).status).toBe(400);
  expect((error as ToolsError).code).toBe("invalid_request");
  return (error as ToolsError).message;
}

const ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

describe("the signer", () => {
  it("tags with HMAC-SHA-256 under a key derived by HKDF-SHA-256 (empty salt, info 'tools-proxy <purpose> v1'), cut to 128 bits", async () => {
    const encoder = new TextEncoder();
    for (const purpose of ["cursor", "other"]) {
      const material = await crypto.subtle.importKey("raw", encoder.encode(SECRET), "HKDF", false, ["deriveKey"]);
      const key = await crypto.subtle.deriveKey(
        { name: "HKDF", hash: "SHA-256", salt: new Uint8Array(0), info: encoder.encode(`tools-proxy ${purpose} v1`) },
        material,
        { name: "HMAC", hash: "SHA-256", length: 256 },
        false,
        ["sign"],
      );
      const mac = new Uint8Array(await crypto.subtle.sign("HMAC", key, encoder.encode("value")));
      expect(await createSigner(SECRET, purpose).sign("value")).toBe(toBase64Url(mac.subarray(0, 16)));
    }
    expect(await createSigner(FORMAT_SECRET, "cursor").sign("value")).toBe("RAfS9D75Oo_zIMEXOwB5zw");
  });

  it("keeps purposes apart: a tag made for one purpose does not verify for another", async () => {
    const tag = await createSigner(SECRET, "cursor").sign("value");
    expect(await createSigner(SECRET, "cursor").verify("value", tag)).toBe(true);
    expect(await createSigner(SECRET, "download").verify("value", tag)).toBe(false);
    expect(await createSigner(SECRET, "cursor").verify("value2", tag)).toBe(false);
  });

  it("signs with the first secret and verifies with any of them", async () => {
    const rotated = createSigner([SECRET, OLD_SECRET], "cursor");
    expect(await rotated.sign("v")).toBe(await createSigner(SECRET, "cursor").sign("v"));
    expect(await rotated.verify("v", await createSigner(OLD_SECRET, "cursor").sign("v"))).toBe(true);
    expect(await createSigner(SECRET, "cursor").verify("v", await createSigner(OLD_SECRET, "cursor").sign("v"))).toBe(false);
  });

  it("accepts only the exact tag: not another spelling of its bytes, not a part of it, not more", async () => {
    const signer = createSigner(SECRET, "cursor");
    const tag = await signer.sign("value");
    const last = ALPHABET.indexOf(tag.at(-1)!);
    const spellings = [
      // 22 characters carry 132 bits; the low 4 bits of the last one are not part of the 128-bit tag.
      ...[1, 2, 4, 8].map((bit) => tag.slice(0, -1) + ALPHABET[last ^ bit]),
      `${tag}=`,
      `${tag}==`,
      tag.slice(0, -1),
      `${tag}A`,
      ` ${tag}`,
      "",
    ];
    if (/[-_]/.test(tag)) spellings.push(tag.replace(/-/g, "+").replace(/_/g, "/"));
    for (const spelling of spellings) {
      expect(await signer.verify("value", spelling), spelling).toBe(false);
    }
    expect(fromBase64Url(spellings[0]!)).toEqual(fromBase64Url(tag));
  });
});

describe("cursors", () => {
  const cursors = createCursors(createSigner(SECRET, "cursor"));

  it("accepts a cursor issued by release 0.1, which gives the same one for the same page", async () => {
    const v1 = createCursors(createSigner(FORMAT_SECRET, "cursor"));
    expect(await v1.decode(ISSUED_V1, "search:github")).toBe(40);
    expect(await v1.encode(40, "search:github")).toBe(ISSUED_V1);
    expect(await refusal(v1.decode(ISSUED_V1, "search:gitlab"))).toBe(OTHER_QUERY);
  });

  it("round-trips every offset from 0, and refuses one issued for another query", async () => {
    await fc.assert(
      fc.asyncProperty(fc.nat(), fc.string({ maxLength: 30 }), fc.string({ maxLength: 30 }), async (offset, query, other) => {
        const cursor = await cursors.encode(offset, query);
        expect(await cursors.decode(cursor, query)).toBe(offset);
        if (other !== query) expect(await refusal(cursors.decode(cursor, other))).toBe(OTHER_QUERY);
      }),
      { numRuns: 150 },
    );
    expect(await cursors.decode(await cursors.encode(0, "q"), "q")).toBe(0);
  });

  it("says a cursor is malformed when its shape is wrong, before checking the signature", async () => {
    const [payload, tag] = (await cursors.encode(5, "q")).split(".") as [string, string];
    for (const bad of [
      "",
      payload,
      `${payload}.`,
      `.${tag}`,
      `${payload}.${tag}.${tag}`,
      `=${payload}.${tag}`,
      `${payload}=.${tag}`,
      `${payload.slice(0, 4)}+${payload.slice(5)}.${tag}`,
    ]) {
      expect(await refusal(cursors.decode(bad, "q")), bad).toBe(MALFORMED);
    }
    expect(await refusal(cursors.decode(`${payload}.${tag.slice(0, -1)}${tag.endsWith("A") ? "Q" : "A"}`, "q"))).toBe(NOT_OURS);
  });

  it("says malformed, not 500 and not a page, for a signed payload of another format", async () => {
    const signer = createSigner(SECRET, "cursor");
    const signedCursors = createCursors(signer);
    // The fingerprint hash of "q", as a real cursor carries it.
    const { f } = JSON.parse(new TextDecoder().decode(fromBase64Url((await signedCursors.encode(1, "q")).split(".")[0]!)));
    const payloads: Array<string | Uint8Array> = [
      "not json",
      "null",
      "5",
      '"text"',
      "[]",
      "{}",
      JSON.stringify({ o: -1, f }),
      JSON.stringify({ o: 1.5, f }),
      JSON.stringify({ o: 2 ** 53, f }),
      JSON.stringify({ o: "3", f }),
      JSON.stringify({ f }),
      JSON.stringify({ o: 3 }),
      JSON.stringify({ o: 3, f: 5 }),
      JSON.stringify({ offset: 3, fingerprint: f }),
      // Not UTF-8: read leniently, these bytes would be a valid cursor with f = "\ufffd".
      new Uint8Array([...new TextEncoder().encode('{"o":3,"f":"'), 0xff, ...new TextEncoder().encode('"}')]),
    ];
    for (const raw of payloads) {
      const payload = toBase64Url(raw);
      const cursor = `${payload}.${await signer.sign(payload)}`;
      expect(await refusal(signedCursors.decode(cursor, "q")), String(raw)).toBe(MALFORMED);
    }
    const ours = toBase64Url(JSON.stringify({ o: 3, f }));
    expect(await signedCursors.decode(`${ours}.${await signer.sign(ours)}`, "q")).toBe(3);
  });

  it("pages from the cursor's offset and gives no cursor after the last item", async () => {
    const items = Array.from({ length: 7 }, (_, i) => i);
    const first = await cursors.paginate(items, { limit: 3, fingerprint: "q" });
    expect(first.page).toEqual([0, 1, 2]);
    expect(await cursors.decode(first.nextCursor!, "q")).toBe(3);
    const second = await cursors.paginate(items, { limit: 3, cursor: first.nextCursor!, fingerprint: "q" });
    expect(second.page).toEqual([3, 4, 5]);
    const last = await cursors.paginate(items, { limit: 3, cursor: second.nextCursor!, fingerprint: "q" });
    expect(last).toEqual({ page: [6], nextCursor: null });
    expect(await cursors.paginate(items, { limit: 7, fingerprint: "q" })).toEqual({ page: items, nextCursor: null });
    expect(await cursors.paginate(items, { limit: 9, cursor: await cursors.encode(20, "q"), fingerprint: "q" })).toEqual({
      page: [],
      nextCursor: null,
    });
  });
});
