/**
 * What the example apps talk to, run in the test process: the recording upstream API of the
 * in-process tests (an API-key toolkit, `acme`) and the real OpenID Connect server (an OAuth 2
 * toolkit, `notes`). `appEnv` configures an example app (examples/shared/tools.ts) for them.
 */
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type OidcServer, startOidcServer } from "../support/oidc-server.js";
import { startServer, type TestServer, upstreamRoute } from "../support/upstream.js";

export const DEFAULT_BASE = "/proxy/tools";
/** A basePath of another depth and name than the default, to show that no adapter assumes it. */
export const CUSTOM_BASE = "/api/v2/tools";
/** The apps' public origin: OAuth redirect URLs use it; tests send the callback to the real address. */
export const PUBLIC_URL = "https://app.test";
export const RETURN_ORIGIN = "https://dashboard.test";
/** Largest staged file the apps accept (`uploads.maxBytes`). */
export const MAX_UPLOAD_BYTES = 80 * 1024 * 1024;
/** Tools of the `bulk` toolkit: more than one MCP tools/list page. */
export const BULK_TOOLS = 120;
export const SCOPES = ["openid", "profile", "email", "offline_access", "notes:read"];

export interface Fixtures {
  upstream: TestServer;
  as: OidcServer;
  /** The API key the tests connect `acme` with. */
  acmeKey: string;
  /** Environment of an example app serving under `basePath`; staged files go to a directory of its own. */
  appEnv(basePath: string): Record<string, string>;
  close(): Promise<void>;
}

export async function startFixtures(): Promise<Fixtures> {
  const upstream = await startServer(upstreamRoute);
  const as = await startOidcServer({ redirectUris: [DEFAULT_BASE, CUSTOM_BASE].map((base) => `${PUBLIC_URL}${base}/auth/callback`) });
  const directories: string[] = [];
  const toolkits = [
    {
      slug: "acme",
      name: "Acme",
      description: "The recording upstream, with an API key in a header.",
      baseUrl: `${upstream.origin}/v1`,
      auth: { type: "apiKey", in: "header", name: "X-Acme-Key" },
      tools: [{ slug: "ACME_ECHO", name: "Echo", description: "Calls the upstream's echo endpoint.", method: "GET", path: "/echo" }],
    },
    {
      slug: "notes",
      name: "Notes",
      description: "The OpenID Connect fixture's protected API.",
      baseUrl: as.apiBaseUrl,
      auth: {
        type: "oauth2",
        authorizationUrl: as.endpoints.authorization,
        tokenUrl: as.endpoints.token,
        clientId: as.clientId,
        clientSecret: "${NOTES_CLIENT_SECRET}",
        scopes: SCOPES,
        userInfoUrl: as.endpoints.userinfo,
        revocationUrl: as.endpoints.revocation,
      },
      tools: [{ slug: "NOTES_ME", name: "Me", description: "Reads the account behind the token.", method: "GET", path: "/me" }],
    },
    {
      // For the MCP checks: more tools than a tools/list page, and one whose upstream fails.
      slug: "bulk",
      name: "Bulk",
      description: "Many tools on the recording upstream, without auth.",
      baseUrl: `${upstream.origin}/v1`,
      auth: { type: "none" },
      tools: [
        ...Array.from({ length: BULK_TOOLS - 1 }, (_, i) => ({
          slug: `BULK_${i}`,
          name: `Bulk ${i}`,
          description: `Echo number ${i}.`,
          method: "GET",
          path: "/echo",
        })),
        { slug: "BULK_FAIL", name: "Fail", description: "Gets an upstream 503.", method: "GET", path: "/status/503" },
      ],
    },
    {
      // For the MCP checks: an OAuth toolkit that no test connects, so a call needs a connection.
      slug: "drafts",
      name: "Drafts",
      description: "The OpenID Connect fixture again, never connected.",
      baseUrl: as.apiBaseUrl,
      auth: {
        type: "oauth2",
        authorizationUrl: as.endpoints.authorization,
        tokenUrl: as.endpoints.token,
        clientId: as.clientId,
        clientSecret: "${NOTES_CLIENT_SECRET}",
        scopes: SCOPES,
      },
      tools: [{ slug: "DRAFTS_ME", name: "Me", description: "Reads the account behind the token.", method: "GET", path: "/me" }],
    },
  ];
  return {
    upstream,
    as,
    acmeKey: `acme-${randomBytes(12).toString("hex")}`,
    appEnv(basePath) {
      const files = mkdtempSync(join(tmpdir(), "tools-proxy-app-files-"));
      directories.push(files);
      return {
        PORT: "0",
        TOOLS_PROXY_SECRET: randomBytes(32).toString("base64"),
        TOOLS_PROXY_BASE_PATH: basePath,
        TOOLS_PROXY_PUBLIC_URL: PUBLIC_URL,
        TOOLS_PROXY_RETURN_ORIGINS: RETURN_ORIGIN,
        TOOLS_PROXY_TOOLKITS: JSON.stringify(toolkits),
        TOOLS_PROXY_MAX_UPLOAD_BYTES: String(MAX_UPLOAD_BYTES),
        TOOLS_PROXY_FILES_DIR: files,
        NOTES_CLIENT_SECRET: as.clientSecret,
        NEXT_TELEMETRY_DISABLED: "1",
      };
    },
    async close() {
      await Promise.all([upstream.close(), as.close()]);
      for (const directory of directories) rmSync(directory, { recursive: true, force: true });
    },
  };
}
