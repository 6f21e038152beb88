import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { bearer, defineTool, defineToolkit } from "../../src/index.js";
import { applyCredentialQuery, buildUpstreamHeaders } from "../../src/outbound/headers.js";
import { createHarness, expectError, type Harness } from "../support/harness.js";
import { createSsrfSetup, SSRF_CREDENTIALS, type SsrfSetup, ssrfUpstreamRoute, startLoopbackServer } from "../support/ssrf-servers.js";
import type { TestServer } from "../support/upstream.js";

// The header policy's edges that ssrf-headers.test.ts does not reach: headers a tool passes as a
// Headers object, what the 400 says about a bad name, Connection lists with spaces, the query key
// never going in a header, and a stored credential of another type than the toolkit's scheme.
let s: SsrfSetup;
const sent = () => s.upstream.requests.at(-1)!;

beforeAll(async () => {
  s = await createSsrfSetup();
});
afterAll(async () => {
  expect(s.foreign.requests).toEqual([]);
  s.h.assertNoLeaks();
  await s.close();
});

describe("the caller's headers through POST /proxy", () => {
  it("a bad header name is named in the 400 with its line break and control characters shown as ?", async () => {
    const res = await s.proxy("ssrf-bearer", `${s.base}/echo`, { headers: { "X-Evil\r\nX-Injected": "1" } });
    expectError(
      res,
      400,
      "invalid_request",
      'Header "X-Evil??X-Injected" has an invalid name, or a line break, control character or non-Latin-1 character in its value; remove it.',
    );
  });

  it("a header the caller's Connection names after a space is dropped; the others arrive", async () => {
    const headers = { Connection: "close,  X-Listed ,X-Other", "X-Listed": "dropped", "X-Other": "dropped", "X-Kept": "yes" };
    expect((await s.proxy("ssrf-bearer", `${s.base}/echo`, { headers })).json.successful).toBe(true);
    expect(sent().headers["x-listed"]).toBeUndefined();
    expect(sent().headers["x-other"]).toBeUndefined();
    expect(sent().headers["x-kept"]).toBe("yes");
  });

  it("a query API key goes in the query only, never in a header, and a caller's header of that name passes", async () => {
    const res = await s.proxy("ssrf-query", `${s.base}/echo`, { headers: { api_key: "caller-value" } });
    expect(res.json.successful).toBe(true);
    expect(new URL(sent().url, "http://upstream.invalid").searchParams.get("api_key")).toBe(SSRF_CREDENTIALS.queryKey);
    expect(JSON.stringify(sent().headers)).not.toContain(SSRF_CREDENTIALS.queryKey);
    expect(sent().headers.api_key).toBe("caller-value");
    expect(sent().headers.authorization).toBeUndefined();
  });
});

describe("a tool's ctx.fetch with a Headers object", () => {
  let h: Harness;
  let upstream: TestServer;
  let key: string;
  const TOKEN = `hdr-token-${Math.random().toString(36).slice(2, 10)}`;

  beforeAll(async () => {
    upstream = await startLoopbackServer(ssrfUpstreamRoute);
    const tool = defineTool({
      slug: "HDR_HEADERS_FETCH",
      name: "Fetch with Headers",
      description: "Calls ctx.fetch with its headers as a Headers object.",
      input: z.object({ pairs: z.array(z.tuple([z.string(), z.string()])) }),
      run: async (args, ctx) => {
        const response = await ctx.fetch("/echo", { headers: new Headers(args.pairs) });
        return { status: response.status };
      },
    });
    h = await createHarness({
      extraToolkits: () => [
        defineToolkit({
          slug: "hdr-bearer",
          name: "hdr-bearer",
          description: "Headers object target.",
          baseUrl: `${upstream.origin}/v1`,
          auth: bearer(),
          tools: [tool],
        }),
      ],
    });
    ({ key } = await h.issueAgentKey("hdr-agent"));
    await h.connect(key, "hdr-bearer", { token: TOKEN });
    h.addSecret(TOKEN);
  });
  afterAll(async () => {
    h.assertNoLeaks();
    await Promise.all([h.close(), upstream.close()]);
  });

  it("keeps the tool's headers and still sets the credential last", async () => {
    const pairs = [
      ["X-Custom", "kept"],
      ["Authorization", "Bearer attacker"],
      ["Connection", "x-listed"],
      ["X-Listed", "dropped"],
    ];
    const res = await h.call("POST", "/execute", { key, body: { tool: "HDR_HEADERS_FETCH", arguments: { pairs } } });
    expect(res.json).toMatchObject({ successful: true, data: { status: 200 } });
    const got = upstream.requests.at(-1)!.headers;
    expect(got["x-custom"]).toBe("kept");
    expect(got.authorization).toBe(`Bearer ${TOKEN}`);
    expect(got["x-listed"]).toBeUndefined();
  });
});

describe("a stored credential of another type than the toolkit's scheme (the toolkit's auth changed)", () => {
  const headerKey = { type: "apiKey", in: "header", name: "X-Secret-Key" } as const;
  const queryKey = { type: "apiKey", in: "query", name: "api_key" } as const;

  it("the caller still cannot set the scheme's key header", () => {
    const out = buildUpstreamHeaders({ "x-secret-key": "attacker", "X-Kept": "yes" }, headerKey, { type: "bearer", token: "tok" });
    expect(out.get("x-secret-key")).toBeNull();
    expect(out.get("x-kept")).toBe("yes");
  });

  it("nothing is added to the query, and the token goes in no query parameter", () => {
    const url = new URL("https://api.example.test/v1/x?a=1");
    expect(applyCredentialQuery(url, queryKey, { type: "bearer", token: "tok" }).href).toBe("https://api.example.test/v1/x?a=1");
    expect(applyCredentialQuery(url, queryKey, null).href).toBe("https://api.example.test/v1/x?a=1");
  });
});

describe("headers given as a list of pairs", () => {
  const scheme = { type: "bearer" } as const;
  const credential = { type: "bearer", token: "tok" } as const;

  it("go out like the same headers given as a record, repeats kept and the credential set last", () => {
    const out = buildUpstreamHeaders(
      [
        ["X-Tag", "a"],
        ["x-tag", "b"],
        ["Authorization", "Bearer attacker"],
      ],
      scheme,
      credential,
    );
    expect([...out]).toEqual([
      ["authorization", "Bearer tok"],
      ["x-tag", "a, b"],
    ]);
  });

  it("a list entry that is not a [name, value] pair is refused with a 400, as fetch would refuse it", () => {
    for (const entry of [["X-Tag"], ["X-Tag", "a", "b"]]) {
      const refuse = () => buildUpstreamHeaders([entry as [string, string]], scheme, credential);
      expect(refuse).toThrow(expect.objectContaining({ code: "invalid_request", message: expect.stringMatching(/\[name, value\] pair/) }));
    }
  });
});
