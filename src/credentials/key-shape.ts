/**
 * What an API key looks like, for the server, the client and the CLI alike: `pak_` (an agent's) or
 * `psk_` (a workspace service's), then 43 base64url characters holding 256 random bits. Imports
 * nothing, so that the client can use it without the server's code.
 */
export const API_KEY_SHAPE = /^(pak|psk)_[A-Za-z0-9_-]{43}$/;

/** The length of every API key. A shorter string is not one: no message is redacted for holding it. */
export const API_KEY_LENGTH = 47;
