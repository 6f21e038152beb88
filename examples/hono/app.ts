import { Hono } from "hono";
import { basePath, tools } from "../shared/tools.ts";

export const app = new Hono();
// A route of the app's own, reading its JSON body as Hono does.
app.post("/notes", async (c) => c.json({ saved: await c.req.json() }));
// The handler under its basePath, given the request as it arrived: URL as sent, body unread.
app.all(`${basePath}/*`, (c) => tools(c.req.raw));
