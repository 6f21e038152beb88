import { z } from "zod";
import { invalidArguments } from "../../core/tool-error.js";

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

/**
 * The position a numeric cursor stands for (a row or an item number a tool returned as its
 * `nextCursor`), `fallback` without one; any other text is refused rather than read as the start.
 */
export function numericCursor(cursor: string | undefined, fallback: number): number {
  if (cursor === undefined) return fallback;
  if (!/^\d{1,9}$/.test(cursor))
    throw invalidArguments("cursor must be the nextCursor of a previous result; leave it out for the first page.");
  return Number(cursor);
}
