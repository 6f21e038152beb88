import assert from "node:assert/strict";
import fc from "fast-check";
import { ProxyBodySchema } from "../../src/api/execution.js";
import { ToolsError } from "../../src/core/errors.js";
import type { AuthScheme, Credential } from "../../src/credentials/auth-schemes.js";
import { buildUpstreamHeaders } from "../../src/outbound/headers.js";
import { checkOutboundUrl } from "../../src/outbound/url-policy.js";
import { headersAround, oracleAllows, plainUrlUnder, urlAround, type World } from "./ssrf-arbitraries.js";

/**
 * The pure properties, shared by test/outbound/url-policy.property.test.ts (a small count) and
 * scripts/fuzz-url-policy.ts (a million and more). They use node:assert, not vitest.
 */

/** Counts of what the URL property saw, to show the generator reaches both sides of the policy. */
export interface UrlStats {
  accepted: number;
  refused: number;
}

/** Whatever the URL, the policy accepts it only when the oracle allows it, and then unchanged. */
export function urlPolicyProperty(w: World, stats: UrlStats = { accepted: 0, refused: 0 }) {
  return fc.property(urlAround(w), (raw) => {
    let accepted: URL;
    try {
      accepted = checkOutboundUrl(raw, w.baseUrls, w.params);
    } catch (error) {
      assert.ok(error instanceof ToolsError && error.code === "invalid_request", `not a 400 ToolsError: ${String(error)}`);
      stats.refused++;
      return;
    }
    stats.accepted++;
    assert.ok(oracleAllows(raw, w), `accepted, but the oracle says no credential may go to ${JSON.stringify(raw)}`);
    // What the policy takes, POST /proxy must take too (the end-to-end property sends it there).
    assert.ok(ProxyBodySchema.shape.url.safeParse(raw).success, `accepted, but POST /proxy refuses ${JSON.stringify(raw)}`);
    assert.equal(accepted.href, new URL(raw).href);
  });
}

/** A URL under the base written plainly is accepted as it is: the policy is not just "refuse all". */
export function plainUrlProperty(w: World) {
  return fc.property(plainUrlUnder(w), (raw) => {
    assert.equal(checkOutboundUrl(raw, w.baseUrls, w.params).href, new URL(raw).href);
  });
}

const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
const FORBIDDEN = [
  "connection",
  "keep-alive",
  "te",
  "trailer",
  "transfer-encoding",
  "upgrade",
  "http2-settings",
  "host",
  "cookie",
  "content-length",
  "expect",
];

/** Each scheme, the credential, and the header that must carry exactly `expected` (or none). */
export const SCHEMES: Array<{ scheme: AuthScheme; credential: Credential | null; header: string | null; expected: string | null }> = [
  { scheme: { type: "bearer" }, credential: { type: "bearer", token: "tok-1" }, header: "authorization", expected: "Bearer tok-1" },
  {
    scheme: { type: "basic" },
    credential: { type: "basic", username: "u", password: "p" },
    header: "authorization",
    expected: "Basic dTpw",
  },
  {
    scheme: { type: "apiKey", in: "header", name: "X-Secret-Key" },
    credential: { type: "apiKey", apiKey: "key-1" },
    header: "x-secret-key",
    expected: "key-1",
  },
  {
    scheme: { type: "apiKey", in: "query", name: "api_key" },
    credential: { type: "apiKey", apiKey: "key-2" },
    header: null,
    expected: null,
  },
  { scheme: { type: "none" }, credential: null, header: null, expected: null },
];

/**
 * Whatever the caller's headers: a bad name or value is a 400; otherwise the credential header
 * carries exactly the credential, `authorization` carries nothing else, forbidden, `proxy-*` and
 * Connection-listed headers are gone, and every other header the caller sent is there.
 */
export function headerPolicyProperty() {
  return fc.property(headersAround, fc.constantFrom(...SCHEMES), (caller, { scheme, credential, header, expected }) => {
    const entries = Object.entries(caller);
    const valid = entries.every(
      ([name, value]) => TOKEN.test(name) && [...value].every((c) => c === "\t" || (c >= " " && c !== "\u007f" && c <= "\u00ff")),
    );
    let out: Headers;
    try {
      out = buildUpstreamHeaders(caller, scheme, credential);
    } catch (error) {
      assert.ok(!valid, `valid headers refused: ${JSON.stringify(caller)}`);
      assert.ok(error instanceof ToolsError && error.code === "invalid_request");
      return;
    }
    assert.ok(valid, `invalid headers accepted: ${JSON.stringify(caller)}`);
    if (header) assert.equal(out.get(header), expected);
    if (header !== "authorization") assert.equal(out.get("authorization"), null);
    const listed = entries
      .filter(([name]) => name.toLowerCase() === "connection")
      .flatMap(([, value]) => value.split(",").map((n) => n.trim().toLowerCase()));
    for (const name of out.keys()) {
      assert.ok(!FORBIDDEN.includes(name) && !name.startsWith("proxy-"), `forbidden header ${name} sent`);
      assert.ok(name === header || !listed.includes(name), `header ${name} named in Connection sent`);
    }
    for (const [name] of entries) {
      const lower = name.toLowerCase();
      const dropped =
        FORBIDDEN.includes(lower) || lower.startsWith("proxy-") || listed.includes(lower) || lower === "authorization" || lower === header;
      if (!dropped) assert.ok(out.has(lower), `caller header ${name} lost`);
    }
  });
}
