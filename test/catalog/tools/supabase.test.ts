/**
 * The curated Supabase tools through POST /execute, against an emulation of the Management API at
 * https://api.supabase.com answering as its reference shows: arrays of organizations, projects and functions,
 * a project object, the rows of `POST /v1/projects/{ref}/database/query` as a JSON array, and `{ message }` errors.
 */
import { describe, expect, it } from "vitest";
import { supabaseTools } from "../../../src/catalog/tools/supabase.js";
import { json, type Received, type Route, setupToolkit } from "./support-b.js";

const REF = "abcdefghijklmnopqrst";
const PROJECT = {
  id: REF,
  ref: REF,
  organization_id: "acme-org",
  organization_slug: "acme-org",
  name: "shop",
  region: "us-east-1",
  created_at: "2024-01-02T03:04:05.000Z",
  status: "ACTIVE_HEALTHY",
  database: { host: `db.${REF}.supabase.co`, version: "15.1.0.117", postgres_engine: "15", release_channel: "ga" },
};
const PROJECT_OUT = {
  ref: REF,
  name: "shop",
  organizationId: "acme-org",
  region: "us-east-1",
  status: "ACTIVE_HEALTHY",
  createdAt: "2024-01-02T03:04:05.000Z",
  databaseHost: `db.${REF}.supabase.co`,
  postgresVersion: "15.1.0.117",
};

const query = (request: Received) => (request.body as { query: string; read_only: boolean }).query;

const routes: Route[] = [
  { method: "GET", path: /^\/v1\/organizations$/, answer: () => json([{ id: "acme-org", name: "Acme" }]) },
  { method: "GET", path: /^\/v1\/projects$/, answer: () => json([PROJECT]) },
  {
    method: "GET",
    path: /^\/v1\/projects\/(?<ref>\w+)$/,
    answer: (_request, { ref }) => (ref === REF ? json(PROJECT) : json({ message: "Project not found" }, 404)),
  },
  {
    method: "POST",
    path: /^\/v1\/projects\/\w+\/database\/query$/,
    answer: (request) => {
      const sql = query(request);
      if (sql.includes("from pg_class"))
        return json([
          {
            schema: "public",
            name: "orders",
            rowsEstimate: 10,
            rlsEnabled: true,
            columns: [{ name: "id", type: "bigint", nullable: false, default: null }],
          },
          { schema: "public", name: "users", rowsEstimate: 3, rlsEnabled: false, columns: [] },
        ]);
      if (sql.includes("nope")) return json({ message: 'Failed to run sql query: ERROR:  42P01: relation "nope" does not exist' }, 400);
      if (sql.startsWith("select")) return json([{ id: 1 }, { id: 2 }, { id: 3 }]);
      return json([]);
    },
  },
  { method: "POST", path: /^\/v1\/projects\/\w+\/database\/migrations$/, answer: () => json({}, 200) },
  {
    method: "GET",
    path: /^\/v1\/projects\/\w+\/functions$/,
    answer: () =>
      json([
        {
          id: "f1",
          slug: "hello",
          name: "hello",
          status: "ACTIVE",
          version: 3,
          created_at: 1700000000000,
          updated_at: 1700000001000,
          verify_jwt: true,
        },
      ]),
  },
];

const setup = () => setupToolkit({ slug: "supabase", baseUrl: "https://api.supabase.com", tools: supabaseTools, routes });

describe("Supabase tools", () => {
  it("SUPABASE_LIST_ORGANIZATIONS, SUPABASE_LIST_PROJECTS and SUPABASE_GET_PROJECT", async () => {
    const supabase = await setup();
    expect(await supabase.ok("SUPABASE_LIST_ORGANIZATIONS")).toEqual({ results: [{ id: "acme-org", name: "Acme" }] });
    expect(await supabase.ok("SUPABASE_LIST_PROJECTS")).toEqual({ results: [PROJECT_OUT] });
    expect(await supabase.ok("SUPABASE_GET_PROJECT", { projectRef: REF })).toEqual(PROJECT_OUT);
    expect([supabase.last().method, supabase.last().path]).toEqual(["GET", `/v1/projects/${REF}`]);
  });

  it("a 404 is a failed result with Supabase's message and advice", async () => {
    const supabase = await setup();
    const result = await supabase.execute("SUPABASE_GET_PROJECT", { projectRef: "zzzzzzzzzzzzzzzzzzzz" });
    expect(result).toMatchObject({ successful: false, code: "upstream_error", upstreamStatus: 404 });
    expect(result.error).toBe(
      "Supabase answered 404: Project not found. Check the project ref (SUPABASE_LIST_PROJECTS), and that the connected account belongs to its organization.",
    );
  });

  it("SUPABASE_LIST_TABLES runs a read-only catalog query and pages by offset", async () => {
    const supabase = await setup();
    const data = await supabase.ok("SUPABASE_LIST_TABLES", { projectRef: REF, schemas: ["public", "it's"], limit: 1, cursor: "4" });
    expect(data.results).toEqual([
      {
        schema: "public",
        name: "orders",
        rowsEstimate: 10,
        rlsEnabled: true,
        columns: [{ name: "id", type: "bigint", nullable: false, default: null }],
      },
    ]);
    expect(data.nextCursor).toBe("5");
    const sent = supabase.last();
    expect([sent.method, sent.path]).toEqual(["POST", `/v1/projects/${REF}/database/query`]);
    expect((sent.body as any).read_only).toBe(true);
    expect(query(sent)).toContain("n.nspname in ('public', 'it''s')");
    expect(query(sent)).toMatch(/limit 2 offset 4$/);
  });

  it("SUPABASE_SELECT_ROWS quotes identifiers, adds filter and order, and has no cursor on the last page", async () => {
    const supabase = await setup();
    const data = await supabase.ok("SUPABASE_SELECT_ROWS", {
      projectRef: REF,
      table: 'my"table',
      columns: ["id", "Name"],
      filter: "id > 0",
      orderBy: "id desc",
      limit: 3,
    });
    expect(data).toEqual({ results: [{ id: 1 }, { id: 2 }, { id: 3 }], nextCursor: null });
    expect(supabase.last().body).toEqual({
      query: 'select "id", "Name" from "public"."my""table" where id > 0 order by id desc limit 4 offset 0',
      read_only: true,
    });
    expect(await supabase.ok("SUPABASE_SELECT_ROWS", { projectRef: REF, table: "t", limit: 2 })).toMatchObject({ nextCursor: "2" });
  });

  it("SUPABASE_RUN_SQL sends the query as it is; a SQL error is a 400 quoting Postgres", async () => {
    const supabase = await setup();
    expect(await supabase.ok("SUPABASE_RUN_SQL", { projectRef: REF, query: "update t set a = 1" })).toEqual({ rows: [] });
    expect(supabase.last().body).toEqual({ query: "update t set a = 1", read_only: false });
    const bad = await supabase.execute("SUPABASE_RUN_SQL", { projectRef: REF, query: "select * from nope", readOnly: true });
    expect(bad).toMatchObject({ successful: false, upstreamStatus: 400 });
    expect(bad.error).toContain('Supabase answered 400: Failed to run sql query: ERROR:  42P01: relation "nope" does not exist.');
  });

  it("SUPABASE_APPLY_MIGRATION posts the named migration", async () => {
    const supabase = await setup();
    expect(
      await supabase.ok("SUPABASE_APPLY_MIGRATION", { projectRef: REF, name: "create_orders", query: "create table orders (id bigint)" }),
    ).toEqual({
      applied: true,
      name: "create_orders",
    });
    expect([supabase.last().path, supabase.last().body]).toEqual([
      `/v1/projects/${REF}/database/migrations`,
      { query: "create table orders (id bigint)", name: "create_orders" },
    ]);
  });

  it("SUPABASE_LIST_EDGE_FUNCTIONS trims functions", async () => {
    const supabase = await setup();
    expect(await supabase.ok("SUPABASE_LIST_EDGE_FUNCTIONS", { projectRef: REF })).toEqual({
      results: [{ slug: "hello", name: "hello", status: "ACTIVE", version: 3, verifyJwt: true, updatedAt: 1700000001000 }],
    });
  });
});
