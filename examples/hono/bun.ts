import { announce, port } from "../shared/tools.ts";
import { app } from "./app.ts";

const server = Bun.serve({ port, hostname: "127.0.0.1", fetch: app.fetch, maxRequestBodySize: Number.MAX_SAFE_INTEGER });
announce(server.url.origin);
