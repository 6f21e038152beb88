import { fetchFor, type HandlerContext } from "../context/context.js";
import type { OAuth2Scheme, TokenRequestTemplate } from "../credentials/auth-schemes.js";
import type { Toolkit } from "../toolkits/define.js";
import { normalizeTokenAnswer } from "./token-answer.js";
import { definitionUrl } from "./values.js";

/** What a provider's own token request answered: RFC 6749's fields, read as oauth4webapi reads them. */
export interface TemplateTokens {
  access_token: string;
  refresh_token?: string;
  expires_in?: number;
  token_type?: string;
  scope?: string;
}

/** A refusal of a provider's own token request; `error` is its RFC 6749 code (`invalid_grant`...), when it gave one. */
export class TokenTemplateError extends Error {
  constructor(
    readonly status: number,
    readonly error: string | undefined,
  ) {
    super(`the provider's token request answered ${status}${error ? ` (${error})` : ""}`);
  }
}

/**
 * Sends a token request the provider makes its own way (Instagram's `ig_exchange_token` and
 * `ig_refresh_token`, GET requests carrying the token in the query): its `params` with
 * `{accessToken}`, `{refreshToken}`, `{clientId}` and `{clientSecret}` filled, in the query of a GET
 * or a form body of a POST. The answer is read as a token endpoint's (`normalizeTokenAnswer`);
 * one without an access token, or outside 2xx, throws `TokenTemplateError`.
 */
export async function templateTokenRequest(
  ctx: HandlerContext,
  toolkit: Toolkit,
  scheme: OAuth2Scheme,
  request: TokenRequestTemplate,
  tokens: { accessToken: string; refreshToken?: string },
  config: Record<string, string>,
  signal?: AbortSignal,
): Promise<TemplateTokens> {
  const known: Record<string, string> = {
    accessToken: tokens.accessToken,
    refreshToken: tokens.refreshToken ?? "",
    clientId: scheme.clientId,
    clientSecret: scheme.clientSecret ?? "",
  };
  const params = new URLSearchParams(
    Object.entries(request.params).map(([name, value]) => [name, value.replace(/\{(\w+)\}/g, (_, key: string) => known[key] ?? "")]),
  );
  const url = new URL(definitionUrl(toolkit, request.url, config));
  const method = request.method ?? "POST";
  if (method === "GET") for (const [name, value] of params) url.searchParams.set(name, value);
  const response = await fetchFor(ctx, toolkit)(url.href, {
    method,
    headers: { accept: "application/json", ...(method === "POST" ? { "content-type": "application/x-www-form-urlencoded" } : {}) },
    ...(method === "POST" ? { body: params.toString() } : {}),
    signal: signal ?? AbortSignal.timeout(ctx.timeouts.proxyMs),
  });
  const normalized = await normalizeTokenAnswer(response, scheme, { raw: null });
  const answer = (await normalized.json().catch(() => null)) as Record<string, unknown> | null;
  if (!normalized.ok || !answer || typeof answer.access_token !== "string" || answer.access_token === "") {
    throw new TokenTemplateError(normalized.status, typeof answer?.error === "string" ? answer.error : undefined);
  }
  return answer as unknown as TemplateTokens;
}
