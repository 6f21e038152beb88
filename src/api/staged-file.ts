/**
 * Marker put in the JSON Schema of a staged-file argument, so agents can tell. (A module of its
 * own: the server's public types re-export it, and sharing a module with the client's types
 * would make the declaration bundler split them into a shared chunk.)
 */
export const STAGED_FILE_FORMAT = "tools-proxy-staging-key";

/** Shape of every staging key: `stg_` and URL-safe random characters (`stagedFile()` arguments, bodyFile, /files). */
export const STAGING_KEY_PATTERN = /^stg_[A-Za-z0-9_-]{16,128}$/;
