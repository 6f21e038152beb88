export { memoryBlobStore } from "./blob/memory.js";
export type { BlobInfo, BlobObject, BlobPutOptions, BlobStore } from "./blob/types.js";
export type { ToolsEvents, ToolsHooks, UploadSettings } from "./context/context.js";
export { ERROR_STATUS, type ErrorBody, type ErrorCode, StoreUnavailableError, ToolsError } from "./core/errors.js";
export type { Logger } from "./core/logger.js";
export type { ExecutionResult } from "./core/results.js";
export { ToolRunError } from "./core/tool-error.js";
export type { IssueApiKeyOptions, IssuedApiKey, RevokeApiKeyOptions } from "./credentials/api-keys.js";
export { AGENT_KEY_PREFIX, authenticate, issueApiKey, readApiKey, revokeApiKey, SERVICE_KEY_PREFIX } from "./credentials/api-keys.js";
export type {
  ApiKeyScheme,
  AuthScheme,
  BasicScheme,
  BearerScheme,
  Credential,
  NoneScheme,
  OAuth2Scheme,
} from "./credentials/auth-schemes.js";
export { apiKey, basic, bearer, none, oauth2 } from "./credentials/auth-schemes.js";
export { type CredentialCipher, createCredentialCipher } from "./credentials/cipher.js";
export type { ApiKeyRevocationListener, ApiKeyRevocations } from "./credentials/revocations.js";
export { createToolsHandler, type ToolsHandler } from "./handler.js";
export { type CreditsOptions, combineLimits, credits } from "./limits/combine.js";
export { type MemoryRateLimitStore, type MemoryRateLimitStoreOptions, memoryRateLimitStore } from "./limits/memory.js";
export { type RateLimitOptions, rateLimit } from "./limits/rate-limit.js";
export type { LimitDecision, LimitRequest, LimitsHook, RateLimitResult, RateLimitRule, RateLimitStore } from "./limits/types.js";
export type { CorsOptions, ToolsHandlerOptions } from "./options.js";
export { DEFAULT_ALLOWED_CONTENT_TYPES } from "./options.js";
export { type KeyValuePrimitives, keyValueStore } from "./store/key-value.js";
export { type LeaseStore, storeLeases } from "./store/leases.js";
export { memoryStore } from "./store/memory.js";
export type * from "./store/types.js";
export type {
  JsonSchema,
  StagedFile,
  StandardSchemaV1,
  Tool,
  ToolAnnotations,
  ToolContext,
  ToolDefinition,
  ToolFetchInit,
  Toolkit,
  ToolkitDefinition,
} from "./toolkits/define.js";
export { defineTool, defineToolkit, STAGED_FILE_FORMAT, stagedFile } from "./toolkits/define.js";
export { defineJsonToolkit, type JsonToolkitOptions, parseToolkitFile } from "./toolkits/json.js";
export {
  allTools,
  defaultFirst,
  findTool,
  type LazyTools,
  type ToolSummary,
  toolCount,
  toolSummaries,
} from "./toolkits/lazy.js";
export { createToolkitRegistry, type ToolkitRegistry } from "./toolkits/registry.js";
