import Fastify from "fastify";
import { toFastifyPlugin } from "tools-proxy/fastify";
import { announce, basePath, port, tools } from "../shared/tools.ts";

const app = Fastify();
// A route of the app's own, with Fastify's JSON body parser; the plugin's routes parse no body.
app.post("/notes", async (request) => ({ saved: request.body }));
await app.register(toFastifyPlugin(tools), { prefix: basePath });

announce(await app.listen({ port, host: "127.0.0.1" }));
