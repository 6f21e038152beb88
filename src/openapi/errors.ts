/** Why an import failed: `code` for a program, the message for a person, `pointer` where the document is wrong. */
export class OpenApiImportError extends Error {
  override readonly name = "OpenApiImportError";

  constructor(
    /**
     * `invalid_document` (not OpenAPI, or invalid: see `pointer`), `too_large` (a limit of
     * `ImportLimits` was reached), `relative_server` (a relative server URL and no `baseUrl`),
     * `invalid_option`, `no_tools` (nothing left to import).
     */
    readonly code: "invalid_document" | "too_large" | "relative_server" | "invalid_option" | "no_tools",
    message: string,
    /** The JSON pointer (RFC 6901) of the first problem in the document, when there is one. */
    readonly pointer?: string,
  ) {
    super(message);
  }
}
