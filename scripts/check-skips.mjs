// After `npm test` in CI: fails when a test skipped other than those that skip by design.
// A test skips when a server, browser or runtime it needs is absent, which is right on a laptop
// but means, in CI, that a part of the contract went unchecked.
import { readFileSync } from "node:fs";

/** Skips that are decisions, not missing prerequisites: each says why in its name. */
const BY_DESIGN = [/\(skipped: s3rver ignores If-Match/, /\(skipped: covered by the run without fsync\)/];

const file = process.argv[2];
const report = JSON.parse(readFileSync(file, "utf8"));
const skipped = report.testResults
  .flatMap((suite) => suite.assertionResults.map((test) => ({ file: suite.name, name: test.fullName, status: test.status })))
  .filter((test) => test.status === "skipped" || test.status === "pending" || test.status === "todo")
  .filter((test) => !BY_DESIGN.some((pattern) => pattern.test(test.name)));

if (skipped.length > 0) {
  console.error(`${skipped.length} test(s) skipped that CI must run (start the server or install what they name):`);
  for (const test of skipped.slice(0, 50)) console.error(`  ${test.file.replace(`${process.cwd()}/`, "")}: ${test.name}`);
  process.exit(1);
}
console.log(`check-skips: every test ran except ${report.numPendingTests ?? 0} skipped by design.`);
