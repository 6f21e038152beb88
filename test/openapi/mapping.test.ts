/**
 * The mapping of an OpenAPI document to a JSON toolkit, rule by rule, on small hand-written
 * Swagger 2.0, OpenAPI 3.0 and 3.1 documents. Every result is compiled with Ajv 2020 and loaded
 * with defineJsonToolkit (see support.ts).
 */
import { describe, expect, it } from "vitest";
import { imported, op, tool, v30, v31 } from "./support.js";

const swagger = {
  swagger: "2.0",
  info: { title: "Pet Store", version: "1" },
  host: "pets.example.test",
  basePath: "/v2",
  schemes: ["https"],
  securityDefinitions: {
    petstore_auth: {
      type: "oauth2",
      flow: "accessCode",
      authorizationUrl: "https://auth.example.test/authorize",
      tokenUrl: "https://auth.example.test/token",
      scopes: { "pets:read": "read", "pets:write": "write" },
    },
    api_key: { type: "apiKey", in: "header", name: "X-Api-Key" },
    basic: { type: "basic" },
  },
  security: [{ petstore_auth: ["pets:read"] }],
  paths: {
    "/pets/{petId}/photos": {
      post: {
        operationId: "uploadPetPhoto",
        summary: "Upload a photo",
        consumes: ["multipart/form-data"],
        security: [{ petstore_auth: ["pets:write"] }, { api_key: [] }, { basic: [] }],
        parameters: [
          { name: "petId", in: "path", required: true, type: "integer", format: "int64", description: "The pet." },
          { name: "tags", in: "query", type: "array", items: { type: "string", enum: ["cute", "old"] }, collectionFormat: "pipes" },
          { name: "X-Api-Key", in: "header", type: "string" },
          { name: "photo", in: "formData", type: "file", required: true, description: "The picture." },
          { name: "caption", in: "formData", type: "string" },
        ],
        responses: { "200": { description: "ok" } },
      },
    },
  },
};

describe("Swagger 2.0", () => {
  it("maps host and basePath, oauth2 accessCode, apiKey and basic, a multipart file and a pipe-delimited query", async () => {
    const { toolkit } = await imported(swagger);
    expect(toolkit).toMatchObject({ slug: "pet_store", name: "Pet Store", baseUrl: "https://pets.example.test/v2" });
    expect(toolkit.auth).toEqual([
      {
        type: "oauth2",
        authorizationUrl: "https://auth.example.test/authorize",
        tokenUrl: "https://auth.example.test/token",
        clientId: "${PET_STORE_CLIENT_ID}",
        clientSecret: "${PET_STORE_CLIENT_SECRET}",
        scopes: ["pets:read", "pets:write"],
      },
      { type: "apiKey", in: "header", name: "X-Api-Key" },
      { type: "basic" },
    ]);
    const upload = tool({ toolkit, warnings: [] }, "pet_store_upload_pet_photo");
    expect(upload).toMatchObject({ method: "POST", path: "/pets/{petId}/photos", name: "Upload a photo", scopes: ["pets:write"] });
    expect(upload.annotations).toEqual({ readOnly: false, destructive: false, idempotent: false, openWorld: true });
    expect(upload.inputParameters).toEqual({
      type: "object",
      properties: {
        petId: { type: "integer", format: "int64", description: "The pet." },
        tags: { type: "array", items: { type: "string", enum: ["cute", "old"] } },
        photo: {
          type: "string",
          format: "tools-proxy-staging-key",
          description: "The picture. Staging key of a file uploaded with POST /upload.",
          "x-tools-proxy-file": true,
        },
        caption: { type: "string" },
      },
      required: ["petId", "photo"],
    });
    // The API key's own header is the connection's: no tool asks for it.
    expect(upload.request).toEqual({
      parameters: [
        { in: "path", name: "petId" },
        { in: "query", name: "tags", style: "pipeDelimited", explode: false },
      ],
      body: { contentType: "multipart/form-data", fields: { photo: "photo", caption: "caption" } },
    });
  });
});

describe("parameters and bodies", () => {
  it("keeps every part of the request apart when names collide: the path keeps the bare name, the others take their place as a prefix", async () => {
    const result = await imported(
      v30({
        "/items/{id}": {
          put: op({
            operationId: "updateItem",
            parameters: [
              { name: "id", in: "path", required: true, schema: { type: "string" } },
              { name: "id", in: "query", schema: { type: "integer" } },
              { name: "id", in: "header", schema: { type: "string" } },
              { name: "Accept", in: "header", schema: { type: "string" } },
              { name: "session", in: "cookie", schema: { type: "string" } },
              { name: "page[size]", in: "query", schema: { type: "integer", minimum: 1, maximum: 100, default: 20 } },
            ],
            requestBody: {
              required: true,
              content: {
                "application/json": {
                  schema: {
                    type: "object",
                    required: ["id", "name"],
                    properties: {
                      id: { type: "string", description: "The new id." },
                      name: { type: "string" },
                      created: { type: "string", readOnly: true },
                    },
                  },
                },
              },
            },
          }),
        },
      }),
    );
    const update = tool(result, "acme_shop_update_item");
    expect(Object.keys(update.inputParameters.properties as object)).toEqual([
      "id",
      "query_id",
      "header_id",
      "session",
      "page_size",
      "body_id",
      "name",
    ]);
    expect(update.inputParameters.required).toEqual(["id", "body_id", "name"]);
    expect((update.inputParameters.properties as Record<string, unknown>).page_size).toEqual({
      type: "integer",
      minimum: 1,
      maximum: 100,
      default: 20,
    });
    expect(update.request).toEqual({
      parameters: [
        { in: "path", name: "id" },
        { in: "query", name: "id", arg: "query_id" },
        { in: "header", name: "id", arg: "header_id" },
        { in: "cookie", name: "session" },
        { in: "query", name: "page[size]", arg: "page_size" },
      ],
      body: { contentType: "application/json", fields: { id: "body_id", name: "name" } },
    });
    expect(update.annotations).toMatchObject({ readOnly: false, destructive: false, idempotent: true });
  });

  it("keeps recursive schemas as $defs references, only those the tool reaches", async () => {
    const result = await imported(
      v31(
        {
          "/trees": {
            post: op({
              operationId: "plant",
              requestBody: { content: { "application/json": { schema: { $ref: "#/components/schemas/Tree" } } } },
            }),
          },
        },
        {
          components: {
            schemas: {
              Tree: {
                type: "object",
                properties: {
                  name: { type: "string" },
                  children: { type: "array", items: { $ref: "#/components/schemas/Tree" } },
                  leaf: { $ref: "#/components/schemas/Leaf" },
                },
              },
              Leaf: {
                type: "object",
                properties: { colour: { type: "string", enum: ["green", "red"] } },
                "x-internal": true,
                discriminator: { propertyName: "colour" },
              },
              Unused: { type: "string" },
            },
          },
        },
      ),
    );
    const plant = tool(result, "acme_shop_plant");
    expect(plant.inputParameters).toEqual({
      type: "object",
      properties: {
        name: { type: "string" },
        children: { type: "array", items: { $ref: "#/$defs/Tree" } },
        leaf: { $ref: "#/$defs/Leaf" },
      },
      $defs: {
        Tree: {
          type: "object",
          properties: {
            name: { type: "string" },
            children: { type: "array", items: { $ref: "#/$defs/Tree" } },
            leaf: { $ref: "#/$defs/Leaf" },
          },
        },
        Leaf: { type: "object", properties: { colour: { type: "string", enum: ["green", "red"] } } },
      },
    });
    expect(JSON.parse(JSON.stringify(plant.inputParameters))).toEqual(plant.inputParameters);
  });

  it("leaves out a parameter without a name", async () => {
    const result = await imported(
      v30({
        "/customers": {
          get: op({
            operationId: "customers",
            parameters: [
              { name: "", in: "query", schema: { type: "string" } },
              { name: "page", in: "query", schema: { type: "integer" } },
            ],
          }),
        },
      }),
    );
    const customers = tool(result, "acme_shop_customers");
    expect(customers.request.parameters).toEqual([{ in: "query", name: "page" }]);
    expect(Object.keys(customers.inputParameters.properties as object)).toEqual(["page"]);
  });

  it("gives each tool the $defs names of its own, where two components' names clash in one tool and not in another", async () => {
    // Pet's property id and the schema Pet_properties_id both become Pet_properties_id: a tool
    // reaching both names the second Pet_properties_id_2, so its copy of Owner (which uses the
    // schema) is not the one an earlier tool made.
    const body = (ref: string) => ({ content: { "application/json": { schema: { $ref: ref } } } });
    const result = await imported(
      v31(
        {
          "/owners": { post: op({ operationId: "first", requestBody: body("#/components/schemas/Owners") }) },
          "/pets": {
            post: op({
              operationId: "second",
              requestBody: body("#/components/schemas/Pair"),
            }),
          },
        },
        {
          components: {
            schemas: {
              Owners: { type: "array", items: { $ref: "#/components/schemas/Owner" } },
              Owner: { type: "object", properties: { pet: { $ref: "#/components/schemas/Pet_properties_id" } } },
              Pair: {
                type: "object",
                properties: { a: { $ref: "#/components/schemas/Pet/properties/id" }, b: { $ref: "#/components/schemas/Owner" } },
              },
              Pet: { type: "object", properties: { id: { type: "string", format: "uuid" } } },
              Pet_properties_id: { type: "integer" },
            },
          },
        },
      ),
    );
    expect(tool(result, "acme_shop_first").inputParameters.$defs).toEqual({
      Owners: { type: "array", items: { $ref: "#/$defs/Owner" } },
      Owner: { type: "object", properties: { pet: { $ref: "#/$defs/Pet_properties_id" } } },
      Pet_properties_id: { type: "integer" },
    });
    expect(tool(result, "acme_shop_second").inputParameters).toEqual({
      type: "object",
      properties: { a: { $ref: "#/$defs/Pet_properties_id" }, b: { $ref: "#/$defs/Owner" } },
      $defs: {
        Pet_properties_id: { type: "string", format: "uuid" },
        Owner: { type: "object", properties: { pet: { $ref: "#/$defs/Pet_properties_id_2" } } },
        Pet_properties_id_2: { type: "integer" },
      },
    });
  });

  it("sends a body that is not a plain object as one argument, body; form, text and octet-stream bodies", async () => {
    const result = await imported(
      v31({
        "/merge": {
          post: op({
            operationId: "merge",
            requestBody: {
              required: true,
              description: "What to merge.",
              content: {
                "application/json": { schema: { allOf: [{ type: "object", properties: { a: { type: "string" } } }, { required: ["a"] }] } },
              },
            },
          }),
        },
        "/form": {
          post: op({
            operationId: "form",
            requestBody: {
              content: { "application/x-www-form-urlencoded": { schema: { type: "object", properties: { q: { type: "string" } } } } },
            },
          }),
        },
        "/note": { post: op({ operationId: "note", requestBody: { content: { "text/plain": { schema: { type: "string" } } } } }) },
        "/raw": { put: op({ operationId: "raw", requestBody: { required: true, content: { "application/octet-stream": {} } } }) },
        "/xml": { post: op({ operationId: "xml", requestBody: { content: { "application/xml": { schema: { type: "object" } } } } }) },
      }),
    );
    expect(tool(result, "acme_shop_merge").inputParameters).toMatchObject({
      properties: { body: { allOf: [{ type: "object" }, { required: ["a"] }], description: "What to merge." } },
      required: ["body"],
    });
    expect(tool(result, "acme_shop_merge").request.body).toEqual({ contentType: "application/json", arg: "body" });
    expect(tool(result, "acme_shop_form").request.body).toEqual({ contentType: "application/x-www-form-urlencoded", fields: { q: "q" } });
    expect(tool(result, "acme_shop_note").request.body).toEqual({ contentType: "text/plain", arg: "body" });
    expect(tool(result, "acme_shop_raw").inputParameters.properties).toMatchObject({ body: { format: "tools-proxy-staging-key" } });
    expect(tool(result, "acme_shop_raw").request.body).toEqual({ contentType: "application/octet-stream", arg: "body" });
    expect(result.toolkit.tools.map((t) => t.slug)).not.toContain("acme_shop_xml");
    expect(result.warnings).toContain("POST /xml is left out: its request body is application/xml, which the toolkit cannot send.");
  });

  it("names tools by operationId (sanitised, unique, prefixed) or by method and path, and describes them from summary and description", async () => {
    const long = "word ".repeat(400);
    const result = await imported(
      v30({
        "/users/{user-id}/repos": {
          get: op({ operationId: "repos/list-for-user", summary: "List repositories", description: long }),
          delete: op({ summary: "Delete them all" }),
        },
        "/users": { get: op({ operationId: "repos.list_for_user" }) },
      }),
    );
    expect(result.toolkit.tools.map((t) => t.slug)).toEqual([
      "acme_shop_repos_list_for_user",
      "acme_shop_delete_users_user_id_repos",
      "acme_shop_repos_list_for_user_2",
    ]);
    for (const t of result.toolkit.tools) expect(t.slug).toMatch(/^[A-Za-z0-9_-]{1,64}$/);
    const list = tool(result, "acme_shop_repos_list_for_user");
    expect(list.description.startsWith("List repositories\n\nword word")).toBe(true);
    expect(list.description.length).toBeLessThanOrEqual(1024);
    expect(list.description.endsWith("…")).toBe(true);
    expect(list.annotations).toMatchObject({ readOnly: true, destructive: false });
    expect(list.request.parameters).toEqual([{ in: "path", name: "user-id", arg: "user-id" }].map(({ arg: _, ...p }) => p));
    const remove = tool(result, "acme_shop_delete_users_user_id_repos");
    expect(remove.annotations).toEqual({ readOnly: false, destructive: true, idempotent: true, openWorld: true });
    expect(remove.name).toBe("Delete them all");
  });
});

describe("the toolkit", () => {
  it("takes its slug from the main part of the title, or from the slug option", async () => {
    const titled = (title: string) => v30({ "/me": { get: op({ operationId: "me" }) } }, { info: { title, version: "1" } });
    expect((await imported(titled("GitHub's official OpenAPI spec + Octokit extension"))).toolkit.slug).toBe("github");
    expect((await imported(titled("Acme Payments API v2: cards and refunds"))).toolkit.slug).toBe("acme_payments");
    const named = await imported(titled("Anything"), { slug: "shop-eu", name: "Shop (EU)" });
    expect(named.toolkit).toMatchObject({ slug: "shop-eu", name: "Shop (EU)" });
    expect(named.toolkit.tools[0]!.slug).toBe("shop-eu_me");
  });
});

describe("servers and security", () => {
  it("turns a subdomain variable into a connection input and fixes the others to their defaults", async () => {
    const result = await imported(
      v30(
        { "/me": { get: op({ operationId: "me" }) } },
        {
          servers: [
            {
              url: "{scheme}://{tenant}.shop.example.test:{port}/{version}",
              variables: {
                scheme: { default: "https", enum: ["https", "http"] },
                tenant: { default: "demo", description: "Your shop's name." },
                port: { default: "8443" },
                version: { default: "v2", enum: ["v1", "v2"] },
              },
            },
            { url: "https://backup.example.test" },
          ],
        },
      ),
    );
    expect(result.toolkit.baseUrl).toBe("https://{tenant}.shop.example.test:8443/v2");
    expect(result.toolkit.inputs).toEqual([{ name: "tenant", label: "Tenant", description: "Your shop's name.", example: "demo" }]);
    expect(result.warnings).toEqual(
      expect.arrayContaining([
        'the server variable {scheme} is fixed to its default "https"; a connection may only choose a subdomain.',
        "the document lists 2 servers; the toolkit uses the first, {scheme}://{tenant}.shop.example.test:{port}/{version}.",
      ]),
    );
  });

  it("resolves a relative server URL against baseUrl, and baseUrl replaces an absolute one", async () => {
    const relative = v30({ "/me": { get: op() } }, { servers: [{ url: "/api/v3" }] });
    expect((await imported(relative, { baseUrl: "https://shop.example.test/" })).toolkit.baseUrl).toBe("https://shop.example.test/api/v3");
    expect((await imported(v30({ "/me": { get: op() } }), { baseUrl: "https://staging.example.test/v1" })).toolkit.baseUrl).toBe(
      "https://staging.example.test/v1",
    );
  });

  it("maps http bearer, apiKey in the query, and leaves out what it cannot (cookie keys, openIdConnect, client credentials)", async () => {
    const schemes = {
      bearer: { type: "http", scheme: "bearer", bearerFormat: "JWT" },
      key: { type: "apiKey", in: "query", name: "key" },
      cookie: { type: "apiKey", in: "cookie", name: "sid" },
      oidc: { type: "openIdConnect", openIdConnectUrl: "https://id.example.test/.well-known/openid-configuration" },
      machine: { type: "oauth2", flows: { clientCredentials: { tokenUrl: "https://id.example.test/token", scopes: {} } } },
      digest: { type: "http", scheme: "digest" },
    };
    const result = await imported(
      v31(
        {
          "/search": {
            get: op({
              operationId: "search",
              parameters: [
                { name: "key", in: "query", schema: { type: "string" } },
                { name: "q", in: "query", schema: { type: "string" } },
              ],
            }),
          },
        },
        { components: { securitySchemes: schemes }, security: Object.keys(schemes).map((name) => ({ [name]: [] })) },
      ),
    );
    expect(result.toolkit.auth).toEqual([{ type: "bearer" }, { type: "apiKey", in: "query", name: "key" }]);
    expect(tool(result, "acme_shop_search").request.parameters).toEqual([{ in: "query", name: "q" }]);
    expect(result.warnings).toEqual(
      expect.arrayContaining([
        'the security scheme "cookie" is left out: an API key in a cookie is not supported (only in a header or the query).',
        'the security scheme "oidc" is left out: the type "openIdConnect" is not supported.',
        'the security scheme "machine" is left out: only the OAuth 2 authorization code flow is supported.',
        'the security scheme "digest" is left out: HTTP "digest" authentication is not supported (only bearer and basic).',
      ]),
    );
  });

  it("resolves relative OAuth URLs against the server and asks only for the scopes imported operations need", async () => {
    const result = await imported(
      v31(
        {
          "/read": { get: op({ operationId: "read", security: [{ oauth: ["read"] }] }) },
          "/admin": { post: op({ operationId: "admin", tags: ["admin"], security: [{ oauth: ["admin"] }] }) },
        },
        {
          components: {
            securitySchemes: {
              oauth: {
                type: "oauth2",
                flows: {
                  authorizationCode: {
                    authorizationUrl: "/oauth/authorize",
                    tokenUrl: "/oauth/token",
                    refreshUrl: "/oauth/refresh",
                    scopes: { read: "", admin: "" },
                  },
                },
              },
            },
          },
        },
      ),
      { excludeTags: ["admin"], slug: "acme" },
    );
    expect(result.toolkit.auth).toEqual([
      {
        type: "oauth2",
        authorizationUrl: "https://api.acme.test/oauth/authorize",
        tokenUrl: "https://api.acme.test/oauth/token",
        refreshUrl: "https://api.acme.test/oauth/refresh",
        clientId: "${ACME_CLIENT_ID}",
        clientSecret: "${ACME_CLIENT_SECRET}",
        scopes: ["read"],
      },
    ]);
    expect(tool(result, "acme_read").scopes).toEqual(["read"]);
  });

  it("needs no credential when the document names none", async () => {
    expect((await imported(v30({ "/ping": { get: op() } }))).toolkit.auth).toEqual([{ type: "none" }]);
  });
});

describe("which operations", () => {
  const paths = {
    "/pets": { get: op({ operationId: "listPets", tags: ["pets"] }), post: op({ operationId: "addPet", tags: ["pets", "write"] }) },
    "/pets/{id}": {
      delete: op({
        operationId: "deletePet",
        tags: ["pets", "write"],
        parameters: [{ name: "id", in: "path", required: true, schema: { type: "string" } }],
      }),
    },
    "/stores/{id}/orders": {
      get: op({
        operationId: "listOrders",
        tags: ["store"],
        parameters: [{ name: "id", in: "path", required: true, schema: { type: "string" } }],
      }),
    },
    "/legacy": { get: op({ operationId: "legacy", deprecated: true }) },
  };
  const ids = async (options: object) => (await imported(v30(paths), options)).toolkit.tools.map((t) => t.slug.replace("acme_shop_", ""));

  it("leaves deprecated operations out unless asked", async () => {
    const result = await imported(v30(paths));
    expect(result.toolkit.tools.map((t) => t.slug)).not.toContain("acme_shop_legacy");
    expect(result.warnings).toContain("1 deprecated operation is left out (includeDeprecated imports them).");
    expect(await ids({ includeDeprecated: true })).toContain("legacy");
  });

  it("includes and excludes by tag, path pattern and operationId, and caps the count", async () => {
    expect(await ids({ includeTags: ["pets"] })).toEqual(["list_pets", "add_pet", "delete_pet"]);
    expect(await ids({ includeTags: ["pets"], excludeTags: ["write"] })).toEqual(["list_pets"]);
    expect(await ids({ includePaths: ["/pets/**"] })).toEqual(["list_pets", "add_pet", "delete_pet"]);
    expect(await ids({ includePaths: ["/stores/*/orders"] })).toEqual(["list_orders"]);
    expect(await ids({ excludePaths: ["/pets/*"] })).toEqual(["list_pets", "add_pet", "list_orders"]);
    expect(await ids({ includeOperations: ["addPet", "listOrders"] })).toEqual(["add_pet", "list_orders"]);
    expect(await ids({ excludeOperations: ["addPet"], includeTags: ["pets"] })).toEqual(["list_pets", "delete_pet"]);
    const capped = await imported(v30(paths), { maxTools: 2 });
    expect(capped.toolkit.tools.map((t) => t.slug)).toEqual(["acme_shop_list_pets", "acme_shop_add_pet"]);
    expect(capped.warnings).toContain("2 of 4 operations are left out by maxTools (2).");
  });

  it("takes a fixed query or header from an AWS-style path", async () => {
    const result = await imported(
      v30({
        "/#X-Amz-Target=Shop.ListItems": { post: op({ operationId: "ListItems" }) },
        "/?Action=Buy&Version=2020": { get: op({ operationId: "Buy" }) },
      }),
    );
    const list = tool(result, "acme_shop_list_items");
    expect(list.path).toBe("/");
    expect(list.request.parameters).toEqual([{ in: "header", name: "X-Amz-Target", arg: "X-Amz-Target" }].map(({ arg: _, ...p }) => p));
    expect(list.inputParameters).toMatchObject({ properties: { "X-Amz-Target": { const: "Shop.ListItems" } }, required: ["X-Amz-Target"] });
    expect(tool(result, "acme_shop_buy").request.parameters).toEqual([
      { in: "query", name: "Action" },
      { in: "query", name: "Version" },
    ]);
  });

  it("leaves the document's own ${NAME} text as it is once the toolkit is loaded", async () => {
    const result = await imported(v30({ "/t": { get: op({ operationId: "t", description: "Use ${variableName} in templates." }) } }));
    expect(tool(result, "acme_shop_t").description).toBe("Use $${variableName} in templates.");
  });
});
