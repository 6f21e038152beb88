/**
 * Conformance suites for the pluggable interfaces. Run them from a vitest test file against your
 * own implementation, e.g.
 *
 *   import { toolsStoreConformance } from "tools-proxy/testing";
 *   toolsStoreConformance("my postgres store", () => myStore());
 */

export { type BlobStoreConformanceOptions, type BlobStoreConformanceSkip, blobStoreConformance } from "./blob-store.js";
export { type LeaseStoreConformanceOptions, leaseStoreConformance } from "./lease-store.js";
export { type RateLimitStoreConformanceOptions, rateLimitStoreConformance } from "./rate-limit-store.js";
export { toolkitRegistryConformance } from "./toolkit-registry.js";
export { type ToolsStoreConformanceOptions, toolsStoreConformance } from "./tools-store.js";
