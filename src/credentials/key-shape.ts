/**
 * What an API key looks like, for the server's authenticate and the CLI's login check alike:
 * `pak_` (an agent's) or `psk_` (a workspace service's), then 43 base64url characters holding 256
 * random bits. The client keeps its own copy of the length (src/client/transport.ts), checked
 * against this one by a test, so that it imports none of the server's modules.
 */
export const API_KEY_SHAPE = /^(pak|psk)_[A-Za-z0-9_-]{43}$/;

/** The length of every API key. A shorter string is not one. */
export const API_KEY_LENGTH = 47;
