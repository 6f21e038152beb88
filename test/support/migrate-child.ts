/** Run as a separate process by the migration tests: migrates DATABASE (a URL) with PREFIX and prints what it applied. */
import { openDatabase } from "../../src/store/sql/connect.js";
import { migrate } from "../../src/store/sql/migrations.js";

const [url, tablePrefix] = process.argv.slice(2) as [string, string];
const { db } = openDatabase(url);
try {
  process.stdout.write(JSON.stringify(await migrate(db, { tablePrefix })));
} finally {
  await db.destroy();
}
