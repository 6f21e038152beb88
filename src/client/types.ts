import type { z } from "zod";
import type * as api from "../api/index.js";

/**
 * The Tools API's request and response types, inferred from the zod schemas the server validates
 * with (`src/api/`). Responses are the schemas' output types; request bodies are their input
 * types, so fields with a server default (e.g. `arguments`) are optional; query options are the
 * query schemas' output types, every field optional. Field names are the wire names
 * (`connection_id`, not `connectionId`), as in the OpenAPI document.
 */

/** A machine code of a Tools API error answer, e.g. `not_found` (the `code` of every non-2xx JSON body). */
export type ServerErrorCode = z.output<typeof api.ErrorBodySchema>["code"];
/** The JSON body of every error answer: `{ error, code }`. */
export type ErrorBody = z.output<typeof api.ErrorBodySchema>;

export type Connection = z.output<typeof api.ConnectionSchema>;
export type Tool = z.output<typeof api.ToolSchema>;
export type ExecutionResult = z.output<typeof api.ExecutionResultSchema>;
export type ToolkitSummary = z.output<typeof api.ToolkitSummarySchema>;
/** `GET /toolkit/{toolkit}`: the toolkit with one page of its tools. */
export type ToolkitDetails = z.output<typeof api.ToolkitDetailsSchema>;

export type SearchOptions = Partial<z.output<typeof api.SearchQuerySchema>>;
export type SearchResult = z.output<typeof api.SearchResultSchema>;
export type ToolkitOptions = Partial<z.output<typeof api.ToolkitQuerySchema>>;
export type ToolSearchOptions = Partial<z.output<typeof api.ToolSearchQuerySchema>>;
export type ToolSearchResult = z.output<typeof api.ToolSearchResultSchema>;

/** The body of `POST /auth`. */
export type AuthRequest = z.input<typeof api.AuthBodySchema>;
/** `POST /auth` for an OAuth 2 toolkit: no credentials. */
export type StartAuthorizationRequest = Omit<AuthRequest, "credentials">;
/** `POST /auth` for an apiKey, bearer or basic toolkit: `{ apiKey }`, `{ token }` or `{ username, password }`. */
export type ConnectRequest = AuthRequest & { credentials: NonNullable<AuthRequest["credentials"]> };
export type AuthorizationStarted = z.output<typeof api.AuthorizationStartedSchema>;
export type ConnectionCreated = z.output<typeof api.ConnectionCreatedSchema>;
export type AuthorizationStatus = z.output<typeof api.AuthorizationStatusSchema>;
/** An authorization that is over: connected (with `connectionId`), failed (with `error`) or expired. */
export type FinishedAuthorization = AuthorizationStatus & { status: Exclude<AuthorizationStatus["status"], "pending"> };

export type ConnectionsOptions = Partial<z.output<typeof api.ConnectionsQuerySchema>>;
export type ConnectionList = z.output<typeof api.ConnectionListSchema>;

export type ExecuteRequest = z.input<typeof api.ExecuteBodySchema>;
export type ProxyRequest = z.input<typeof api.ProxyBodySchema>;
/** An ExecutionResult plus the upstream `status` and a filtered set of its `headers`. */
export type ProxyResult = z.output<typeof api.ProxyResultSchema>;

export type StagedUpload = z.output<typeof api.StagedUploadSchema>;

/** Options every method takes. */
export interface CallOptions {
  /** Aborts the call; the method then rejects with the signal's reason (an `AbortError` by default). */
  signal?: AbortSignal;
}
