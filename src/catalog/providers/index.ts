// Every provider data file, in slug order. test/catalog/providers.test.ts checks this list
// against the directory, so a file cannot be added without being listed here.
import github from "./github.json" with { type: "json" };

export const providerFiles: unknown[] = [github];
