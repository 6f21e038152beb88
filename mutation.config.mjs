/**
 * What `npm run mutate` mutates, and which tests can kill each file's mutants. The tests listed
 * need no database, Redis, S3, browser or child process, so a run fits this machine; each mutant
 * then runs only the tests that cover it (Stryker's per-test coverage).
 */
const OUTBOUND = [
  "test/outbound/*.test.ts",
  "test/http/proxy.test.ts",
  "test/http/execute.test.ts",
  "test/http/request-edges.test.ts",
  "test/http/call-failures.test.ts",
  "test/security/credential-values.test.ts",
];
// The OIDC fixture's own test is not here: it covers no source file, and would run for each static mutant.
const OAUTH = [
  "test/oauth/flow.test.ts",
  "test/oauth/refresh.test.ts",
  "test/oauth/revoke.test.ts",
  "test/oauth/authorization-url.test.ts",
  "test/oauth/callback-edges.test.ts",
  "test/oauth/refresh-edges.test.ts",
  "test/oauth/revoke-edges.test.ts",
  "test/oauth/refreshed-token-redaction.test.ts",
  "test/http/auth-connections.test.ts",
  "test/security/credential-values.test.ts",
  // Providers' quirks (scope separators, PKCE off, revocation requests) are proven end to end here.
  "test/catalog/flows/*.test.ts",
  "test/catalog/entries.test.ts",
  "test/connect/flow.test.ts",
  "test/oauth/token-answer-quirks.test.ts",
  "test/oauth/callback-token-scopes.test.ts",
];
const LOGS = [
  "test/redact.test.ts",
  "test/redact-spellings.test.ts",
  "test/http/upstream-text-redaction.test.ts",
  "test/http/leaks.test.ts",
  "test/http/call-failures.test.ts",
  "test/security/credential-values.test.ts",
  "test/http/execute.test.ts",
  "test/http/proxy.test.ts",
];

// The connect link over HTTP (memory store), and POST /auth's credential checks.
const CONNECT = ["test/connect/flow.test.ts", "test/http/auth-connections.test.ts"];

// Declared requests of JSON toolkits (OpenAPI styles, bodies), unit and end to end over real HTTP.
const DECLARED = ["test/toolkits/*.test.ts"];

export const SELECTION = {
  "src/outbound/url-policy.ts": OUTBOUND,
  "src/outbound/headers.ts": OUTBOUND,
  "src/outbound/fetch.ts": OUTBOUND,
  // createUndiciFetch's answers read whole take their own path through readUpstreamData.
  "src/execution/upstream-result.ts": [
    ...OUTBOUND,
    "test/staged-files.test.ts",
    "test/outbound-io/undici-fetch.test.ts",
    "test/http/upstream-whole.test.ts",
  ],
  // The whole answers and request bodies of the Node bridge and createUndiciFetch (src/core/whole-bodies.ts).
  "src/core/whole-bodies.ts": [
    "test/http/whole-bodies.test.ts",
    "test/http/upstream-whole.test.ts",
    "test/adapters/serve-node.test.ts",
    "test/outbound-io/undici-fetch.test.ts",
    "test/http/proxy.test.ts",
  ],
  "src/credentials/api-keys.ts": [
    "test/credentials/api-keys.test.ts",
    "test/http/auth-keys.test.ts",
    "test/http/request-edges.test.ts",
    "test/http/isolation.test.ts",
    "test/http/errors.test.ts",
  ],
  "src/credentials/key-shape.ts": ["test/credentials/api-keys.test.ts", "test/http/auth-keys.test.ts"],
  // The API key cache: what a revoked key may still do is its doing.
  "src/credentials/key-cache.ts": [
    "test/credentials/key-cache.test.ts",
    "test/credentials/api-keys.test.ts",
    "test/http/auth-keys.test.ts",
  ],
  "src/util/ttl-cache.ts": ["test/credentials/key-cache.test.ts", "test/credentials/opened-values.test.ts"],
  "src/credentials/cipher.ts": ["test/cipher.test.ts", "test/credentials/cipher-paths.test.ts", "test/security/credential-values.test.ts"],
  "src/credentials/sealing.ts": ["test/credentials/sealing.test.ts", "test/cipher.test.ts"],
  "src/credentials/signer.ts": [
    "test/credentials/cursors.test.ts",
    "test/search.test.ts",
    "test/http/catalog.test.ts",
    "test/http/request-edges.test.ts",
  ],
  "src/credentials/cursors.ts": [
    "test/credentials/cursors.test.ts",
    "test/search.test.ts",
    "test/http/catalog.test.ts",
    "test/http/request-edges.test.ts",
  ],
  "src/oauth/start.ts": OAUTH,
  "src/oauth/callback.ts": OAUTH,
  "src/oauth/refresh.ts": OAUTH,
  "src/oauth/revoke.ts": OAUTH,
  // Unit tests of each answer shape; the flows reach the same code through oauth4webapi.
  "src/oauth/token-answer.ts": [
    "test/oauth/token-answer-quirks.test.ts",
    "test/oauth/token-answer-shapes.test.ts",
    "test/catalog/flows/notion.test.ts",
  ],
  "src/oauth/values.ts": ["test/oauth/definition-values.test.ts"],
  // What oauthClient hands oauth4webapi, unit by unit; client-basic proves the Basic header against a real server.
  "src/oauth/client.ts": ["test/oauth/oauth-client-options.test.ts", "test/oauth/client-basic.test.ts"],
  "src/execution/access.ts": [...OAUTH, ...OUTBOUND],
  "src/connections/config.ts": ["test/connections/config-inputs.test.ts", "test/toolkits/host-input.test.ts"],
  "src/openapi/security.ts": ["test/openapi/security-schemes.test.ts"],
  "src/connect/link.ts": ["test/connect/link-lifecycle.test.ts", ...CONNECT],
  "src/connect/verify.ts": ["test/connect/verify-outcomes.test.ts", "test/connect/flow.test.ts"],
  "src/connect/submit.ts": ["test/connect/submit-outcomes.test.ts"],
  "src/mcp/names.ts": ["test/mcp/names-and-origin.test.ts"],
  "src/mcp/origin.ts": ["test/mcp/names-and-origin.test.ts"],
  "src/mcp/tools.ts": ["test/mcp/tool-descriptions.test.ts"],
  "src/mcp/results.ts": ["test/mcp/call-result-shapes.test.ts", "test/mcp/connection-needed.test.ts"],
  // Which answer URLs a client may follow: the rule alone, then the passthrough over real HTTP with SDKs.
  "src/execution/answer-urls.ts": [
    "test/passthrough/answer-urls.test.ts",
    "test/passthrough/policy.test.ts",
    "test/passthrough/foreign-urls.test.ts",
  ],
  // Which bodies the streaming secret scanner treats as text. The scanner itself (src/core/redact-bytes.ts,
  // 82.9%) stays out until its speed paths can be observed: see docs/mutation-testing.md.
  "src/core/body-kind.ts": ["test/redact-bytes.test.ts", "test/core/redact-bytes-edges.test.ts"],
  "src/core/redact.ts": LOGS,
  "src/core/logger.ts": LOGS,
  "src/toolkits/serialize.ts": DECLARED,
  "src/toolkits/http-request.ts": DECLARED,
  "src/toolkits/request-body.ts": DECLARED,
  "src/uploads/signatures.ts": ["test/upload-signatures.test.ts", "test/multipart.test.ts"],
  "src/util/encoding.ts": [
    "test/encoding.test.ts",
    "test/credentials/cipher-paths.test.ts",
    "test/credentials/cursors.test.ts",
    "test/credentials/api-keys.test.ts",
    "test/cipher.test.ts",
  ],
};

/** Every test file of the selection, once. */
export function testsFor(files) {
  return [...new Set(files.flatMap((file) => SELECTION[file] ?? []))];
}
