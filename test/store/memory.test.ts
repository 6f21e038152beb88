import { memoryStore } from "../../src/store/memory.js";
import { toolsStoreConformance } from "../../src/testing/tools-store.js";

toolsStoreConformance("memory", () => memoryStore());
