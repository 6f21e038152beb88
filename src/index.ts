export { createToolsHandler, type ToolsHandler } from "./handler.js";
export type { CorsOptions, ToolsHandlerOptions } from "./options.js";
export { DEFAULT_ALLOWED_CONTENT_TYPES } from "./options.js";
export type { ToolsEvents, ToolsHooks, UploadSettings } from "./context/context.js";
export type { LimitDecision, LimitsHook } from "./limits/types.js";
export { ToolsError, StoreUnavailableError, ERROR_STATUS, type ErrorBody, type ErrorCode } from "./core/errors.js";
export type { Logger } from "./core/logger.js";

export type * from "./store/types.js";
export { memoryStore } from "./store/memory.js";
export type { BlobStore, BlobInfo, BlobObject, BlobPutOptions } from "./blob/types.js";
export { memoryBlobStore } from "./blob/memory.js";
export { storeLeases, type LeaseStore } from "./store/leases.js";

export { rateLimit, type RateLimitOptions } from "./limits/rate-limit.js";
export { combineLimits, credits, type CreditsOptions } from "./limits/combine.js";
export { memoryRateLimitStore, type MemoryRateLimitStore, type MemoryRateLimitStoreOptions } from "./limits/memory.js";
export type { LimitRequest, RateLimitResult, RateLimitRule, RateLimitStore } from "./limits/types.js";

export { issueApiKey, revokeApiKey, authenticate, readApiKey, AGENT_KEY_PREFIX, SERVICE_KEY_PREFIX } from "./credentials/api-keys.js";
export type { IssueApiKeyOptions, IssuedApiKey } from "./credentials/api-keys.js";
export { createCredentialCipher, type CredentialCipher } from "./credentials/cipher.js";

export { defineToolkit, defineTool, stagedFile, STAGED_FILE_FORMAT } from "./toolkits/define.js";
export type { Tool, ToolDefinition, Toolkit, ToolkitDefinition, ToolContext, ToolAnnotations, StagedFile, JsonSchema } from "./toolkits/define.js";
export { oauth2, apiKey, bearer, basic, none } from "./credentials/auth-schemes.js";
export type { AuthScheme, OAuth2Scheme, ApiKeyScheme, BearerScheme, BasicScheme, NoneScheme, Credential } from "./credentials/auth-schemes.js";
export { createToolkitRegistry, type ToolkitRegistry } from "./toolkits/registry.js";
export { defineJsonToolkit, parseToolkitFile } from "./toolkits/json.js";
export { ToolRunError } from "./core/tool-error.js";
export type { ExecutionResult } from "./core/results.js";
