/** Types of mutation.config.mjs, for vitest.mutate.config.ts. */
export declare const SELECTION: Record<string, string[]>;
export declare function testsFor(files: string[]): string[];
