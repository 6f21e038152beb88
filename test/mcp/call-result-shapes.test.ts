/**
 * How a tool's result and a refused call read as an MCP `CallToolResult` (src/mcp/results.ts):
 * the data as text and as structured content, a failure's code and retry advice, a refusal.
 * The connect URL of a missing connection is proved over HTTP in handler.test.ts.
 */
import { describe, expect, it } from "vitest";
import { ToolsError } from "../../src/core/errors.js";
import type { ExecutionResult } from "../../src/core/results.js";
import { fromExecution, fromRefusal } from "../../src/mcp/results.js";

const failure = (extra: Partial<ExecutionResult>): ExecutionResult =>
  ({ data: null, error: "It broke.", successful: false, retryable: false, ...extra }) as ExecutionResult;

describe("fromExecution", () => {
  it("gives an object as it is, as text and as structured content", () => {
    expect(fromExecution({ data: { a: 1 }, error: null, successful: true } as ExecutionResult)).toStrictEqual({
      content: [{ type: "text", text: '{"a":1}' }],
      structuredContent: { a: 1 },
    });
  });

  it("wraps anything but an object in { value }: a list, null, text, a number", () => {
    for (const data of [[1, 2], null, "plain", 3]) {
      const result = fromExecution({ data, error: null, successful: true } as ExecutionResult);
      expect(result.structuredContent).toStrictEqual({ value: data });
      expect(result.content).toEqual([{ type: "text", text: JSON.stringify(data) }]);
      expect(result.isError).toBeUndefined();
    }
  });

  it("says a failure's code and that retrying will not help, with its fields as structured content", () => {
    expect(fromExecution(failure({ code: "upstream_error", status: 404 } as Partial<ExecutionResult>))).toStrictEqual({
      content: [{ type: "text", text: "It broke. (code upstream_error) Retrying the same call will not help." }],
      structuredContent: { error: "It broke.", retryable: false, code: "upstream_error", status: 404 },
      isError: true,
    });
  });

  it("says when a retryable failure may be retried: after whole seconds, or in a moment", () => {
    expect(fromExecution(failure({ retryable: true, retryAfterMs: 1001 } as Partial<ExecutionResult>)).content[0]!.text).toBe(
      "It broke. The same call may succeed if retried after 2 seconds.",
    );
    expect(fromExecution(failure({ retryable: true, retryAfterMs: 0 } as Partial<ExecutionResult>)).content[0]!.text).toBe(
      "It broke. The same call may succeed if retried after 0 seconds.",
    );
    expect(fromExecution(failure({ retryable: true, code: "rate_limited" } as Partial<ExecutionResult>)).content[0]!.text).toBe(
      "It broke. (code rate_limited) The same call may succeed if retried in a moment.",
    );
  });
});

describe("fromRefusal", () => {
  it("is a tool error with the message and code; only unavailable is retryable", () => {
    expect(fromRefusal(new ToolsError("invalid_request", "Argument n must be a number."))).toStrictEqual({
      content: [{ type: "text", text: "Argument n must be a number." }],
      structuredContent: { error: "Argument n must be a number.", code: "invalid_request", retryable: false },
      isError: true,
    });
    expect(fromRefusal(new ToolsError("unavailable", "Try later.")).structuredContent).toEqual({
      error: "Try later.",
      code: "unavailable",
      retryable: true,
    });
  });
});
