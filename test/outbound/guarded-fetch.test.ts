/**
 * The pinned connection of origin toolkits (src/outbound/guarded-fetch.ts): the socket's lookup
 * hands over only checked addresses, an IP host is checked before any socket, a refusal is a
 * ToolsError without the address, and other errors pass through. A listener on 127.0.0.1 counts
 * the connections it gets: none.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ToolsError } from "../../src/core/errors.js";
import { checkedLookup, createGuardedFetch, systemLookup } from "../../src/outbound/guarded-fetch.js";
import { type RawServer, startRawServer } from "./servers.js";

let listener: RawServer;
beforeAll(async () => {
  listener = await startRawServer((_request, res) => res.end("{}"));
});
afterAll(() => listener?.close());

const answers = (table: Record<string, string[]>) => async (host: string) =>
  (table[host] ?? []).map((address) => ({ address, family: address.includes(":") ? 6 : 4 }));

/** What a socket's lookup callback was given. */
function ask(lookup: ReturnType<typeof checkedLookup>, host: string, options: { all?: boolean; family?: number }) {
  return new Promise<{ error: Error | null; address: unknown; family?: number }>((resolve) => {
    lookup(
      host,
      options as never,
      ((error: Error | null, address: unknown, family?: number) => resolve({ error, address, family })) as never,
    );
  });
}

describe("checkedLookup", () => {
  const lookup = checkedLookup(answers({ "a.example.com": ["8.8.8.8", "2606:4700::1111"], "b.example.com": ["8.8.8.8", "10.0.0.1"] }));

  it("hands the socket every checked address with all, else the first of the family asked for", async () => {
    expect(await ask(lookup, "a.example.com", { all: true })).toMatchObject({
      error: null,
      address: [
        { address: "8.8.8.8", family: 4 },
        { address: "2606:4700::1111", family: 6 },
      ],
    });
    expect(await ask(lookup, "a.example.com", {})).toEqual({ error: null, address: "8.8.8.8", family: 4 });
    expect(await ask(lookup, "a.example.com", { family: 6 })).toEqual({ error: null, address: "2606:4700::1111", family: 6 });
    expect(await ask(lookup, "a.example.com", { all: true, family: 4 })).toMatchObject({ address: [{ address: "8.8.8.8" }] });
  });

  it("refuses a name with a non-public address, one with none, and one with none of the family asked for", async () => {
    for (const [host, options] of [
      ["b.example.com", { all: true }],
      ["c.example.com", {}],
    ] as const) {
      const { error } = await ask(lookup, host, options);
      expect(error, host).toBeInstanceOf(Error);
      expect(error).not.toBeInstanceOf(ToolsError);
    }
    const v6only = checkedLookup(answers({ "six.example.com": ["2606:4700::1111"] }));
    expect((await ask(v6only, "six.example.com", { family: 4 })).error).toBeInstanceOf(Error);
  });

  it("a lookup that throws is a name that does not resolve", async () => {
    const throwing = checkedLookup(() => {
      throw new Error("resolver down");
    });
    expect((await ask(throwing, "a.example.com", {})).error).toBeInstanceOf(Error);
  });
});

describe("createGuardedFetch", () => {
  const guarded = createGuardedFetch(answers({ "loop.example.com": ["127.0.0.1"] }));
  const port = () => new URL(listener.origin).port;

  it("refuses an IP host before any socket (a socket never asks its lookup about an IP), in either URL form", async () => {
    for (const url of [`http://127.0.0.1:${port()}/x`, `http://[::1]:${port()}/x`, `http://[::ffff:7f00:1]:${port()}/x`]) {
      const refused = guarded(url).catch((error: unknown) => error);
      expect(await refused, url).toBeInstanceOf(ToolsError);
      expect(((await refused) as ToolsError).code).toBe("upstream_unreachable");
      expect(((await refused) as ToolsError).message).toMatch(/is a non-public address \(/);
    }
    const asRequest = await guarded(new Request(`http://127.0.0.1:${port()}/x`)).catch((error: unknown) => error);
    expect(asRequest).toBeInstanceOf(ToolsError);
    expect(listener.connections()).toBe(0);
  });

  it("refuses a name that resolves to loopback at the socket, saying why but not the address", async () => {
    const error = (await guarded(`http://loop.example.com:${port()}/x`).catch((e: unknown) => e)) as ToolsError;
    expect(error).toBeInstanceOf(ToolsError);
    expect(error.message).toBe(
      "The connection's origin loop.example.com resolves to a non-public address (loopback); tools-proxy connects an origin a " +
        "connection names only to public addresses. Point the connection at a public host, or ask the deployer to set allowPrivateNetworks.",
    );
    expect(listener.connections()).toBe(0);
  });

  it("lets any other error through as it is", async () => {
    const error = await guarded("http://8.8.8.8/", { method: "GET", body: "x" }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TypeError);
    expect(error).not.toBeInstanceOf(ToolsError);
  });
});

describe("systemLookup", () => {
  it("gives every address of a name, as { address, family }", async () => {
    const found = await systemLookup("localhost");
    expect(found.length).toBeGreaterThan(0);
    expect(found.every(({ address, family }) => typeof address === "string" && (family === 4 || family === 6))).toBe(true);
  });
});
