import { sqliteFileConformance, sqliteMemoryConformance } from "../../support/sql-conformance.js";

sqliteMemoryConformance();
await sqliteFileConformance();
