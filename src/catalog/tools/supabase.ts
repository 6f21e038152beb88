// Supabase's curated tools, over the Management API at https://api.supabase.com (an OAuth app's token or a personal
// access token reaches every project the person can see). Facts from Supabase's Management API reference:
// https://supabase.com/docs/reference/api/introduction (base URL, bearer tokens, { message } errors)
// https://supabase.com/docs/reference/api/v1-list-all-organizations (GET /v1/organizations: [{ id, name }])
// https://supabase.com/docs/reference/api/v1-list-all-projects (GET /v1/projects: [{ id, ref, organization_id, name, region, status, created_at, database }])
// https://supabase.com/docs/reference/api/v1-get-project (GET /v1/projects/{ref})
// https://supabase.com/docs/reference/api/v1-run-a-query (POST /v1/projects/{ref}/database/query { query, read_only }: the rows as a JSON array)
// https://supabase.com/docs/reference/api/v1-apply-a-migration (POST /v1/projects/{ref}/database/migrations { query, name })
// https://supabase.com/docs/reference/api/v1-list-all-functions (GET /v1/projects/{ref}/functions)
// The OpenAPI document these pages are made from: https://api.supabase.com/api/v1-json
import { z } from "zod";
import { invalidArguments } from "../../core/tool-error.js";
import { defineTool, type Tool, type ToolContext } from "../../toolkits/define.js";
import { type ProviderErrors, requestJson, segment } from "../../toolkits/provider-requests.js";
import { cursorArgument, pageSize } from "./arguments.js";

const SUPABASE: ProviderErrors = {
  name: "Supabase",
  hints: {
    404: "Check the project ref (SUPABASE_LIST_PROJECTS), and that the connected account belongs to its organization.",
    403: "The connected account may not do this in that project's organization (its role, or the OAuth app's permissions).",
  },
};

type Json = Record<string, unknown>;

const projectRef = z
  .string()
  .regex(/^[a-z0-9]{20}$/, "must be a project ref: 20 lowercase letters and digits")
  .describe("The project's ref (its id, the subdomain of <ref>.supabase.co), from SUPABASE_LIST_PROJECTS.");

/** A Postgres identifier quoted: the name as it is, any double quote doubled. */
const ident = (name: string) => `"${name.replace(/"/g, '""')}"`;
const identifier = (what: string) => z.string().min(1).max(63).describe(what);

/** Runs SQL in a project's database and returns the rows. */
function runQuery(ctx: ToolContext, ref: string, query: string, readOnly: boolean): Promise<Json[]> {
  return requestJson<Json[]>(ctx, SUPABASE, `/v1/projects/${segment(ref)}/database/query`, {
    method: "POST",
    json: { query, read_only: readOnly },
  }).then((rows) => (Array.isArray(rows) ? rows : []));
}

/** The offset a cursor holds; the cursor of a page is the offset of the next. */
function offsetOf(cursor: string | undefined): number {
  if (cursor === undefined) return 0;
  if (!/^\d{1,9}$/.test(cursor)) throw invalidArguments("cursor must be the nextCursor of a previous result.");
  return Number(cursor);
}

/** One more row than the page is asked for, to know whether another page follows. */
function paged(rows: Json[], limit: number, offset: number) {
  return { results: rows.slice(0, limit), nextCursor: rows.length > limit ? String(offset + limit) : null };
}

const listOrganizations = defineTool({
  slug: "SUPABASE_LIST_ORGANIZATIONS",
  name: "List Supabase organizations",
  description: "Lists the organizations the connected account belongs to, all at once: { results: [{ id (the slug), name }] }.",
  input: z.object({}),
  annotations: { readOnly: true, idempotent: true },
  async run(_args, ctx) {
    const organizations = await requestJson<Json[]>(ctx, SUPABASE, "/v1/organizations");
    return { results: organizations.map((o) => ({ id: o.id, name: o.name })) };
  },
});

function project(p: Json) {
  return {
    ref: p.ref ?? p.id,
    name: p.name,
    organizationId: p.organization_id ?? null,
    region: p.region ?? null,
    status: p.status ?? null,
    createdAt: p.created_at ?? null,
    databaseHost: (p.database as Json | undefined)?.host ?? null,
    postgresVersion: (p.database as Json | undefined)?.version ?? null,
  };
}

const listProjects = defineTool({
  slug: "SUPABASE_LIST_PROJECTS",
  name: "List Supabase projects",
  description:
    "Lists every project the account can reach, all at once: { results: [{ ref, name, organizationId, region, status (ACTIVE_HEALTHY, " +
    "INACTIVE...), createdAt }] }. A project's ref is what the other Supabase tools take.",
  input: z.object({}),
  annotations: { readOnly: true, idempotent: true },
  async run(_args, ctx) {
    return { results: (await requestJson<Json[]>(ctx, SUPABASE, "/v1/projects")).map(project) };
  },
});

const getProject = defineTool({
  slug: "SUPABASE_GET_PROJECT",
  name: "Get a Supabase project",
  description: "Reads one project: name, organization, region, status, creation time, database host and Postgres version.",
  input: z.object({ projectRef }),
  annotations: { readOnly: true, idempotent: true },
  async run(args, ctx) {
    return project(await requestJson<Json>(ctx, SUPABASE, `/v1/projects/${segment(args.projectRef)}`));
  },
});

const listTables = defineTool({
  slug: "SUPABASE_LIST_TABLES",
  name: "List a Supabase database's tables",
  description:
    "Lists the tables of a project's database in the schemas given (public by default): { results: [{ schema, name, rowsEstimate, " +
    "rlsEnabled, columns: [{ name, type, nullable, default }] }], nextCursor }.",
  input: z.object({
    projectRef,
    schemas: z.array(identifier("A schema name.")).min(1).max(20).default(["public"]).describe("Schemas to list (default public)."),
    cursor: cursorArgument,
    limit: pageSize(100, 50),
  }),
  annotations: { readOnly: true, idempotent: true },
  async run(args, ctx) {
    const offset = offsetOf(args.cursor);
    const schemas = args.schemas.map((name) => `'${name.replace(/'/g, "''")}'`).join(", ");
    const query = `select n.nspname as schema, c.relname as name, c.reltuples::bigint as "rowsEstimate", c.relrowsecurity as "rlsEnabled",
  coalesce((select json_agg(json_build_object('name', a.attname, 'type', format_type(a.atttypid, a.atttypmod), 'nullable', not a.attnotnull,
    'default', pg_get_expr(d.adbin, d.adrelid)) order by a.attnum)
    from pg_attribute a left join pg_attrdef d on d.adrelid = a.attrelid and d.adnum = a.attnum
    where a.attrelid = c.oid and a.attnum > 0 and not a.attisdropped), '[]') as columns
from pg_class c join pg_namespace n on n.oid = c.relnamespace
where c.relkind in ('r', 'p') and n.nspname in (${schemas})
order by n.nspname, c.relname limit ${args.limit + 1} offset ${offset}`;
    return paged(await runQuery(ctx, args.projectRef, query, true), args.limit, offset);
  },
});

const selectRows = defineTool({
  slug: "SUPABASE_SELECT_ROWS",
  name: "Read rows of a Supabase table",
  description:
    "Reads rows of one table, read-only, with optional columns, a SQL filter (`status = 'open' and created_at > now() - interval '1 day'`) " +
    "and order. Returns { results: [row], nextCursor }; pass nextCursor back as cursor for the next rows.",
  input: z.object({
    projectRef,
    schema: identifier("The table's schema (default public).").default("public"),
    table: identifier("The table's name (SUPABASE_LIST_TABLES)."),
    columns: z.array(identifier("A column name.")).max(100).optional().describe("Columns to return; all when left out."),
    filter: z.string().max(2000).optional().describe("A SQL condition, as after WHERE."),
    orderBy: z.string().max(500).optional().describe("A SQL order, as after ORDER BY, e.g. `created_at desc`."),
    cursor: cursorArgument,
    limit: pageSize(500, 50),
  }),
  annotations: { readOnly: true, idempotent: true },
  async run(args, ctx) {
    const offset = offsetOf(args.cursor);
    const columns = args.columns?.length ? args.columns.map(ident).join(", ") : "*";
    const query =
      `select ${columns} from ${ident(args.schema)}.${ident(args.table)}` +
      (args.filter ? ` where ${args.filter}` : "") +
      (args.orderBy ? ` order by ${args.orderBy}` : "") +
      ` limit ${args.limit + 1} offset ${offset}`;
    return paged(await runQuery(ctx, args.projectRef, query, true), args.limit, offset);
  },
});

const runSql = defineTool({
  slug: "SUPABASE_RUN_SQL",
  name: "Run SQL on a Supabase database",
  description:
    "Runs SQL in a project's Postgres database and returns { rows } (the last statement's rows; [] for a statement without any). It " +
    "can change and delete data: set readOnly for queries. For schema changes to keep, prefer SUPABASE_APPLY_MIGRATION.",
  input: z.object({
    projectRef,
    query: z.string().min(1).max(100_000).describe("The SQL to run."),
    readOnly: z.boolean().default(false).describe("Run in a read-only transaction: writes fail."),
  }),
  annotations: { readOnly: false, destructive: true, idempotent: false },
  async run(args, ctx) {
    return { rows: await runQuery(ctx, args.projectRef, args.query, args.readOnly) };
  },
});

const applyMigration = defineTool({
  slug: "SUPABASE_APPLY_MIGRATION",
  name: "Apply a Supabase migration",
  description:
    "Applies DDL (create table, alter, policies, functions...) as a named migration, recorded in the project's migration history so that " +
    "branches and the CLI see it. Returns { applied: true, name }.",
  input: z.object({
    projectRef,
    name: z
      .string()
      .regex(/^[a-z0-9_]{1,100}$/, "must be snake_case")
      .describe("The migration's name in snake_case, e.g. create_orders_table."),
    query: z.string().min(1).max(100_000).describe("The SQL of the migration."),
  }),
  annotations: { readOnly: false, destructive: true, idempotent: false },
  async run(args, ctx) {
    await requestJson(ctx, SUPABASE, `/v1/projects/${segment(args.projectRef)}/database/migrations`, {
      method: "POST",
      json: { query: args.query, name: args.name },
    });
    return { applied: true, name: args.name };
  },
});

const listFunctions = defineTool({
  slug: "SUPABASE_LIST_EDGE_FUNCTIONS",
  name: "List a Supabase project's Edge Functions",
  description:
    "Lists a project's Edge Functions, all at once: { results: [{ slug, name, status, version, verifyJwt, updatedAt }] }; a function " +
    "is served at https://<ref>.supabase.co/functions/v1/<slug>.",
  input: z.object({ projectRef }),
  annotations: { readOnly: true, idempotent: true },
  async run(args, ctx) {
    const functions = await requestJson<Json[]>(ctx, SUPABASE, `/v1/projects/${segment(args.projectRef)}/functions`);
    return {
      results: functions.map((f) => ({
        slug: f.slug,
        name: f.name,
        status: f.status,
        version: f.version,
        verifyJwt: f.verify_jwt ?? null,
        updatedAt: f.updated_at ?? null,
      })),
    };
  },
});

/** Supabase's curated tools: organizations, projects, tables, rows, SQL, migrations and Edge Functions. */
export const supabaseTools: Tool[] = [
  listOrganizations,
  listProjects,
  getProject,
  listTables,
  selectRows,
  runSql,
  applyMigration,
  listFunctions,
];
