/**
 * The curated HubSpot tools through POST /execute, against an emulation of https://api.hubapi.com
 * answering with the shapes of HubSpot's CRM reference:
 * - search ({ total, results, paging: { next: { after } } }): https://developers.hubspot.com/docs/api/crm/search
 * - records ({ id, properties, createdAt, updatedAt, archived, associations }): https://developers.hubspot.com/docs/api/crm/contacts,
 *   https://developers.hubspot.com/docs/api/crm/deals
 * - v4 default association: https://developers.hubspot.com/docs/api/crm/associations
 * - errors ({ status, message, correlationId, category }): https://developers.hubspot.com/docs/api/error-handling
 */
import { describe, expect, it } from "vitest";
import { hubspotTools } from "../../../src/catalog/tools/hubspot.js";
import { json, type Route, setupToolkit } from "./support-b.js";

const contact = {
  id: "512",
  properties: { email: "ada@example.com", firstname: "Ada", lastname: "Lovelace", hs_object_id: "512" },
  createdAt: "2024-01-01T00:00:00.000Z",
  updatedAt: "2024-01-02T00:00:00.000Z",
  archived: false,
};
const out = { ...contact };

const routes: Route[] = [
  {
    method: "POST",
    path: /^\/crm\/v3\/objects\/(?<type>contacts|companies|deals)\/search$/,
    answer: (request) =>
      (request.body as any).after === "last"
        ? json({ total: 2, results: [contact] })
        : json({
            total: 2,
            results: [contact],
            paging: { next: { after: "1", link: "https://api.hubapi.com/crm/v3/objects/contacts/search?after=1" } },
          }),
  },
  {
    method: "GET",
    path: /^\/crm\/v3\/objects\/contacts\/(?<id>[^/]+)$/,
    answer: (_, { id }) =>
      id === "999"
        ? json(
            {
              status: "error",
              message: "Object not found.  objectId are usually numeric.",
              correlationId: "1c8cb0b1-4b7e-4b1e-8f2b-9b8c9e8f7a6b",
              category: "OBJECT_NOT_FOUND",
            },
            404,
          )
        : json({
            ...contact,
            associations: {
              companies: {
                results: [
                  { id: "77", type: "contact_to_company" },
                  { id: "77", type: "contact_to_company_unlabeled" },
                ],
              },
              deals: { results: [{ id: "88", type: "contact_to_deal" }] },
            },
          }),
  },
  {
    method: "POST",
    path: /^\/crm\/v3\/objects\/(?<type>contacts|companies|deals)$/,
    answer: (request) =>
      (request.body as any).properties.email === "taken@example.com"
        ? json({ status: "error", message: "Contact already exists. Existing ID: 512", correlationId: "c", category: "CONFLICT" }, 409)
        : json({ ...contact, id: "600", properties: (request.body as any).properties }, 201),
  },
  {
    method: "PATCH",
    path: /^\/crm\/v3\/objects\/(?<type>contacts|deals)\/[^/]+$/,
    answer: (request) => json({ ...contact, properties: { ...contact.properties, ...(request.body as any).properties } }),
  },
  {
    method: "PUT",
    path: /^\/crm\/v4\/objects\/[^/]+\/[^/]+\/associations\/default\/[^/]+\/[^/]+$/,
    answer: () =>
      json({
        status: "COMPLETE",
        results: [
          { from: { id: "512" }, to: { id: "77" }, associationSpec: { associationCategory: "HUBSPOT_DEFINED", associationTypeId: 1 } },
        ],
      }),
  },
];

const setup = () => setupToolkit({ slug: "hubspot", baseUrl: "https://api.hubapi.com", tools: hubspotTools, routes });

describe("HubSpot tools", () => {
  it("HUBSPOT_SEARCH_CONTACTS posts filters in one group and returns paging.next.after as the cursor", async () => {
    const hubspot = await setup();
    const filters = [{ propertyName: "email", operator: "EQ", value: "ada@example.com" }];
    const data = await hubspot.ok("HUBSPOT_SEARCH_CONTACTS", {
      query: "ada",
      filters,
      limit: 50,
      sort: { propertyName: "createdate", direction: "DESCENDING" },
    });
    expect(data).toEqual({ total: 2, results: [out], nextCursor: "1" });
    const request = hubspot.last();
    expect([request.method, request.path]).toEqual(["POST", "/crm/v3/objects/contacts/search"]);
    expect(request.body).toEqual({
      query: "ada",
      filterGroups: [{ filters }],
      sorts: [{ propertyName: "createdate", direction: "DESCENDING" }],
      properties: ["email", "firstname", "lastname", "phone", "company", "jobtitle", "lifecyclestage"],
      limit: 50,
    });
    const last = await hubspot.ok("HUBSPOT_SEARCH_CONTACTS", { cursor: "last", properties: ["email"] });
    expect(last.nextCursor).toBeNull();
    expect(hubspot.last().body).toEqual({ filterGroups: [], properties: ["email"], limit: 20, after: "last" });
  });

  it("HUBSPOT_SEARCH_COMPANIES and HUBSPOT_SEARCH_DEALS search their own object", async () => {
    const hubspot = await setup();
    await hubspot.ok("HUBSPOT_SEARCH_COMPANIES", { query: "acme" });
    expect(hubspot.last().path).toBe("/crm/v3/objects/companies/search");
    expect((hubspot.last().body as any).properties).toContain("domain");
    await hubspot.ok("HUBSPOT_SEARCH_DEALS", { filters: [{ propertyName: "dealstage", operator: "EQ", value: "closedwon" }] });
    expect(hubspot.last().path).toBe("/crm/v3/objects/deals/search");
    expect((hubspot.last().body as any).properties).toContain("dealstage");
  });

  it("HUBSPOT_GET_CONTACT by email asks with idProperty and returns associated ids once each", async () => {
    const hubspot = await setup();
    const data = await hubspot.ok("HUBSPOT_GET_CONTACT", { contact: "ada@example.com", byEmail: true, properties: ["email"] });
    expect(data).toEqual({ ...out, associations: { companies: ["77"], deals: ["88"] } });
    expect(hubspot.last().path).toBe("/crm/v3/objects/contacts/ada%40example.com");
    expect(Object.fromEntries(hubspot.last().query)).toEqual({ properties: "email", associations: "companies,deals", idProperty: "email" });
  });

  it("a HubSpot error is a failed result with its category and message", async () => {
    const hubspot = await setup();
    const result = await hubspot.execute("HUBSPOT_GET_CONTACT", { contact: "999" });
    expect(result).toMatchObject({ successful: false, code: "upstream_error", upstreamStatus: 404 });
    expect(result.error).toBe(
      "HubSpot answered 404: OBJECT_NOT_FOUND: Object not found.  objectId are usually numeric. " +
        "Check the id (list or search to find it), and that the connected account can see the object.",
    );
  });

  it("HUBSPOT_CREATE_CONTACT posts properties; an existing email is a conflict naming the existing id", async () => {
    const hubspot = await setup();
    const data = await hubspot.ok("HUBSPOT_CREATE_CONTACT", { properties: { email: "new@example.com", firstname: "New" } });
    expect(data.id).toBe("600");
    expect([hubspot.last().method, hubspot.last().path, hubspot.last().body]).toEqual([
      "POST",
      "/crm/v3/objects/contacts",
      { properties: { email: "new@example.com", firstname: "New" } },
    ]);
    const conflict = await hubspot.execute("HUBSPOT_CREATE_CONTACT", { properties: { email: "taken@example.com" } });
    expect(conflict.error).toContain("HubSpot answered 409: CONFLICT: Contact already exists. Existing ID: 512.");
  });

  it("HUBSPOT_UPDATE_CONTACT and HUBSPOT_UPDATE_DEAL patch properties", async () => {
    const hubspot = await setup();
    expect(
      (await hubspot.ok("HUBSPOT_UPDATE_CONTACT", { id: "512", properties: { lifecyclestage: "customer" } })).properties.lifecyclestage,
    ).toBe("customer");
    expect([hubspot.last().method, hubspot.last().path]).toEqual(["PATCH", "/crm/v3/objects/contacts/512"]);
    await hubspot.ok("HUBSPOT_UPDATE_DEAL", { id: "88", properties: { dealstage: "closedwon", amount: 1200 } });
    expect([hubspot.last().path, hubspot.last().body]).toEqual([
      "/crm/v3/objects/deals/88",
      { properties: { dealstage: "closedwon", amount: 1200 } },
    ]);
  });

  it("HUBSPOT_CREATE_COMPANY posts to companies", async () => {
    const hubspot = await setup();
    await hubspot.ok("HUBSPOT_CREATE_COMPANY", { properties: { name: "Acme", domain: "acme.example" } });
    expect(hubspot.last().path).toBe("/crm/v3/objects/companies");
  });

  it("HUBSPOT_CREATE_DEAL links contacts and the primary company with HubSpot-defined association types", async () => {
    const hubspot = await setup();
    await hubspot.ok("HUBSPOT_CREATE_DEAL", { properties: { dealname: "Big one", amount: "5000" }, contactIds: ["512"], companyId: "77" });
    expect(hubspot.last().body).toEqual({
      properties: { dealname: "Big one", amount: "5000" },
      associations: [
        { to: { id: "512" }, types: [{ associationCategory: "HUBSPOT_DEFINED", associationTypeId: 3 }] },
        { to: { id: "77" }, types: [{ associationCategory: "HUBSPOT_DEFINED", associationTypeId: 5 }] },
      ],
    });
    const sent = hubspot.received.length;
    const missing = await hubspot.send("HUBSPOT_CREATE_DEAL", { properties: { amount: "1" } });
    expect([missing.status, missing.json.code]).toEqual([400, "invalid_request"]);
    expect(missing.json.error).toContain("properties.dealname");
    expect(hubspot.received.length).toBe(sent);
  });

  it("HUBSPOT_ASSOCIATE puts the v4 default association", async () => {
    const hubspot = await setup();
    expect(await hubspot.ok("HUBSPOT_ASSOCIATE", { fromType: "contacts", fromId: "512", toType: "companies", toId: "77" })).toEqual({
      from: { type: "contacts", id: "512" },
      to: { type: "companies", id: "77" },
    });
    expect([hubspot.last().method, hubspot.last().path]).toEqual(["PUT", "/crm/v4/objects/contacts/512/associations/default/companies/77"]);
  });
});
