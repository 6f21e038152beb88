/**
 * A child process of bench/openapi.ts: imports and checks the documents it is sent, one at a
 * time, and answers each with its `DocumentResult`. Its own process, so that the parent can stop
 * a document that runs past its time limit, and a document that exhausts the heap ends only this.
 */
import { importDocument } from "../test/support/openapi-directory.js";

process.on("message", async (file: string) => {
  const result = await importDocument(file, (stage, soFar) => process.send!({ stage, tools: soFar.tools, ms: soFar.ms }));
  process.send!(result);
});
process.send!("ready");
