/** Where the library writes its log lines. Every method is optional; the default logs nothing. */
export interface Logger {
  debug?(message: string, fields?: Record<string, unknown>): void;
  info?(message: string, fields?: Record<string, unknown>): void;
  warn?(message: string, fields?: Record<string, unknown>): void;
  error?(message: string, fields?: Record<string, unknown>): void;
}

type Level = keyof Logger;

// Shapes of secrets that can appear in text the library did not write (an error from a tool or a
// network library): API keys of this library, bearer and basic credentials, and query secrets.
const SECRET_PATTERNS: RegExp[] = [
  /\b(pak|psk)_[A-Za-z0-9_-]{8,}/g,
  /\b(Bearer|Basic)\s+[A-Za-z0-9._~+/=-]{8,}/gi,
  /([?&](?:access_token|refresh_token|id_token|api_key|apikey|key|token|client_secret|code)=)[^&#\s]+/gi,
  // The password of a URL's userinfo, e.g. in a database driver's error message.
  /(\b[a-z][a-z0-9+.-]*:\/\/[^\s:/?#@]*:)[^\s/?#@]+@/gi,
];

/** Replaces every given secret, and anything shaped like a credential, with `[redacted]`. */
export function redact(text: string, secrets: Iterable<string> = []): string {
  let out = text;
  for (const secret of secrets) if (secret && secret.length >= 4) out = out.split(secret).join("[redacted]");
  out = out.replace(SECRET_PATTERNS[0]!, "[redacted]");
  out = out.replace(SECRET_PATTERNS[1]!, "$1 [redacted]");
  out = out.replace(SECRET_PATTERNS[2]!, "$1[redacted]");
  out = out.replace(SECRET_PATTERNS[3]!, "$1[redacted]@");
  return out;
}

/** The internal logger: redacts every string it is given before the user's logger sees it. */
export interface SafeLogger {
  log(level: Level, message: string, fields?: Record<string, unknown>, secrets?: Iterable<string>): void;
}

export function createSafeLogger(logger: Logger | undefined): SafeLogger {
  return {
    log(level, message, fields, secrets) {
      const write = logger?.[level];
      if (!write) return;
      const list = secrets ? [...secrets] : [];
      const clean = fields ? (JSON.parse(redact(JSON.stringify(fields, errorReplacer), list)) as Record<string, unknown>) : undefined;
      try {
        write.call(logger, redact(message, list), clean);
      } catch {
        // A failing logger must never fail a request.
      }
    },
  };
}

function errorReplacer(_key: string, value: unknown): unknown {
  if (value instanceof Error) return { name: value.name, message: value.message };
  return value;
}
