import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createHarness, type Harness } from "../support/harness.js";

let h: Harness;
// eslint-disable-next-line @typescript-eslint/no-explicit-any
let doc: any;

beforeAll(async () => {
  h = await createHarness();
  const res = await h.call("GET", "/openapi.json");
  expect(res.status).toBe(200);
  doc = res.json;
});
afterAll(async () => {
  h.assertNoLeaks();
  await h.close();
});

const ROUTES: Record<string, string[]> = {
  "/proxy/tools/search": ["get"],
  "/proxy/tools/auth": ["post"],
  "/proxy/tools/auth/callback": ["get"],
  "/proxy/tools/auth/{authorizationId}": ["get"],
  "/proxy/tools/connections": ["get"],
  "/proxy/tools/connections/{id}": ["delete"],
  "/proxy/tools/toolkit/{toolkit}": ["get"],
  "/proxy/tools/toolkit/{toolkit}/search": ["get"],
  "/proxy/tools/execute": ["post"],
  "/proxy/tools/proxy": ["post"],
  "/proxy/tools/upload": ["post"],
  "/proxy/tools/files/{stagingKey}": ["get"],
  "/proxy/tools/icons/{slug}.svg": ["get"],
  "/proxy/tools/connect/{token}": ["get", "post"],
  "/proxy/tools/openapi.json": ["get"],
};

/** Every `$ref` anywhere in `value`. */
function refs(value: unknown, found: string[] = []): string[] {
  if (Array.isArray(value)) {
    for (const v of value) refs(v, found);
  } else if (value && typeof value === "object") {
    for (const [k, v] of Object.entries(value)) {
      if (k === "$ref" && typeof v === "string") found.push(v);
      else refs(v, found);
    }
  }
  return found;
}

describe("GET /openapi.json", () => {
  it("is served without a key as an OpenAPI 3.1 document", () => {
    expect(doc.openapi).toBe("3.1.0");
    expect(doc.info).toMatchObject({ title: "Tools API", version: "1.0.0" });
    expect(doc.components.securitySchemes).toMatchObject({
      apiKey: { type: "apiKey", in: "header", name: "x-api-key" },
      bearer: { type: "http", scheme: "bearer" },
    });
  });

  it("lists every route with exactly its methods", () => {
    expect(Object.keys(doc.paths).sort()).toEqual(Object.keys(ROUTES).sort());
    for (const [path, methods] of Object.entries(ROUTES)) expect(Object.keys(doc.paths[path]), path).toEqual(methods);
  });

  it("marks only the callback, the connect page, the icons and the document itself as public", () => {
    const open = Object.entries(ROUTES).flatMap(([path, methods]) =>
      methods.filter((m) => doc.paths[path][m].security?.length === 0).map((m) => `${m} ${path}`),
    );
    expect(open.sort()).toEqual([
      "get /proxy/tools/auth/callback",
      "get /proxy/tools/connect/{token}",
      "get /proxy/tools/icons/{slug}.svg",
      "get /proxy/tools/openapi.json",
      "post /proxy/tools/connect/{token}",
    ]);
  });

  it("resolves every $ref to an existing component", () => {
    const all = refs(doc);
    expect(all.length).toBeGreaterThan(10);
    for (const ref of all) {
      expect(ref).toMatch(/^#\/components\/schemas\/[A-Za-z0-9_.-]+$/);
      expect(doc.components.schemas[ref.split("/").pop()!], ref).toBeTypeOf("object");
    }
    for (const name of ["Error", "Connection", "Tool", "ExecutionResult", "StagedUpload", "ToolkitSummary", "Toolkit", "ProxyResult"]) {
      expect(doc.components.schemas[name], name).toBeTypeOf("object");
    }
  });

  it("documents parameters, bodies and error answers from the route schemas", () => {
    const search = doc.paths["/proxy/tools/search"].get;
    expect(search.parameters.map((p: { name: string; in: string }) => `${p.in}:${p.name}`).sort()).toEqual([
      "query:cursor",
      "query:keywords",
      "query:limit",
    ]);
    expect(search.parameters.find((p: { name: string }) => p.name === "limit").schema).toMatchObject({
      minimum: 1,
      maximum: 200,
      default: 50,
    });
    const proxy = doc.paths["/proxy/tools/proxy"].post;
    const body = proxy.requestBody.content["application/json"].schema;
    expect(body.required.sort()).toEqual(["method", "toolkit", "url"]);
    expect(body.properties.method.enum).toEqual(["GET", "POST", "PUT", "PATCH", "DELETE"]);
    expect(proxy.responses["400"].content["application/json"].schema).toEqual({ $ref: "#/components/schemas/Error" });
    expect(Object.keys(doc.paths["/proxy/tools/upload"].post.requestBody.content)).toEqual(["multipart/form-data"]);
    expect(Object.keys(doc.paths["/proxy/tools/upload"].post.responses).sort()).toEqual(["200", "400", "401", "413", "415", "500", "503"]);
    expect(doc.paths["/proxy/tools/toolkit/{toolkit}"].get.parameters.map((p: { name: string }) => p.name).sort()).toEqual([
      "connection_id",
      "cursor",
      "limit",
      "toolkit",
    ]);
    expect(doc.components.schemas.Error.required.sort()).toEqual(["code", "error"]);
  });

  it("follows a custom basePath", async () => {
    const custom = await createHarness({ basePath: "/api/v2/tools" });
    const res = await custom.call("GET", "/openapi.json");
    expect(Object.keys(res.json.paths).every((p: string) => p.startsWith("/api/v2/tools/"))).toBe(true);
    expect(res.json.paths["/api/v2/tools/execute"].post).toBeTypeOf("object");
    custom.assertNoLeaks();
    await custom.close();
  });
});
