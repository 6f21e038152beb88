import { z } from "zod";

/** The argument of a page size: an integer from 1 to `max`, `fallback` when left out. */
export function pageSize(max: number, fallback: number) {
  return z
    .number()
    .int()
    .min(1)
    .max(max)
    .default(fallback)
    .describe(`How many items to return in this page (1 to ${max}, default ${fallback}).`);
}

/** The argument that continues a listing: the `nextCursor` of the previous result. */
export const cursorArgument = z
  .string()
  .min(1)
  .max(4096)
  .optional()
  .describe("The nextCursor of a previous result, to get the next page. Leave it out for the first page.");
