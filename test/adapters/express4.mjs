// Runs the Express example on Express 4 (the `express4` alias of express@4): the example imports
// "express", and this hook resolves that to "express4". Use with `node --import`.
import { createRequire, registerHooks } from "node:module";

const { version } = createRequire(import.meta.url)("express4/package.json");
console.log(`express hook: "express" is express@${version}`);
registerHooks({
  resolve: (specifier, context, nextResolve) => nextResolve(specifier === "express" ? "express4" : specifier, context),
});
