/**
 * The typed client never puts the API key (or another header's value) into an error, even when
 * the key cannot be sent: a key pasted with a line break or a stray non-ASCII character made
 * fetch's Headers throw `Headers.set: "Bearer pak_..." is an invalid header value`, which the CLI
 * printed in full as an "unexpected failure".
 */
import { describe, expect, it } from "vitest";
import { createToolsClient } from "../../src/client/index.js";

const SECRET = "pak_TopSecretKeyMaterial0123456789";

/** Everything an error shows: message, string form, stack and causes. */
function everything(error: unknown): string {
  const parts: string[] = [];
  for (let e = error, depth = 0; e && depth < 5; e = (e as { cause?: unknown }).cause, depth++) {
    parts.push(String(e), (e as Error).message ?? "", (e as Error).stack ?? "", JSON.stringify(e));
  }
  return parts.join("\n");
}

/** The error of making a client and calling it, with a fetch that must never be reached. */
async function failure(options: Partial<Parameters<typeof createToolsClient>[0]>): Promise<unknown> {
  try {
    const client = createToolsClient({
      baseUrl: "http://127.0.0.1:9/proxy/tools",
      apiKey: SECRET,
      fetch: () => Promise.reject(new Error("fetch was called")),
      ...options,
    });
    await client.search();
  } catch (error) {
    return error;
  }
  throw new Error("no failure");
}

describe("client errors never carry a header's value", () => {
  const badKeys = [
    `${SECRET.slice(0, 12)}\n${SECRET.slice(12)}`,
    `${SECRET.slice(0, 20)}\r${SECRET.slice(20)}`,
    `${SECRET.slice(0, 12)}\u0000${SECRET.slice(12)}`,
    `${SECRET}…`,
  ];

  for (const [index, apiKey] of badKeys.entries()) {
    it(`refuses bad key ${index + 1} (a line break, CR, NUL or non-ASCII inside) with a TypeError naming the option, not the key`, async () => {
      const error = await failure({ apiKey });
      expect(error).toBeInstanceOf(TypeError);
      expect((error as Error).message).toMatch(/option "apiKey"/);
      const shown = everything(error);
      expect(shown).not.toContain(SECRET.slice(12, 30));
      expect(shown).not.toContain("fetch was called");
    });
  }

  it("refuses an agent id or an extra header that cannot be sent, naming it but not its value", async () => {
    const agent = await failure({ agentId: `agent\n${SECRET}` });
    expect((agent as Error).message).toMatch(/option "agentId"/);
    expect(everything(agent)).not.toContain(SECRET);

    const header = await failure({ headers: { "x-upstream-token": `${SECRET}\nsecond-line` } });
    expect((header as Error).message).toMatch(/x-upstream-token/);
    expect(everything(header)).not.toContain(SECRET);
  });

  it("still sends a good key, trimmed, as a bearer token", async () => {
    let sent: string | null = null;
    const client = createToolsClient({
      baseUrl: "http://127.0.0.1:9/proxy/tools",
      apiKey: ` ${SECRET}\n`,
      fetch: async (_input, init) => {
        sent = new Headers(init?.headers).get("authorization");
        return Response.json({ toolkits: [], nextCursor: null });
      },
    });
    await client.search();
    expect(sent).toBe(`Bearer ${SECRET}`);
  });
});
