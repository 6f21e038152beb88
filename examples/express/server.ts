import type { AddressInfo } from "node:net";
import express from "express";
import { toExpressHandler } from "tools-proxy/express";
import { announce, basePath, port, tools } from "../shared/tools.ts";

const app = express();
// The handler first: it reads its own bodies and answers their errors as JSON. The app's body
// parsers come after, for its other routes (before the handler, a malformed body would get
// Express's HTML error page instead).
app.use(basePath, toExpressHandler(tools));
app.use(express.json(), express.urlencoded({ extended: true }));

const server = app.listen(port, "127.0.0.1", () => announce(`http://127.0.0.1:${(server.address() as AddressInfo).port}`));
