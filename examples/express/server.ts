import type { AddressInfo } from "node:net";
import express from "express";
import { toExpressHandler } from "tools-proxy/express";
import { announce, basePath, port, tools } from "../shared/tools.ts";

const app = express();
// Body parsers may run first: the handler is given what they read.
app.use(express.json(), express.urlencoded({ extended: true }), express.raw());
app.use(basePath, toExpressHandler(tools));

const server = app.listen(port, "127.0.0.1", () => announce(`http://127.0.0.1:${(server.address() as AddressInfo).port}`));
