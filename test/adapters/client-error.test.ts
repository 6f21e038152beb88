/**
 * `handleClientError` (tools-proxy/node) on a real node:http server, over raw sockets: the requests
 * Node's parser refuses before any handler runs get the Tools API's JSON error body, with a
 * Content-Length and `Connection: close`, and never an echo of what was sent.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { handleClientError, toNodeHandler } from "../../adapters/node.js";
import { parseAnswer, REFUSED, rawExchange } from "../support/raw-http.js";

describe("handleClientError on node:http", () => {
  let server: Server;
  let port: number;
  beforeAll(async () => {
    server = createServer(toNodeHandler(async () => Response.json({ ok: true })));
    server.on("clientError", handleClientError);
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    port = (server.address() as AddressInfo).port;
  });
  afterAll(() => new Promise((resolve) => server.close(resolve)));

  it.each(REFUSED)("answers $name with $status and a JSON error body, echoing nothing", async ({ request, status, code, error }) => {
    const raw = await rawExchange(port, request);
    const answer = parseAnswer(raw);
    expect(answer.status).toBe(status);
    expect(answer.headers["content-type"]).toBe("application/json; charset=utf-8");
    expect(answer.headers.connection).toBe("close");
    expect(answer.body).toEqual({ error: expect.stringMatching(error), code });
    expect(raw).not.toContain("ECHO-MARK");
  });

  it("a well-formed request on the same server is still served", async () => {
    expect(await (await fetch(`http://127.0.0.1:${port}/proxy/tools/search`)).json()).toEqual({ ok: true });
  });
});
