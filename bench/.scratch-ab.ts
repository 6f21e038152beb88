import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { createToolsHandler, defineJsonToolkit, issueApiKey, memoryStore } from "../src/index.js";
import { createUndiciFetch } from "../src/node/undici-fetch.js";

const up = createServer((req, res) => {
  req.resume();
  req.on("end", () => {
    const b = JSON.stringify({ id: "item_1", name: "A small item", price: 12.5, tags: ["bench", "loopback"], inStock: true });
    res.writeHead(200, { "content-type": "application/json", "content-length": Buffer.byteLength(b) });
    res.end(b);
  });
});
await new Promise<void>((r) => up.listen(0, "127.0.0.1", () => r()));
const origin = `http://127.0.0.1:${(up.address() as AddressInfo).port}`;
async function make(opts: Record<string, unknown>) {
  const store = memoryStore();
  const toolkit = defineJsonToolkit({
    slug: "bench",
    name: "Bench",
    description: "b",
    baseUrl: origin,
    auth: { type: "apiKey", in: "header", name: "x-upstream-key" },
    tools: [],
  });
  const h = createToolsHandler({
    store,
    toolkits: [toolkit],
    secret: "bench-secret-bench-secret-bench-secret-0123456789",
    fetch: createUndiciFetch(),
    ...opts,
  });
  const { key } = await issueApiKey(store, { workspaceId: "w", agentId: "a" });
  const headers = { "x-api-key": key, "content-type": "application/json" };
  await h(
    new Request("http://x/proxy/tools/auth", {
      method: "POST",
      headers,
      body: JSON.stringify({ toolkit: "bench", credentials: { apiKey: "k" } }),
    }),
  );
  return { h, headers };
}
const route = process.env.AB_ROUTE ?? "connections";
const variants = { A: await make(JSON.parse(process.env.AB_A ?? "{}")), B: await make(JSON.parse(process.env.AB_B ?? "{}")) };
async function once(v: { h: any; headers: any }) {
  const r =
    route === "connections"
      ? await v.h(new Request("http://x/proxy/tools/connections", { headers: v.headers }))
      : await v.h(
          new Request("http://x/proxy/tools/proxy", {
            method: "POST",
            headers: v.headers,
            body: JSON.stringify({ toolkit: "bench", method: "GET", url: `${origin}/items/item_1` }),
          }),
        );
  await r.arrayBuffer();
  if (r.status !== 200) throw new Error(String(r.status));
}
const N = Number(process.env.AB_N ?? 3000);
const res: Record<string, number[]> = { A: [], B: [] };
for (let round = 0; round < 8; round++)
  for (const name of round % 2 ? ["A", "B"] : ["B", "A"]) {
    const v = (variants as any)[name];
    const t = process.cpuUsage();
    for (let i = 0; i < N; i++) await once(v);
    const u = process.cpuUsage(t);
    if (round > 1) res[name]!.push((u.user + u.system) / N);
  }
const med = (a: number[]) => a.sort((x, y) => x - y)[a.length >> 1]!;
console.log(
  route,
  "A",
  med(res.A!).toFixed(1),
  "us cpu/op; B",
  med(res.B!).toFixed(1),
  "us cpu/op",
  "B/A",
  (med(res.B!) / med(res.A!)).toFixed(3),
);
up.close();
process.exit(0);
