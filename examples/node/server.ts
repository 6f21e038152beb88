import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { handleClientError, toNodeHandler } from "tools-proxy/node";
import { announce, port, tools } from "../shared/tools.ts";

const server = createServer(toNodeHandler(tools));
server.on("clientError", handleClientError); // requests Node's parser refuses get a JSON error too
server.listen(port, "127.0.0.1", () => announce(`http://127.0.0.1:${(server.address() as AddressInfo).port}`));
