/** The folders and files the build reads, relative to the repository root. */
export declare const BUILD_INPUTS: readonly string[];
/** Where the hash of the last successful build's inputs is kept (dist/.build-stamp). */
export declare const STAMP: string;
/** A SHA-256 of the paths and contents of every build input under `root`. */
export declare function inputsHash(root: string): string;
/** True when `root`'s dist/ was not built from the files as they are now (or was never built). */
export declare function isStale(root: string): boolean;
/** Empties the `sourcesContent` of the catalog's generated sources in every source map under `dist`. */
export declare function dropGeneratedSources(dist: string): void;
