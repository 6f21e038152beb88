/** The SQLite database's prepared statements (src/store/sql/sqlite.ts): kept by their SQL, reused, bounded. */
import { describe, expect, it } from "vitest";
import { openSqlite } from "../../../src/store/sql/sqlite.js";

describe("openSqlite's prepared statements", () => {
  it("reuses a statement for the same SQL, keeps at most 200, and drops the least recently used", async () => {
    const db = await openSqlite(":memory:");
    const first = db.prepare("select 1 as n");
    expect(db.prepare("select 1 as n")).toBe(first);
    for (let i = 0; i < 199; i++) db.prepare(`select ${i + 2} as n`);
    expect(db.prepare("select 1 as n"), "used again just now: the most recent").toBe(first);
    const second = db.prepare("select 2 as n");
    db.prepare("select 'one more' as n"); // the 201st: the least recently used goes, "select 3"
    expect(db.prepare("select 2 as n")).toBe(second);
    expect(db.prepare("select 1 as n")).toBe(first);
    const third = db.prepare("select 3 as n");
    expect(third.all([])).toEqual([{ n: 3 }]);
    db.close();
  });

  it("gives each iteration a statement of its own, so a query on the same SQL meanwhile does not reset it", async () => {
    const db = await openSqlite(":memory:");
    db.prepare("create table t (n integer)").run([]);
    for (let n = 1; n <= 3; n++) db.prepare("insert into t (n) values (?)").run([n]);
    const query = "select n from t where n >= ? order by n";
    const rows = db.prepare(query).iterate([1]);
    expect(rows.next().value).toEqual({ n: 1 });
    expect(db.prepare(query).all([3])).toEqual([{ n: 3 }]);
    expect([...rows]).toEqual([{ n: 2 }, { n: 3 }]);
    db.close();
  });

  it("still runs a kept statement after its table changed", async () => {
    const db = await openSqlite(":memory:");
    db.prepare("create table t (a integer)").run([]);
    db.prepare("insert into t (a) values (1)").run([]);
    expect(db.prepare("select * from t").all([])).toEqual([{ a: 1 }]);
    db.prepare("alter table t add column b text default 'x'").run([]);
    expect(db.prepare("select * from t").all([])).toEqual([{ a: 1, b: "x" }]);
    db.close();
  });
});
