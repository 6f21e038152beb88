/**
 * The client's types come from the server's zod schemas (src/api/). These assertions are checked
 * by `tsc --noEmit` (npm run typecheck), which fails if a type drifts from its schema; the
 * `@ts-expect-error` lines fail it if a wrong call stops being an error.
 */
import { describe, expectTypeOf, it } from "vitest";
import type { z } from "zod";
import type * as api from "../../src/api/index.js";
import { createToolsClient, type ToolsClient, type ToolsClientError, type ToolsClientErrorCode } from "../../src/client/index.js";

type Result<M extends keyof ToolsClient> = ToolsClient[M] extends (...args: never[]) => Promise<infer R> ? R : never;

describe("client types", () => {
  it("results are the output types of the routes' response schemas", () => {
    expectTypeOf<Result<"search">>().toEqualTypeOf<z.output<typeof api.SearchResultSchema>>();
    expectTypeOf<Result<"getToolkit">>().toEqualTypeOf<z.output<typeof api.ToolkitDetailsSchema>>();
    expectTypeOf<Result<"searchTools">>().toEqualTypeOf<z.output<typeof api.ToolSearchResultSchema>>();
    expectTypeOf<Result<"startAuthorization">>().toEqualTypeOf<z.output<typeof api.AuthorizationStartedSchema>>();
    expectTypeOf<Result<"connect">>().toEqualTypeOf<z.output<typeof api.ConnectionCreatedSchema>>();
    expectTypeOf<Result<"getAuthorization">>().toEqualTypeOf<z.output<typeof api.AuthorizationStatusSchema>>();
    expectTypeOf<Result<"listConnections">>().toEqualTypeOf<z.output<typeof api.ConnectionListSchema>>();
    expectTypeOf<Result<"execute">>().toEqualTypeOf<z.output<typeof api.ExecutionResultSchema>>();
    expectTypeOf<Result<"proxy">>().toEqualTypeOf<z.output<typeof api.ProxyResultSchema>>();
    expectTypeOf<Result<"upload">>().toEqualTypeOf<z.output<typeof api.StagedUploadSchema>>();
    expectTypeOf<Result<"deleteConnection">>().toEqualTypeOf<void>();
    expectTypeOf<Result<"waitForAuthorization">["status"]>().toEqualTypeOf<"connected" | "failed" | "expired">();
  });

  it("requests are the input types of the routes' body schemas, and queries their fields", () => {
    expectTypeOf<Parameters<ToolsClient["execute"]>[0]>().toEqualTypeOf<z.input<typeof api.ExecuteBodySchema>>();
    expectTypeOf<Parameters<ToolsClient["proxy"]>[0]>().toEqualTypeOf<z.input<typeof api.ProxyBodySchema>>();
    expectTypeOf<NonNullable<Parameters<ToolsClient["search"]>[0]>>().toEqualTypeOf<{
      keywords?: string;
      limit?: number;
      cursor?: string;
    }>();
    expectTypeOf<NonNullable<Parameters<ToolsClient["getToolkit"]>[1]>>().toEqualTypeOf<{
      limit?: number;
      cursor?: string;
      connection_id?: string;
    }>();
  });

  it("errors carry the server's codes and the client's own", () => {
    expectTypeOf<ToolsClientError["code"]>().toEqualTypeOf<ToolsClientErrorCode>();
    expectTypeOf<"connection_ambiguous">().toExtend<ToolsClientErrorCode>();
    expectTypeOf<"network_error">().toExtend<ToolsClientErrorCode>();
    expectTypeOf<"teapot">().not.toExtend<ToolsClientErrorCode>();
  });

  it("refuses wrong calls at compile time", () => {
    const client = createToolsClient({ baseUrl: "http://127.0.0.1:1/proxy/tools", apiKey: "pak_x" });
    const never = () => {
      // @ts-expect-error `tool` is required
      void client.execute({ arguments: {} });
      // @ts-expect-error PUT, PATCH, ... but not TRACE
      void client.proxy({ toolkit: "acme", method: "TRACE", url: "https://x.test" });
      // @ts-expect-error OAuth starts take no credentials
      void client.startAuthorization({ toolkit: "notes", credentials: { token: "t" } });
      // @ts-expect-error connect needs credentials
      void client.connect({ toolkit: "acme" });
      // @ts-expect-error limit is a number
      void client.search({ limit: "5" });
    };
    expectTypeOf(never).toBeFunction();
  });
});
