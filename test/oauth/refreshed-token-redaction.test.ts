/**
 * A token refreshed after an upstream 401 is one of the call's secrets from then on: an upstream
 * that quotes the new access token in its error cannot put it in the agent's answer or in the log.
 * The upstream here is a resource server that checks tokens at the real OpenID provider and, for
 * a valid one, answers 403 quoting it bare (no `Bearer ` before it, no `token=` around it), so
 * only the call's own secrets, not the credential-shaped patterns, can redact it.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { defineTool, defineToolkit, ToolRunError } from "../../src/index.js";
import { CALLBACK_URL, createOAuthHarness, fixtureAuth, type OAuthHarness, tokenCalls } from "../support/oauth-harness.js";
import { type OidcServer, startOidcServer } from "../support/oidc-server.js";

let as: OidcServer;
let h: OAuthHarness;
let key: string;
let quoting: Server;
let quotingUrl: string;
/** What the quoting upstream received: the token and the status it answered. */
const received: Array<[string, number]> = [];

beforeAll(async () => {
  as = await startOidcServer({ redirectUris: [CALLBACK_URL] });
  quoting = createServer(async (req, res) => {
    const token = (req.headers.authorization ?? "").replace(/^Bearer /, "");
    const status = (await as.isAccessTokenActive(token)) ? 403 : 401;
    received.push([token, status]);
    const message = status === 401 ? "the access token is invalid" : `the access token ${token} may not read ${req.url}`;
    res.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify({ error: message }));
  });
  await new Promise<void>((resolve) => quoting.listen(0, "127.0.0.1", resolve));
  quotingUrl = `http://127.0.0.1:${(quoting.address() as AddressInfo).port}`;
  h = await createOAuthHarness({
    as,
    toolkits: [
      defineToolkit({
        slug: "notes",
        name: "Quoting notes",
        description: "An API that quotes the access token in its errors.",
        baseUrl: quotingUrl,
        auth: fixtureAuth(as, { revocationUrl: undefined }),
        tools: [
          defineTool({
            slug: "QUOTING_READ",
            name: "Read",
            description: "Reads a note; fails with the upstream's error text.",
            input: z.object({}),
            run: async (_args, ctx) => {
              const response = await ctx.fetch(`${quotingUrl}/notes/1`);
              const text = await response.text();
              if (!response.ok) throw new ToolRunError(`The API answered ${response.status}: ${text}`, { upstreamStatus: response.status });
              return JSON.parse(text);
            },
          }),
        ],
      }),
    ],
  });
  key = await h.issueAgentKey("agent-q");
});
afterAll(async () => {
  h.assertNoLeaks();
  expect(as.serverErrors).toEqual([]);
  await new Promise((resolve) => quoting.close(resolve));
  await as.close();
});

/** Connects, then revokes the access token at the provider, so the next call gets a 401 and refreshes. */
async function connectThenRevoke() {
  const { connectionId } = await h.connect(key);
  const first = await h.credentialOf(connectionId);
  await as.revokeAccessTokens();
  return { connectionId, first };
}

describe("a token refreshed after a 401 is redacted like the one it replaced", () => {
  it("execute: the tool's error and the 'tool failed' log line hold [redacted], never the new access token", async () => {
    const { connectionId, first } = await connectThenRevoke();
    const mark = as.tokenRequests.length;
    const logMark = h.logs.length;
    received.length = 0;

    const res = await h.call("POST", "/execute", { key, body: { tool: "QUOTING_READ", connection_id: connectionId } });
    const second = await h.credentialOf(connectionId);
    expect(second.accessToken).not.toBe(first.accessToken);
    expect(tokenCalls(as, mark)).toEqual([["refresh_token", 200]]);
    expect(received).toEqual([
      [first.accessToken, 401],
      [second.accessToken, 403],
    ]);

    expect(res.json).toMatchObject({ successful: false, upstreamStatus: 403 });
    expect(res.json.error).toBe('The API answered 403: {"error":"the access token [redacted] may not read /notes/1"}');
    const failed = h.logs.slice(logMark).filter((l) => l.message === "tool failed");
    expect(failed).toHaveLength(1);
    expect(JSON.stringify(failed[0])).toContain("the access token [redacted] may not read");
    expect(JSON.stringify(h.logs.slice(logMark))).not.toContain(second.accessToken);
  });

  it("proxy: the upstream's error body in the answer's data holds [redacted], never the new access token", async () => {
    const { connectionId, first } = await connectThenRevoke();
    received.length = 0;

    const res = await h.call("POST", "/proxy", {
      key,
      body: { toolkit: "notes", method: "GET", url: `${quotingUrl}/notes/2`, connection_id: connectionId },
    });
    const second = await h.credentialOf(connectionId);
    expect(received).toEqual([
      [first.accessToken, 401],
      [second.accessToken, 403],
    ]);
    expect(res.json).toMatchObject({
      successful: false,
      status: 403,
      data: { error: "the access token [redacted] may not read /notes/2" },
    });
    expect(res.text).not.toContain(second.accessToken);
  });
});
