// Serves the Tools API handler of one module format with the Node bridge of the other, both loaded
// by their public names from the built package (as a dual install can), and prints as JSON what
// the bridge did: whether it wrote each JSON answer from its parts (`wholeParts()` still given
// after the answer was sent: nothing asked for its headers or body) and whether the handler read a
// JSON body from the request's `wholeBody` (the body stream left unread). The argument says which
// format the handler comes from: `cjs` (bridge by import) or `esm` (bridge by require).
// Run from inside the package folder, where "tools-proxy" resolves to the package itself.
import { createServer } from "node:http";
import { createRequire } from "node:module";

const require = createRequire(import.meta.url);
const handlerFrom = process.argv[2];
const core = handlerFrom === "cjs" ? require("tools-proxy") : await import("tools-proxy");
const { toNodeHandler } = handlerFrom === "cjs" ? await import("tools-proxy/node") : require("tools-proxy/node");

const store = core.memoryStore();
const tools = core.createToolsHandler({ store, toolkits: [], secret: "s".repeat(32) });
const { key } = await core.issueApiKey(store, { workspaceId: "ws", agentId: "agent" });
const seen = [];
// The handler as the bridge sees it, with each answer and request kept for the checks below.
const watched = Object.assign((request) => tools(request), {
  answer: async (request) => {
    const answer = await tools.answer(request);
    seen.push({ request, answer });
    return answer;
  },
});
const server = createServer(toNodeHandler(watched));
await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
const base = `http://127.0.0.1:${server.address().port}/proxy/tools`;
const headers = { "x-api-key": key, "content-type": "application/json" };
const listed = await fetch(`${base}/connections`, { headers });
const executed = await fetch(`${base}/execute`, { method: "POST", headers, body: JSON.stringify({ tool: "NO_SUCH_TOOL" }) });
const result = {
  sameModule: require("tools-proxy").createToolsHandler === (await import("tools-proxy")).createToolsHandler,
  listed: { status: listed.status, body: await listed.json(), wroteParts: seen[0].answer.wholeParts() !== null },
  executed: {
    status: executed.status,
    code: (await executed.json()).code,
    hadWholeBody: seen[1].request.wholeBody instanceof Uint8Array,
    streamRead: seen[1].request.bodyUsed,
    wroteParts: seen[1].answer.wholeParts() !== null,
  },
};
server.close();
await tools.close();
console.log(JSON.stringify(result));
