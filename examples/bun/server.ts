import { toBunHandler } from "tools-proxy/bun";
import { announce, port, tools } from "../shared/tools.ts";

const server = Bun.serve({
  port,
  hostname: "127.0.0.1",
  fetch: toBunHandler(tools),
  // The handler counts upload bytes itself and answers 413 in JSON; Bun's own cap is 128 MiB.
  maxRequestBodySize: Number.MAX_SAFE_INTEGER,
});
announce(server.url.origin);
