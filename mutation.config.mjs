/**
 * What `npm run mutate` mutates, and which tests can kill each file's mutants. The tests listed
 * need no database, Redis, S3, browser or child process, so a run fits this machine; each mutant
 * then runs only the tests that cover it (Stryker's per-test coverage).
 */
// The outbound path's own tests, not its real-server ones (1 GiB bodies, stalls, retries: too slow
// for each mutant), and the routes that use it.
const OUTBOUND = [
  "test/outbound/headers-edges.test.ts",
  "test/outbound/headers-placement.test.ts",
  "test/outbound/outbound-calls.test.ts",
  "test/outbound/ssrf-headers.test.ts",
  "test/outbound/ssrf-table.test.ts",
  "test/outbound/trusted-headers.test.ts",
  "test/outbound/upstream-answers.test.ts",
  "test/outbound/url-policy-edges.test.ts",
  "test/outbound/url-policy.property.test.ts",
  "test/outbound/url-policy.test.ts",
  "test/routes/proxy.test.ts",
  "test/routes/execute.test.ts",
  "test/routes/request-edges.test.ts",
  "test/routes/call-failures.test.ts",
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
  "test/routes/auth-connections.test.ts",
  "test/security/credential-values.test.ts",
  // Providers' quirks (scope separators, PKCE off, revocation requests) are proven end to end here.
  "test/catalog/flows/*.test.ts",
  "test/catalog/entries.test.ts",
  "test/connect-link/flow.test.ts",
  "test/oauth/token-answer-quirks.test.ts",
  "test/oauth/callback-token-scopes.test.ts",
];
const LOGS = [
  "test/core/redact.test.ts",
  "test/core/redact-spellings.test.ts",
  "test/routes/upstream-text-redaction.test.ts",
  "test/routes/leaks.test.ts",
  "test/routes/call-failures.test.ts",
  "test/security/credential-values.test.ts",
  "test/routes/execute.test.ts",
  "test/routes/proxy.test.ts",
];

// Token grants: the grant functions unit by unit, and every family end to end over real HTTP
// (SQLite files and memory stores only).
const GRANTS = ["test/grants/*.test.ts"];

// The connect link over HTTP (memory store), and POST /auth's credential checks.
const CONNECT = ["test/connect-link/flow.test.ts", "test/routes/auth-connections.test.ts"];

// Declared requests of JSON toolkits (OpenAPI styles, bodies), unit and end to end over real HTTP.
const DECLARED = [
  "test/toolkits/declared-request-unit.test.ts",
  "test/toolkits/declared-request.test.ts",
  "test/toolkits/host-input.test.ts",
  "test/toolkits/lazy-validators.test.ts",
  "test/toolkits/redos.test.ts",
  "test/toolkits/schema-patterns.test.ts",
  "test/toolkits/serialize.test.ts",
];

// Origin inputs: the address and origin rules, the pinned connection, and the checks of POST /auth.
const ORIGINS = [
  "test/outbound/origin-policy.test.ts",
  "test/outbound/guarded-fetch.test.ts",
  "test/security/origin-inputs.test.ts",
  "test/security/origin-private-networks.test.ts",
];

export const SELECTION = {
  "src/outbound/origin-policy.ts": ORIGINS,
  "src/outbound/guarded-fetch.ts": ORIGINS,
  "src/outbound/url-policy.ts": OUTBOUND,
  "src/outbound/headers.ts": OUTBOUND,
  "src/outbound/fetch.ts": OUTBOUND,
  // createUndiciFetch's answers read whole take their own path through readUpstreamData.
  "src/execution/upstream-result.ts": [
    ...OUTBOUND,
    "test/uploads/staged-files.test.ts",
    "test/node/undici-fetch.test.ts",
    "test/routes/upstream-whole.test.ts",
  ],
  // The whole answers and request bodies of the Node bridge and createUndiciFetch (src/core/whole-bodies.ts).
  "src/core/whole-bodies.ts": [
    "test/routes/whole-bodies.test.ts",
    "test/routes/upstream-whole.test.ts",
    "test/adapters/serve-node.test.ts",
    "test/node/undici-fetch.test.ts",
    "test/routes/proxy.test.ts",
  ],
  "src/credentials/api-keys.ts": [
    "test/credentials/api-keys.test.ts",
    "test/routes/auth-keys.test.ts",
    "test/routes/request-edges.test.ts",
    "test/routes/isolation.test.ts",
    "test/routes/errors.test.ts",
  ],
  "src/credentials/key-shape.ts": ["test/credentials/api-keys.test.ts", "test/routes/auth-keys.test.ts"],
  // Several secrets and where each goes: the placements module, with the flows that place each.
  "src/credentials/placements.ts": [
    "test/credentials/placements.test.ts",
    "test/catalog/flows/telegram.test.ts",
    "test/catalog/flows/freshdesk.test.ts",
    // Values beside a token: the outbound headers, then Twitch, Google Ads, Etsy and Blackbaud end to end.
    "test/outbound/beside-token.test.ts",
    "test/catalog/flows/oauth-values.test.ts",
  ],
  // The API key cache: what a revoked key may still do is its doing.
  "src/credentials/key-cache.ts": [
    "test/credentials/key-cache.test.ts",
    "test/credentials/api-keys.test.ts",
    "test/routes/auth-keys.test.ts",
  ],
  "src/util/ttl-cache.ts": ["test/credentials/key-cache.test.ts", "test/credentials/opened-values.test.ts"],
  "src/credentials/cipher.ts": [
    "test/credentials/cipher.test.ts",
    "test/credentials/cipher-paths.test.ts",
    "test/security/credential-values.test.ts",
  ],
  "src/credentials/sealing.ts": ["test/credentials/sealing.test.ts", "test/credentials/cipher.test.ts"],
  "src/credentials/signer.ts": [
    "test/credentials/cursors.test.ts",
    "test/toolkits/search.test.ts",
    "test/routes/catalog.test.ts",
    "test/routes/request-edges.test.ts",
  ],
  "src/credentials/cursors.ts": [
    "test/credentials/cursors.test.ts",
    "test/toolkits/search.test.ts",
    "test/routes/catalog.test.ts",
    "test/routes/request-edges.test.ts",
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
  // A provider's own token requests (Instagram's upgrade and refresh): unit by unit over real HTTP, then the flow.
  "src/oauth/token-template.ts": ["test/oauth/token-template.test.ts", "test/catalog/flows/instagram.test.ts"],
  // What oauthClient hands oauth4webapi, unit by unit; client-basic proves the Basic header against a real server.
  "src/oauth/client.ts": ["test/oauth/oauth-client-options.test.ts", "test/oauth/client-basic.test.ts"],
  "src/execution/access.ts": [...OAUTH, ...OUTBOUND],
  "src/grants/client-credentials.ts": GRANTS,
  "src/grants/token-exchange.ts": GRANTS,
  "src/grants/token-request.ts": GRANTS,
  "src/grants/template.ts": GRANTS,
  "src/credentials/grant-fields.ts": GRANTS,
  "src/grants/renew.ts": GRANTS,
  "src/grants/connect.ts": GRANTS,
  "src/grants/fresh.ts": GRANTS,
  "src/grants/registry.ts": GRANTS,
  "src/grants/jwt-bearer.ts": GRANTS,
  "src/grants/app-installation.ts": GRANTS,
  "src/grants/private-key.ts": GRANTS,
  "src/grants/service-account.ts": GRANTS,
  // Config inputs, and the merged paths each family adds: origins (the SSRF corpus), path placements, grant templates.
  "src/connections/config.ts": [
    "test/connections/config-inputs.test.ts",
    "test/toolkits/host-input.test.ts",
    "test/toolkits/inputs.test.ts",
    "test/security/origin-inputs.test.ts",
    "test/security/origin-private-networks.test.ts",
    "test/catalog/flows/telegram.test.ts",
    "test/grants/two-step.test.ts",
    "test/grants/client-credentials-providers.test.ts",
    "test/routes/auth-modes.test.ts",
  ],
  // The fields of each way to connect, and the input kinds: their units, then POST /auth and the connect page.
  "src/credentials/fields.ts": [
    "test/credentials/fields.test.ts",
    "test/routes/auth-modes.test.ts",
    "test/routes/auth-connections.test.ts",
    "test/catalog/flows/datadog.test.ts",
    "test/grants/paypal.test.ts",
    "test/grants/jwt-flows.test.ts",
    "test/grants/client-credentials-providers.test.ts",
  ],
  // Which OAuth endpoints a toolkit may declare: https (http on loopback), no fragment, under an origin input.
  "src/toolkits/oauth-endpoints.ts": ["test/toolkits/oauth-endpoints.test.ts"],
  "src/toolkits/inputs.ts": [
    "test/toolkits/inputs.test.ts",
    "test/toolkits/host-input.test.ts",
    "test/connections/config-inputs.test.ts",
    "test/routes/auth-modes.test.ts",
  ],
  "src/openapi/security.ts": ["test/openapi/security-schemes.test.ts"],
  "src/connect-link/link.ts": ["test/connect-link/link-lifecycle.test.ts", ...CONNECT],
  "src/connect-link/verify.ts": ["test/connect-link/verify-outcomes.test.ts", "test/connect-link/flow.test.ts"],
  "src/connect-link/submit.ts": ["test/connect-link/submit-outcomes.test.ts"],
  "src/mcp/names.ts": ["test/mcp/names-and-origin.test.ts"],
  "src/mcp/origin.ts": ["test/mcp/names-and-origin.test.ts"],
  "src/mcp/tools.ts": ["test/mcp/tool-descriptions.test.ts"],
  "src/mcp/results.ts": ["test/mcp/call-result-shapes.test.ts", "test/mcp/connection-needed.test.ts"],
  // Which answer URLs a client may follow: the rule alone, then the passthrough over real HTTP with SDKs.
  "src/execution/answer-urls.ts": [
    "test/routes/passthrough/answer-urls.test.ts",
    "test/routes/passthrough/policy.test.ts",
    "test/routes/passthrough/foreign-urls.test.ts",
  ],
  // Which bodies the streaming secret scanner treats as text. The scanner itself (src/core/redact-bytes.ts,
  // 82.9%) stays out until its speed paths can be observed: see docs/mutation-testing.md.
  "src/core/body-kind.ts": ["test/core/redact-bytes.test.ts", "test/core/redact-bytes-edges.test.ts"],
  // A provider's declared rate-limit headers: when an answer is a rate limit, and how long to wait.
  "src/core/rate-limit-headers.ts": ["test/core/rate-limit-headers.test.ts", "test/toolkits/provider-requests.test.ts"],
  "src/core/redact.ts": LOGS,
  "src/core/logger.ts": LOGS,
  "src/toolkits/serialize.ts": DECLARED,
  "src/toolkits/http-request.ts": DECLARED,
  "src/toolkits/request-body.ts": DECLARED,
  "src/uploads/signatures.ts": ["test/uploads/signatures.test.ts", "test/uploads/multipart.test.ts"],
  "src/util/encoding.ts": [
    "test/util/encoding.test.ts",
    "test/credentials/cipher-paths.test.ts",
    "test/credentials/cursors.test.ts",
    "test/credentials/api-keys.test.ts",
    "test/credentials/cipher.test.ts",
  ],
};

/** Every test file of the selection, once. */
export function testsFor(files) {
  return [...new Set(files.flatMap((file) => SELECTION[file] ?? []))];
}
