/**
 * HubSpot CRM tools, over the CRM v3 object APIs at https://api.hubapi.com. Written from HubSpot's
 * developer documentation:
 * - search (filterGroups, operators, query, sorts, limit up to 200, paging.next.after): https://developers.hubspot.com/docs/api/crm/search
 * - contacts: https://developers.hubspot.com/docs/api/crm/contacts; companies: https://developers.hubspot.com/docs/api/crm/companies;
 *   deals (associations on create, typeIds 3 deal-to-contact and 5 deal-to-primary-company): https://developers.hubspot.com/docs/api/crm/deals
 * - default associations (v4): https://developers.hubspot.com/docs/api/crm/associations
 * - errors ({ status: "error", message, correlationId, category }): https://developers.hubspot.com/docs/api/error-handling
 */
import { z } from "zod";
import { defineTool, type Tool, type ToolContext } from "../../toolkits/define.js";
import { type ProviderErrors, type ProviderRequest, requestJson, segment } from "../../toolkits/provider-requests.js";
import { cursorArgument, pageSize } from "./arguments.js";
import { field } from "./content.js";

const HUBSPOT: ProviderErrors = {
  name: "HubSpot",
  reason(body) {
    const message = field(body, "message");
    if (typeof message !== "string") return undefined;
    const category = field(body, "category");
    return typeof category === "string" ? `${category}: ${message}` : message;
  },
};

type Json = Record<string, unknown>;
type ObjectType = "contacts" | "companies" | "deals";
const call = (ctx: ToolContext, path: string, request?: ProviderRequest) => requestJson(ctx, HUBSPOT, path, request) as Promise<Json>;

/** The properties read when the caller names none: what a model needs to tell records apart. */
const DEFAULT_PROPERTIES: Record<ObjectType, string[]> = {
  contacts: ["email", "firstname", "lastname", "phone", "company", "jobtitle", "lifecyclestage"],
  companies: ["name", "domain", "industry", "city", "country", "phone"],
  deals: ["dealname", "amount", "dealstage", "pipeline", "closedate", "hubspot_owner_id"],
};

const record = (raw: unknown) => ({
  id: field(raw, "id"),
  properties: field(raw, "properties") ?? {},
  createdAt: field(raw, "createdAt") ?? null,
  updatedAt: field(raw, "updatedAt") ?? null,
  archived: field(raw, "archived") ?? false,
  ...(field(raw, "associations") ? { associations: associationIds(field(raw, "associations")) } : {}),
});

/** `{ companies: { results: [{ id, type }] } }` as `{ companies: ["id", ...] }`. */
function associationIds(associations: unknown): Record<string, unknown[]> {
  const out: Record<string, unknown[]> = {};
  for (const [type, list] of Object.entries(associations as Json)) {
    const results = field(list, "results");
    out[type] = [...new Set((Array.isArray(results) ? results : []).map((r) => field(r, "id")))];
  }
  return out;
}

const propertiesArgument = z
  .array(z.string().min(1).max(100))
  .max(100)
  .optional()
  .describe("Internal property names to return (e.g. email, firstname); leave out for the usual ones.");

const propertyValues = z
  .record(z.string().min(1).max(100), z.union([z.string(), z.number(), z.boolean()]))
  .describe("Property values by internal name, e.g. { email: 'a@b.co', firstname: 'Ada' }.");

const OPERATORS = [
  "EQ",
  "NEQ",
  "LT",
  "LTE",
  "GT",
  "GTE",
  "BETWEEN",
  "IN",
  "NOT_IN",
  "HAS_PROPERTY",
  "NOT_HAS_PROPERTY",
  "CONTAINS_TOKEN",
  "NOT_CONTAINS_TOKEN",
] as const;

const filterArgument = z
  .object({
    propertyName: z.string().min(1).max(100),
    operator: z.enum(OPERATORS),
    value: z.string().max(1000).optional().describe("The value compared (not for HAS_PROPERTY, IN, BETWEEN)."),
    values: z.array(z.string().max(1000)).max(100).optional().describe("For IN and NOT_IN."),
    highValue: z.string().max(1000).optional().describe("The upper bound, for BETWEEN (value is the lower)."),
  })
  .describe("A condition on a property; dates are milliseconds since 1970 or ISO dates.");

function searchTool(type: ObjectType, slug: string, noun: string, example: string) {
  return defineTool({
    slug,
    name: `Search HubSpot ${noun}`,
    description:
      `Finds ${noun} by free text (matching their default searchable properties) and/or property filters, all of which must ` +
      `hold, e.g. ${example}. Returns { total, results: [{ id, properties, createdAt, updatedAt }], nextCursor }; pass ` +
      "nextCursor back as cursor for the next page. Records created or changed in the last seconds may not be found yet.",
    input: z.object({
      query: z.string().max(500).optional().describe("Free text to look for."),
      filters: z
        .array(filterArgument)
        .max(6)
        .optional()
        .describe("Property filters, all of which must match, e.g. [{ propertyName: 'email', operator: 'EQ', value: 'a@b.com' }]."),
      sort: z
        .object({ propertyName: z.string().min(1).max(100), direction: z.enum(["ASCENDING", "DESCENDING"]) })
        .optional()
        .describe("The order of results."),
      properties: propertiesArgument,
      cursor: cursorArgument,
      limit: pageSize(200, 20),
    }),
    annotations: { readOnly: true },
    async run(args, ctx) {
      const body = {
        ...(args.query ? { query: args.query } : {}),
        filterGroups: args.filters?.length ? [{ filters: args.filters }] : [],
        ...(args.sort ? { sorts: [args.sort] } : {}),
        properties: args.properties ?? DEFAULT_PROPERTIES[type],
        limit: args.limit,
        ...(args.cursor ? { after: args.cursor } : {}),
      };
      const answer = await call(ctx, `/crm/v3/objects/${type}/search`, { method: "POST", json: body });
      const after = field(field(field(answer, "paging"), "next"), "after");
      return {
        total: answer.total ?? null,
        results: ((answer.results as unknown[]) ?? []).map(record),
        nextCursor: typeof after === "string" ? after : null,
      };
    },
  });
}

const getContact = defineTool({
  slug: "HUBSPOT_GET_CONTACT",
  name: "Get a HubSpot contact",
  description:
    "Reads a contact by its id, or by email address (byEmail: true). Returns { id, properties, createdAt, updatedAt, " +
    "associations: { companies: [ids], deals: [ids] } }.",
  input: z.object({
    contact: z.string().min(1).max(320).describe("The contact's id, or its email address with byEmail."),
    byEmail: z.boolean().default(false).describe("Look the contact up by email instead of id."),
    properties: propertiesArgument,
  }),
  annotations: { readOnly: true },
  async run(args, ctx) {
    const query = {
      properties: (args.properties ?? DEFAULT_PROPERTIES.contacts).join(","),
      associations: "companies,deals",
      idProperty: args.byEmail ? "email" : undefined,
    };
    return record(await call(ctx, `/crm/v3/objects/contacts/${segment(args.contact)}`, { query }));
  },
});

function createTool(type: ObjectType, slug: string, noun: string, hint: string) {
  return defineTool({
    slug,
    name: `Add a ${noun} to HubSpot CRM`,
    description: `Creates a ${noun} in the CRM with the given property values (${hint}). Returns { id, properties, createdAt, updatedAt }.`,
    input: z.object({ properties: propertyValues }),
    annotations: { readOnly: false, destructive: false },
    run: async (args, ctx) => record(await call(ctx, `/crm/v3/objects/${type}`, { method: "POST", json: { properties: args.properties } })),
  });
}

function updateTool(type: ObjectType, slug: string, noun: string, hint: string) {
  return defineTool({
    slug,
    name: `Update a HubSpot ${noun}`,
    description: `Sets property values of a ${noun} by id (${hint}); other properties keep their values, and "" clears one. Returns the record.`,
    input: z.object({ id: z.string().min(1).max(100).describe(`The ${noun}'s id.`), properties: propertyValues }),
    annotations: { readOnly: false, destructive: false, idempotent: true },
    run: async (args, ctx) =>
      record(await call(ctx, `/crm/v3/objects/${type}/${segment(args.id)}`, { method: "PATCH", json: { properties: args.properties } })),
  });
}

/** HubSpot-defined association type ids, deal to contact and deal to its primary company. */
const DEAL_TO_CONTACT = 3;
const DEAL_TO_COMPANY = 5;

const createDeal = defineTool({
  slug: "HUBSPOT_CREATE_DEAL",
  name: "Create a HubSpot deal",
  description:
    "Creates a deal (dealname required; amount, dealstage such as 'appointmentscheduled', pipeline such as 'default', " +
    "closedate as an ISO date) and links it to contacts and a company. Returns { id, properties, createdAt, updatedAt }.",
  input: z.object({
    properties: propertyValues
      .and(z.object({ dealname: z.string().min(1) }))
      .describe("The deal's properties by internal name: dealname (required), and e.g. amount, dealstage, pipeline, closedate."),
    contactIds: z.array(z.string().min(1).max(100)).max(100).default([]).describe("Contacts to link the deal to."),
    companyId: z.string().min(1).max(100).optional().describe("The company to link the deal to, as its primary company."),
  }),
  annotations: { readOnly: false, destructive: false },
  async run(args, ctx) {
    const link = (id: string, typeId: number) => ({
      to: { id },
      types: [{ associationCategory: "HUBSPOT_DEFINED", associationTypeId: typeId }],
    });
    const associations = [
      ...args.contactIds.map((id) => link(id, DEAL_TO_CONTACT)),
      ...(args.companyId ? [link(args.companyId, DEAL_TO_COMPANY)] : []),
    ];
    const body = { properties: args.properties, ...(associations.length ? { associations } : {}) };
    return record(await call(ctx, "/crm/v3/objects/deals", { method: "POST", json: body }));
  },
});

const objectType = z.enum(["contacts", "companies", "deals"]);

const associate = defineTool({
  slug: "HUBSPOT_ASSOCIATE",
  name: "Link two HubSpot records",
  description:
    "Links two records with HubSpot's default association for their types (e.g. a contact to a company, a deal to a contact). " +
    "Linking twice changes nothing. Returns { from, to } as linked.",
  input: z.object({
    fromType: objectType.describe("The kind of the first record: contacts, companies or deals."),
    fromId: z.string().min(1).max(100).describe("The first record's id."),
    toType: objectType.describe("The kind of the record to link it to: contacts, companies or deals."),
    toId: z.string().min(1).max(100).describe("The id of the record to link it to."),
  }),
  annotations: { readOnly: false, destructive: false, idempotent: true },
  async run(args, ctx) {
    await call(ctx, `/crm/v4/objects/${args.fromType}/${segment(args.fromId)}/associations/default/${args.toType}/${segment(args.toId)}`, {
      method: "PUT",
    });
    return { from: { type: args.fromType, id: args.fromId }, to: { type: args.toType, id: args.toId } };
  },
});

/** HubSpot's curated tools. */
export const hubspotTools: Tool[] = [
  searchTool("contacts", "HUBSPOT_SEARCH_CONTACTS", "contacts", "[{ propertyName: 'email', operator: 'EQ', value: 'ada@example.com' }]"),
  getContact,
  createTool("contacts", "HUBSPOT_CREATE_CONTACT", "contact", "email, firstname, lastname, phone, company, jobtitle"),
  updateTool("contacts", "HUBSPOT_UPDATE_CONTACT", "contact", "email, firstname, lastname, phone, lifecyclestage"),
  searchTool("companies", "HUBSPOT_SEARCH_COMPANIES", "companies", "[{ propertyName: 'domain', operator: 'EQ', value: 'example.com' }]"),
  createTool("companies", "HUBSPOT_CREATE_COMPANY", "company", "name, domain, industry, city, phone"),
  searchTool("deals", "HUBSPOT_SEARCH_DEALS", "deals", "[{ propertyName: 'dealstage', operator: 'EQ', value: 'closedwon' }]"),
  createDeal,
  updateTool("deals", "HUBSPOT_UPDATE_DEAL", "deal", "dealstage, amount, closedate, dealname"),
  associate,
];
