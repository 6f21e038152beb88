/**
 * Conformance suites for the pluggable interfaces. Run them from a vitest test file against your
 * own implementation, e.g.
 *
 *   import { toolsStoreConformance } from "tools-proxy/testing";
 *   toolsStoreConformance("my postgres store", () => myStore());
 */
export { toolsStoreConformance, type ToolsStoreConformanceOptions } from "./tools-store.js";
export { blobStoreConformance, type BlobStoreConformanceOptions, type BlobStoreConformanceSkip } from "./blob-store.js";
export { toolkitRegistryConformance } from "./toolkit-registry.js";
export { leaseStoreConformance } from "./lease-store.js";
export { rateLimitStoreConformance } from "./rate-limit-store.js";
