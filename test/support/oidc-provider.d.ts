/**
 * Minimal type declarations for `oidc-provider` (a devDependency used only by the test fixture
 * in `test/support/oidc-server.ts`; the package ships no types). Only the surface the fixture
 * touches is declared; everything else is `unknown`.
 */
declare module "oidc-provider" {
  import type { IncomingMessage, ServerResponse } from "node:http";

  /** The slice of oidc-provider's Koa context the fixture reads. */
  export interface KoaContextWithOIDC {
    method: string;
    path: string;
    query: Record<string, string | string[] | undefined>;
    status: number;
    body: unknown;
    type: string;
    oidc?: {
      route?: string;
      params?: Record<string, unknown>;
      client?: { clientId: string };
    };
  }

  /** What an adapter stores for one model instance. */
  export interface AdapterPayload {
    [key: string]: unknown;
    grantId?: string;
    uid?: string;
    userCode?: string;
    consumed?: unknown;
    jti?: string;
  }

  /** oidc-provider's storage adapter interface (one instance per model name). */
  export interface Adapter {
    upsert(id: string, payload: AdapterPayload, expiresIn?: number): Promise<void>;
    find(id: string): Promise<AdapterPayload | undefined>;
    findByUserCode(userCode: string): Promise<AdapterPayload | undefined>;
    findByUid(uid: string): Promise<AdapterPayload | undefined>;
    consume(id: string): Promise<void>;
    destroy(id: string): Promise<void>;
    revokeByGrantId(grantId: string): Promise<void>;
  }

  export interface Account {
    accountId: string;
    claims(use: string, scope: string, claims: unknown, rejected: string[]): Promise<Record<string, unknown>>;
  }

  export type Configuration = Record<string, unknown>;

  /** A stored token model (AccessToken, RefreshToken, ...) as returned by `Model.find`. */
  export interface TokenModel {
    jti: string;
    exp?: number;
    scope?: string;
    accountId?: string;
    clientId?: string;
    grantId?: string;
    /** The resource (RFC 8707) the token is for, when it was issued for one. */
    aud?: string | string[];
    isExpired: boolean;
    isValid: boolean;
  }

  export interface TokenModelClass {
    find(value: string, options?: { ignoreExpiration?: boolean }): Promise<TokenModel | undefined>;
  }

  export class Provider {
    constructor(issuer: string, configuration?: Configuration);
    readonly issuer: string;
    AccessToken: TokenModelClass;
    RefreshToken: TokenModelClass;
    Grant: TokenModelClass;
    callback(): (req: IncomingMessage, res: ServerResponse) => void;
    use(middleware: (ctx: KoaContextWithOIDC, next: () => Promise<void>) => Promise<void> | void): this;
    on(event: string, listener: (...args: any[]) => void): this;
    urlFor(name: string, options?: Record<string, unknown>): string;
  }

  export class OIDCProviderError extends Error {
    constructor(status: number, message: string);
    error: string;
    error_description?: string;
    status: number;
    statusCode: number;
    expose: boolean;
  }

  export const errors: {
    OIDCProviderError: typeof OIDCProviderError;
    InvalidGrant: new (description?: string) => OIDCProviderError;
    InvalidRequest: new (description?: string) => OIDCProviderError;
    InvalidTarget: new (description?: string) => OIDCProviderError;
    [name: string]: unknown;
  };

  export default Provider;
}
