import { serverConformance } from "../../support/sql-conformance.js";
import { TARGETS } from "../../support/sql-servers.js";

await serverConformance(TARGETS.mariadb);
