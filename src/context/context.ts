import type { BlobStore } from "../blob/types.js";
import type { SafeLogger } from "../core/logger.js";
import type { Credential } from "../credentials/auth-schemes.js";
import type { CredentialCipher } from "../credentials/cipher.js";
import type { Cursors } from "../credentials/cursors.js";
import type { ApiKeyCache } from "../credentials/key-cache.js";
import type { Signer } from "../credentials/signer.js";
import type { LimitsHook } from "../limits/types.js";
import type { AddressLookup } from "../outbound/guarded-fetch.js";
import type { RetryPolicy } from "../outbound/retry.js";
import type { LeaseStore } from "../store/leases.js";
import type { ApiKeyRecord, ConnectionRecord, Principal, ToolsStore } from "../store/types.js";
import { hasOriginInput, type Toolkit } from "../toolkits/define.js";
import type { ToolkitRegistry } from "../toolkits/registry.js";
import type { ConnectPageSettings } from "./connect-page.js";

/** Names of the events a handler reports through `hooks`. */
export interface ToolsEvents {
  "connection.created": { workspaceId: string; agentId: string; connectionId: string; toolkit: string };
  "connection.deleted": { principal: Principal; connectionId: string; toolkit: string };
  "tool.executed": {
    principal: Principal;
    tool: string;
    toolkit: string;
    connectionId: string | null;
    successful: boolean;
    durationMs: number;
  };
  "proxy.requested": {
    principal: Principal;
    toolkit: string;
    connectionId: string | null;
    method: string;
    host: string;
    status: number | null;
    durationMs: number;
  };
  "file.staged": { principal: Principal; stagingKey: string; size: number; contentType: string };
  "auth.completed": { authorizationId: string; toolkit: string; agentId: string; connectionId: string };
  "auth.failed": { authorizationId: string; toolkit: string; agentId: string; error: string };
  "token.refreshed": { connectionId: string; toolkit: string; expiresAt: Date | null; rotated: boolean };
  "connection.expired": { connectionId: string; toolkit: string; reason: string };
}

/** Event callbacks. A hook that throws or rejects is logged and never fails the request. */
export type ToolsHooks = { [E in keyof ToolsEvents]?: (event: ToolsEvents[E]) => void | Promise<void> };

/** Upload limits and staging lifetime. */
export interface UploadSettings {
  /** Largest file accepted, in bytes. */
  maxBytes: number;
  /** How long a staged file lives, in milliseconds. */
  ttlMs: number;
  /** Accepted media types; `type/*` wildcards allowed. */
  allowedContentTypes: string[];
}

/**
 * What the routes and the services below them share, resolved once by `createToolsHandler` and
 * private to the handler. Functions take the part they need (`Pick<HandlerContext, ...>`).
 */
export interface HandlerContext {
  /** The store, for this request: its reads stop when the request's signal aborts (`withSignal`). */
  store: ToolsStore;
  /** The same store, stopped by no request: for work several requests share (an OAuth refresh). */
  sharedStore: ToolsStore;
  registry: ToolkitRegistry;
  blobStore: BlobStore;
  cipher: CredentialCipher;
  /** Signs and checks the page cursors of list routes. */
  cursors: Cursors;
  /** Signs and checks the connect page's anti-forgery field. */
  forms: Signer;
  /** The connect page's name, colour and texts (the `connectPage` option). */
  connectPage: ConnectPageSettings;
  basePath: string;
  publicUrl: URL | null;
  allowedReturnOrigins: string[];
  /**
   * Origins whose pages may call the API from a browser: `publicUrl`'s and the `cors` option's,
   * or `"*"` when `cors` allows any. The MCP route refuses a request from any other `Origin`.
   */
  browserOrigins: string[] | "*";
  logger: SafeLogger;
  /** The outbound fetch (the `fetch` option, or the global one). */
  fetch: typeof fetch;
  /**
   * The address policy of origin inputs: with `allowPrivateNetworks` off, a connection's origin
   * must resolve to public addresses only, and requests to it go through `originFetch`, which
   * checks every address again at each new connection (see `fetchFor`).
   */
  origins: { allowPrivateNetworks: boolean; lookup: AddressLookup; originFetch: typeof fetch };
  timeouts: { toolMs: number; proxyMs: number };
  uploads: UploadSettings;
  /** Largest upstream response body read by the proxy or through a tool's `ctx.fetch`, in bytes. */
  maxResponseBytes: number;
  /** Retries of outbound calls for toolkits without their own; null when off. */
  retries: RetryPolicy | null;
  /** The rate-limit and credit check, if configured. */
  limits: LimitsHook | undefined;
  /** How long an OAuth refresh holds its lease at most, in milliseconds (`refreshLeaseMs`). */
  refreshLeaseMs: number;
  /** The OAuth refresh's leases: the `leases` option, or the store's own. */
  leases: LeaseStore;
  /** OAuth refreshes in flight in this handler, by connection id: concurrent callers share one. */
  refreshes: Map<string, Promise<{ connection: ConnectionRecord; credential: Credential }>>;
  /** API keys looked up recently (the `apiKeyCache` option); null when off. */
  apiKeys: ApiKeyCache | null;
  /** The record of the API key with this hash: through `apiKeys` when on, else read `from` the store (the request's, whose read stops with it). */
  findApiKey(hash: string, from: ToolsStore): Promise<ApiKeyRecord | null>;
  /** Reports an event to its hook, if any, without failing the request. */
  emit<E extends keyof ToolsEvents>(event: E, payload: ToolsEvents[E]): void;
}

/**
 * The fetch for a toolkit's outbound requests: the address-checking one when a connection chose
 * the toolkit's origin (an `origin` input) or the toolkit is a remote MCP server, and private
 * networks are not allowed, else `ctx.fetch`.
 */
export function fetchFor(ctx: HandlerContext, toolkit: Pick<Toolkit, "inputs" | "remote">): typeof fetch {
  if (!hasOriginInput(toolkit) && !toolkit.remote) return ctx.fetch;
  return ctx.origins.allowPrivateNetworks ? ctx.fetch : ctx.origins.originFetch;
}
