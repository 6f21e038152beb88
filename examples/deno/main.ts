import { announce, port, tools } from "../shared/tools.ts";

Deno.serve({ port, hostname: "127.0.0.1", onListen: ({ port }) => announce(`http://127.0.0.1:${port}`) }, tools);
