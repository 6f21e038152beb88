import { expect } from "vitest";
import { ToolsError } from "../../src/core/errors.js";

/** The sentence of the `invalid_request` that `run` throws; fails the test when it throws nothing else or nothing. */
export function refusal(run: () => unknown): string {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(ToolsError);
    expect((error as ToolsError).code).toBe("invalid_request");
    return (error as ToolsError).message;
  }
  throw new Error("expected a refusal");
}
