/**
 * Upstream answers read whole (createUndiciFetch's, src/core/whole-bodies.ts) on their way into a
 * result: the size limit, JSON and text from the bytes, a binary answer staged byte for byte (its
 * secrets masked).
 */
import { describe, expect, it } from "vitest";
import { memoryBlobStore } from "../../src/blob/memory.js";
import type { HandlerContext } from "../../src/context/context.js";
import { secretForms } from "../../src/core/redact.js";
import { wholeResponse } from "../../src/core/whole-bodies.js";
import { capResponseBody, readUpstreamData } from "../../src/execution/upstream-result.js";
import { BodyTooLargeError } from "../../src/util/bytes.js";

const agent = { kind: "agent", keyId: "key_1", workspaceId: "ws", agentId: "agent" } as const;
const signal = new AbortController().signal;
const context = (maxResponseBytes: number) =>
  ({ maxResponseBytes, blobStore: memoryBlobStore(), uploads: { ttlMs: 60_000 } }) as unknown as HandlerContext;
const answer = (body: string | Uint8Array, headers: Record<string, string>) =>
  wholeResponse(typeof body === "string" ? new TextEncoder().encode(body) : body, { status: 200, headers });

describe("an upstream answer read whole", () => {
  it("is data from its bytes: JSON parsed, text as text", async () => {
    const ctx = context(100);
    expect(await readUpstreamData(ctx, agent, answer('{"a":1}', { "content-type": "application/json" }), [], signal)).toEqual({ a: 1 });
    expect(await readUpstreamData(ctx, agent, answer("plain", { "content-type": "text/plain" }), [], signal)).toBe("plain");
    expect(await readUpstreamData(ctx, agent, answer("", { "content-type": "application/json" }), [], signal)).toBeNull();
  });

  it("over the limit is too large, whatever length it declares", async () => {
    const ctx = context(4);
    const undeclared = answer("12345", { "content-type": "text/plain" });
    await expect(readUpstreamData(ctx, agent, undeclared, [], signal)).rejects.toBeInstanceOf(BodyTooLargeError);
    const overDeclared = answer("123", { "content-type": "text/plain", "content-length": "100" });
    await expect(readUpstreamData(ctx, agent, overDeclared, [], signal)).rejects.toBeInstanceOf(BodyTooLargeError);
    expect(await readUpstreamData(ctx, agent, answer("1234", { "content-type": "text/plain" }), [], signal)).toBe("1234");
  });

  it("that is binary is staged byte for byte", async () => {
    const ctx = context(100);
    const bytes = Uint8Array.from([0, 1, 2, 255, 254]);
    const staged = (await readUpstreamData(ctx, agent, answer(bytes, { "content-type": "application/octet-stream" }), [], signal)) as {
      stagingKey: string;
      size: number;
    };
    expect(staged.size).toBe(5);
    const blob = await ctx.blobStore.get(staged.stagingKey);
    expect(new Uint8Array(await new Response(blob!.body).arrayBuffer())).toEqual(bytes);
  });

  it("that is binary or mislabelled text has the call's secrets masked before it is staged", async () => {
    const ctx = { ...context(1000), logger: { log: () => {} } } as unknown as HandlerContext;
    const secret = "tok-whole-0123456789";
    const read = async (bytes: Uint8Array, type: string) => {
      const staged = (await readUpstreamData(ctx, agent, answer(bytes, { "content-type": type }), secretForms([secret]), signal)) as {
        stagingKey: string;
      };
      return new Uint8Array(await new Response((await ctx.blobStore.get(staged.stagingKey))!.body).arrayBuffer());
    };
    const binary = Uint8Array.from([0, 1, ...new TextEncoder().encode(secret), 2]);
    expect(await read(binary, "image/png")).toEqual(Uint8Array.from([0, 1, ...new TextEncoder().encode("*".repeat(secret.length)), 2]));
    const text = new TextEncoder().encode(`{"echo":"${secret}"}`);
    expect(new TextDecoder().decode(await read(text, "application/octet-stream"))).toBe('{"echo":"[redacted]"}');
  });

  it("within a tool's limit is handed to the tool as it is, and over it is capped", async () => {
    const within = answer("1234", { "content-type": "text/plain" });
    expect(capResponseBody(within, 4)).toBe(within);
    const over = answer("12345", { "content-type": "text/plain" });
    const capped = capResponseBody(over, 4);
    expect(capped).not.toBe(over);
    await expect(capped.text()).rejects.toThrow(/larger than 4 bytes/);
  });

  it("a streamed answer declaring more than a tool's limit fails at once, and its upstream body is cancelled", async () => {
    let cancelled = false;
    const source = new ReadableStream<Uint8Array>({ cancel: () => void (cancelled = true) });
    const capped = capResponseBody(new Response(source, { headers: { "content-length": "100" } }), 4);
    await expect(capped.text()).rejects.toThrow(/larger than 4 bytes/);
    expect(cancelled, "the connection is freed rather than left to fill").toBe(true);
  });
});
