/**
 * The Node bridge's request headers (`NodeHeaders`), read from Node's raw header list without
 * building a `Headers`: every answer must be the one a `Headers` built from the same list gives.
 */
import { createServer, type IncomingMessage } from "node:http";
import type { AddressInfo } from "node:net";
import { connect } from "node:net";
import { inspect } from "node:util";
import { describe, expect, it } from "vitest";
import { NodeHeaders } from "../../adapters/node-headers.js";

/** The `Headers` the lazy view must agree with: the raw list appended line by line (pseudo-headers left out). */
function fromRawHeaders(raw: readonly string[], host?: string): Headers {
  const headers = new Headers();
  for (let i = 0; i < raw.length; i += 2) {
    if (raw[i]!.startsWith(":") || (host !== undefined && raw[i]!.toLowerCase() === "host")) continue;
    headers.append(raw[i]!, raw[i + 1]!);
  }
  if (host !== undefined) headers.append("host", host);
  return headers;
}

/** Names asked of every list: present, absent, in other cases, ones Node joins in its own ways, and names `Headers` refuses. */
const NAMES = [
  "host",
  "HOST",
  "authorization",
  "Authorization",
  "x-api-key",
  "X-Api-Key",
  "content-type",
  "content-length",
  "user-agent",
  "cookie",
  "set-cookie",
  "Set-Cookie",
  "accept",
  "x-dup",
  "x-empty",
  "x-spaces",
  "missing",
  "__proto__",
  "constructor",
  "toString",
  "hasOwnProperty",
  "a",
  "x-dup ",
  "bad name",
  "",
  ":path",
  "é",
];

/** Raw header lists as Node gives them (`req.rawHeaders`), with the cases where Node's own `req.headers` differs from Fetch's. */
const LISTS: Record<string, string[]> = {
  empty: [],
  plain: ["Host", "127.0.0.1:3000", "X-Api-Key", "tp_key", "Content-Type", "application/json", "Accept", "*/*"],
  "repeated lines, joined with a comma": ["x-dup", "1", "X-Dup", "2", "x-DUP", "3"],
  "repeated headers Node keeps the first of": [
    "Authorization",
    "Bearer one",
    "authorization",
    "Bearer two",
    "Content-Type",
    "text/plain",
    "content-type",
    "application/json",
    "Host",
    "a.example",
    "host",
    "b.example",
    "User-Agent",
    "one",
    "user-agent",
    "two",
    "Content-Length",
    "3",
    "Content-Length",
    "3",
  ],
  "cookies, which Node joins with a semicolon or keeps as a list": [
    "Cookie",
    "a=1",
    "cookie",
    "b=2",
    "Set-Cookie",
    "c=3",
    "set-cookie",
    "d=4; Path=/",
  ],
  "values with HTTP whitespace at the ends or inside": ["x-spaces", " \t a  b \t ", "X-Spaces", "c ", "x-empty", "", "x-empty", "  "],
  "names that are object properties": ["__proto__", "x", "constructor", "y", "toString", "z", "hasOwnProperty", "w"],
  "latin-1 values": ["x-latin", "caf\u00e9 \u00ff"],
  "HTTP/2 pseudo-headers": [":method", "GET", ":path", "/p", ":authority", "h.example", "x-api-key", "k"],
};

describe("NodeHeaders answers as Headers built from the raw list", () => {
  for (const [title, raw] of Object.entries(LISTS)) {
    for (const host of [undefined, "localhost"]) {
      it(`${title}${host ? " (Host replaced)" : ""}`, () => {
        const expected = fromRawHeaders(raw, host);
        for (const name of NAMES) {
          const lazy = new NodeHeaders(raw, host);
          expect(
            outcome(() => lazy.get(name)),
            `get(${JSON.stringify(name)})`,
          ).toEqual(outcome(() => expected.get(name)));
          expect(
            outcome(() => lazy.has(name)),
            `has(${JSON.stringify(name)})`,
          ).toEqual(outcome(() => expected.has(name)));
        }
        const lazy = new NodeHeaders(raw, host);
        expect(lazy.get("x-api-key")).toBe(expected.get("x-api-key")); // read from the list first
        expect([...lazy]).toEqual([...expected]);
        expect(lazy.getSetCookie()).toEqual(expected.getSetCookie());
        expect([...lazy.keys()]).toEqual([...expected.keys()]);
        expect([...lazy.values()]).toEqual([...expected.values()]);
        const seen: unknown[] = [];
        lazy.forEach(function (this: unknown, value, name, parent) {
          seen.push([name, value, parent === lazy, this]);
        }, "this");
        expect(seen).toEqual([...expected].map(([name, value]) => [name, value, true, "this"]));
      });
    }
  }

  it("follows changes once made, as Headers does", () => {
    const lazy = new NodeHeaders(["X-Api-Key", "k", "Accept", "a"]);
    lazy.set("x-api-key", "other");
    lazy.append("accept", "b");
    lazy.delete("missing");
    lazy.append("X-New", " n ");
    expect([lazy.get("x-api-key"), lazy.get("accept"), lazy.get("x-new"), lazy.has("x-new")]).toEqual(["other", "a, b", "n", true]);
    lazy.delete("ACCEPT");
    expect([lazy.get("accept"), lazy.has("accept")]).toEqual([null, false]);
  });

  it("throws where Headers would, for a list Headers refuses", () => {
    for (const raw of [
      ["x-bad", "a\0b", "x-api-key", "k"],
      ["x-bad", "a\r\nb", "x-api-key", "k"],
      ["bad name", "v", "x-api-key", "k"],
    ]) {
      const lazy = new NodeHeaders(raw);
      expect(outcome(() => fromRawHeaders(raw))).toEqual({ threw: "TypeError" });
      expect(outcome(() => lazy.get("x-api-key"))).toEqual({ threw: "TypeError" });
      expect(outcome(() => lazy.has("x-api-key"))).toEqual({ threw: "TypeError" });
      expect(outcome(() => [...lazy])).toEqual({ threw: "TypeError" });
    }
    // Whitespace Headers trims away is no reason to refuse.
    expect(new NodeHeaders(["x-a", "v\r\n"]).get("x-a")).toBe(new Headers([["x-a", "v\r\n"]]).get("x-a"));
  });

  it("passes for a Headers", () => {
    const lazy = new NodeHeaders(["X-Api-Key", "k"]) as unknown as Headers;
    expect(lazy).toBeInstanceOf(Headers);
    expect(Object.prototype.toString.call(lazy)).toBe("[object Headers]");
    expect([...new Headers(lazy)]).toEqual([["x-api-key", "k"]]);
    expect(new Request("http://h.example/", { headers: lazy }).headers.get("x-api-key")).toBe("k");
    expect(new Response(null, { headers: lazy }).headers.get("x-api-key")).toBe("k");
    expect(Object.fromEntries(lazy)).toEqual({ "x-api-key": "k" });
    expect(inspect(lazy)).toContain(inspect(new Headers([["X-Api-Key", "k"]])));
  });

  it("agrees with Headers on the raw lists Node's parser gives for what a client sent", async () => {
    const sent = [
      "GET / HTTP/1.1",
      "Host: 127.0.0.1",
      "X-Api-Key:  tp_key  ",
      "Authorization: Bearer one",
      "authorization: Bearer two",
      "Cookie: a=1",
      "Cookie: b=2",
      "X-Dup: 1",
      "x-dup: 2,3",
      "Content-Type: text/plain",
      "Content-Type: application/json",
      "X-Empty:",
      "X-Tab:\tv\t",
      "X-Latin: caf\u00e9",
      "Connection: close",
      "",
      "",
    ].join("\r\n");
    const raw = await rawHeadersOf(sent);
    const expected = fromRawHeaders(raw);
    const lazy = new NodeHeaders(raw);
    for (const name of [...NAMES, "x-tab", "x-latin", "connection"]) {
      expect(
        outcome(() => lazy.get(name)),
        name,
      ).toEqual(outcome(() => expected.get(name)));
    }
    expect(lazy.get("authorization")).toBe("Bearer one, Bearer two"); // Node's req.headers keeps only the first
    expect(lazy.get("cookie")).toBe("a=1; b=2"); // as Node's Headers joins cookies
    expect(lazy.get("content-type")).toBe("text/plain, application/json");
    expect(lazy.get("x-api-key")).toBe("tp_key");
    expect([...lazy]).toEqual([...expected]);
  });
});

/** What calling `read` gave: its value, or the name of the error it threw. */
function outcome(read: () => unknown): { value: unknown } | { threw: string } {
  try {
    return { value: read() };
  } catch (error) {
    return { threw: (error as Error).name };
  }
}

/** The `rawHeaders` Node's HTTP server parses from `request`, sent as is over a socket. */
async function rawHeadersOf(request: string): Promise<string[]> {
  let seen: IncomingMessage | undefined;
  const server = createServer((req, res) => {
    seen = req;
    res.end();
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  try {
    const socket = connect((server.address() as AddressInfo).port, "127.0.0.1");
    socket.end(Buffer.from(request, "latin1"));
    await new Promise<void>((resolve, reject) => {
      socket.on("data", () => {}).once("close", () => resolve());
      socket.once("error", reject);
    });
  } finally {
    await new Promise((resolve) => server.close(resolve));
  }
  if (!seen) throw new Error("Node's parser refused the request");
  return seen.rawHeaders;
}
