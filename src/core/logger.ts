import { redactFields, redactPatterns, redactSecrets, secretForms } from "./redact.js";

/** Where the library writes its log lines. Every method is optional; the default logs nothing. */
export interface Logger {
  debug?(message: string, fields?: Record<string, unknown>): void;
  info?(message: string, fields?: Record<string, unknown>): void;
  warn?(message: string, fields?: Record<string, unknown>): void;
  error?(message: string, fields?: Record<string, unknown>): void;
}

type Level = keyof Logger;

export { redact } from "./redact.js";

/** The internal logger: redacts every string it is given before the user's logger sees it. */
export interface SafeLogger {
  log(level: Level, message: string, fields?: Record<string, unknown>, secrets?: Iterable<string>): void;
}

/**
 * Wraps the user's logger. The message and every string in the fields, at any depth (error
 * messages and causes included), are redacted of the given secrets and of anything shaped like a
 * credential before the logger sees them. Neither redaction nor a logger that throws can fail the
 * request that logs.
 */
export function createSafeLogger(logger: Logger | undefined): SafeLogger {
  return {
    log(level, message, fields, secrets) {
      const write = logger?.[level];
      if (!write) return;
      try {
        const forms = secretForms(secrets ?? []);
        write.call(logger, redactPatterns(redactSecrets(message, forms)), fields ? redactFields(fields, forms) : undefined);
      } catch {
        // A failing logger must never fail a request.
      }
    },
  };
}
