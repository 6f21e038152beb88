/**
 * Redaction of secrets from text and values, before anything is logged or answered. Works on
 * values, never on serialised JSON, so a secret is found however JSON would escape it, and the
 * result is always well-formed. Nothing here throws.
 */

/** What a redacted secret is replaced with. */
export const REDACTED = "[redacted]";

/** Secrets shorter than this are not searched for: they would garble ordinary words. */
export const MIN_SECRET_LENGTH = 4;

// Shapes of secrets that can appear in text the library did not write (an error from a tool or a
// network library): API keys of this library, bearer and basic credentials, query secrets, and
// the password of a URL's userinfo (e.g. in a database driver's error message). No word boundary
// before a key or a scheme: text glued to it ("tokenBearer ...") must not shield it.
const API_KEY = /(pak|psk)_[A-Za-z0-9_-]{8,}/g;
const AUTHORIZATION = /(Bearer|Basic)\s+[A-Za-z0-9._~+/=-]{8,}/gi;
const QUERY_SECRET =
  /([?&](?:access_token|refresh_token|id_token|api_key|apikey|key|token|client_secret|code|password|secret)=)[^&#\s"'<>]+/gi;
const USERINFO_PASSWORD = /(\b[a-z][a-z0-9+.-]*:\/\/[^\s:/?#@]*:)[^\s/?#@]+@/gi;

/**
 * The spellings of each secret that text can carry: as is, escaped inside a JSON string, and
 * percent-encoded (as `encodeURIComponent` and as a form or query string writes it). A secret with
 * an unpaired surrogate (JSON can carry one) is also spelled as encoders and decoders write it, with
 * U+FFFD in its place. Longest first, so that a secret containing another is replaced whole. Every
 * spelling is at least as long as the secret, so none is shorter than `MIN_SECRET_LENGTH`.
 */
export function secretForms(secrets: Iterable<string>): string[] {
  const forms = new Set<string>();
  for (const secret of secrets) {
    if (typeof secret !== "string" || secret.length < MIN_SECRET_LENGTH) continue;
    const wellFormed = secret.replace(/\p{Cs}/gu, "\uFFFD");
    forms.add(secret);
    forms.add(wellFormed);
    forms.add(JSON.stringify(secret).slice(1, -1));
    forms.add(encodeURIComponent(wellFormed));
    forms.add(new URLSearchParams([["", secret]]).toString().slice(1));
  }
  return [...forms].sort((a, b) => b.length - a.length);
}

/** Replaces every form of the given secrets (see `secretForms`) with `[redacted]`. */
export function redactSecrets(text: string, forms: readonly string[]): string {
  let out = text;
  for (const form of forms) out = out.replaceAll(form, REDACTED);
  return out;
}

/** Replaces anything shaped like a credential (see the patterns above) with `[redacted]`. */
export function redactPatterns(text: string): string {
  return text
    .replace(API_KEY, REDACTED)
    .replace(AUTHORIZATION, `$1 ${REDACTED}`)
    .replace(QUERY_SECRET, `$1${REDACTED}`)
    .replace(USERINFO_PASSWORD, `$1${REDACTED}@`);
}

/** Replaces every given secret, and anything shaped like a credential, with `[redacted]`. */
export function redact(text: string, secrets: Iterable<string> = []): string {
  return redactPatterns(redactSecrets(text, secretForms(secrets)));
}

/**
 * A copy of `value` in which every string (object keys included) has the secret forms replaced,
 * for data answered to an agent. Parts that hold no secret are shared, not copied, so a large
 * answer without secrets costs one walk. Credential-shaped text that is not one of `forms` is
 * left alone: an upstream's data may legitimately carry other tokens.
 */
export function redactData(value: unknown, forms: readonly string[]): unknown {
  if (forms.length === 0) return value;
  if (typeof value === "string") return redactSecrets(value, forms);
  if (Array.isArray(value)) {
    let copy: unknown[] | null = null;
    for (const [i, original] of value.entries()) {
      const item = redactData(original, forms);
      if (item === original) continue;
      copy ??= value.slice();
      copy[i] = item;
    }
    return copy ?? value;
  }
  if (value !== null && typeof value === "object") {
    let copy: Record<string, unknown> | null = null;
    for (const [key, item] of Object.entries(value)) {
      const cleanKey = redactSecrets(key, forms);
      const cleanItem = redactData(item, forms);
      if (cleanKey !== key || cleanItem !== item) {
        copy ??= { ...(value as Record<string, unknown>) };
        if (cleanKey !== key) delete copy[key];
        copy[cleanKey] = cleanItem;
      }
    }
    return copy ?? value;
  }
  return value;
}

/** Deepest nesting of log fields kept; deeper values are replaced by a marker. */
const MAX_DEPTH = 8;

/**
 * Log fields made safe to hand to a logger: plain JSON-like values in which every string is
 * redacted (secret forms and credential shapes). Errors become `{ name, message, code?, cause? }`
 * (see `describeError`), cycles and depth are cut, and values JSON
 * cannot hold are described instead. Never throws.
 */
export function redactFields(fields: Record<string, unknown>, forms: readonly string[]): Record<string, unknown> {
  const text = (s: string) => redactPatterns(redactSecrets(s, forms));
  const ancestors = new Set<object>();
  const walk = (value: unknown, depth: number): unknown => {
    if (typeof value === "string") return text(value);
    if (typeof value === "number" || typeof value === "boolean" || value === null || value === undefined) return value;
    if (typeof value === "bigint") return value.toString();
    if (typeof value !== "object") return undefined; // functions and symbols
    if (ancestors.has(value)) return "[circular]";
    if (depth >= MAX_DEPTH) return "[nested too deep]";
    ancestors.add(value);
    try {
      if (value instanceof Error) return walk(describeError(value), depth);
      if (value instanceof Date) return Number.isNaN(value.getTime()) ? "Invalid Date" : value.toISOString();
      if (ArrayBuffer.isView(value) || value instanceof ArrayBuffer) return `[${value.byteLength} bytes]`;
      if (value instanceof URL) return text(value.href);
      if (value instanceof Map) return walk(Object.fromEntries(value), depth + 1);
      if (value instanceof Set || Array.isArray(value)) return [...value].map((item) => walk(item, depth + 1));
      const out: Record<string, unknown> = {};
      for (const [key, item] of Object.entries(value)) out[text(key)] = walk(item, depth + 1);
      return out;
    } finally {
      ancestors.delete(value);
    }
  };
  try {
    return walk(fields, 0) as Record<string, unknown>;
  } catch {
    return { fields: "[could not be read]" };
  }
}

/**
 * What a log line keeps of an error: its name, message and code, the stack of an error without a
 * code (a bug, not an expected failure), and a cause that is itself an error. Other properties and
 * a cause that is data (an OAuth library puts the provider's response body there, which may quote
 * a token) are left out: they are payloads, not diagnostics.
 */
function describeError(error: Error): Record<string, unknown> {
  const described: Record<string, unknown> = { name: error.name, message: error.message };
  const code = (error as { code?: unknown }).code;
  if (typeof code === "string" || typeof code === "number") described.code = code;
  else if (error.stack) described.stack = error.stack;
  if (error.cause instanceof Error) described.cause = error.cause;
  return described;
}
