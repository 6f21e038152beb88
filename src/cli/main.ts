/**
 * The `tools-proxy` bin. It checks the Node version before loading anything else: the commands'
 * modules (node:sqlite, undici) fail on an older Node with errors that do not say why, so this
 * file may use nothing that Node 18 or 20 lacks. The minimum is package.json's
 * `engines.node`, the one place it is written.
 */
import { createRequire } from "node:module";

const { engines } = createRequire(import.meta.url)("../../package.json") as { engines: { node: string } };
const [, major = "0", minor = "0"] = /(\d+)(?:\.(\d+))?/.exec(engines.node) ?? [];
const [haveMajor = 0, haveMinor = 0] = process.versions.node.split(".").map(Number);
if (haveMajor < Number(major) || (haveMajor === Number(major) && haveMinor < Number(minor))) {
  process.stderr.write(
    `tools-proxy needs Node >= ${major}.${minor} (found ${process.versions.node}). Install a newer Node (https://nodejs.org), ` +
      `or, in a clone of the repository, run it as "npx tools-proxy ..." or "npm run serve", which use the project's own Node.\n`,
  );
  process.exit(1);
}
await import("./program.js");
