import type { Tool } from "../../toolkits/define.js";

/** Curated tools, by provider slug. */
export const curatedTools: Record<string, Tool[]> = {};
