import { serve } from "@hono/node-server";
import { announce, port } from "../shared/tools.ts";
import { app } from "./app.ts";

serve({ fetch: app.fetch, port, hostname: "127.0.0.1" }, (info) => announce(`http://127.0.0.1:${info.port}`));
