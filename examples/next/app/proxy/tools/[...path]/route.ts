import { toNextHandler } from "tools-proxy/next";
import { tools } from "../../../../lib/tools.ts";

export const { GET, POST, PUT, PATCH, DELETE } = toNextHandler(tools);
