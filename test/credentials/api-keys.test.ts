/**
 * API keys as a caller and an embedding app meet them: what issueApiKey hands out and stores, which
 * headers carry a key, and which keys a request is refused with, through the handler and through
 * the exported authenticate.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  type ApiKeyRecord,
  authenticate,
  createToolsHandler,
  issueApiKey,
  memoryStore,
  readApiKey,
  type ToolsHandler,
  type ToolsStore,
} from "../../src/index.js";
import { sha256Hex } from "../../src/util/encoding.js";

const SECRET = "api-keys-test-secret-0123456789abcdefghijklmnop";

let store: ToolsStore;
let tools: ToolsHandler;
let agentKey: string;
let serviceKey: string;

beforeAll(async () => {
  store = memoryStore();
  tools = createToolsHandler({ store, secret: SECRET, toolkits: [] });
  agentKey = (await issueApiKey(store, { workspaceId: "ws-keys", agentId: "agent-keys" })).key;
  serviceKey = (await issueApiKey(store, { kind: "service", workspaceId: "ws-keys" })).key;
});
afterAll(() => tools.close());

async function get(headers: Record<string, string> | Headers): Promise<{ status: number; body: { code?: string; error?: string } }> {
  const response = await tools(new Request(`http://keys.test${tools.basePath}/connections`, { headers }));
  return { status: response.status, body: await response.json() };
}

async function refusal(promise: Promise<unknown>): Promise<{ code: string; message: string }> {
  const error = (await promise.then(
    () => {
      throw new Error("expected a refusal");
    },
    (e: unknown) => e,
  )) as { code: string; message: string };
  return { code: error.code, message: error.message };
}

const INVALID = "Invalid API key. Check that the key is complete and has not been revoked.";

describe("issueApiKey", () => {
  it("gives an agent key pak_ and 256 random bits, stores only its hash and a short hint", async () => {
    const { key, record } = await issueApiKey(store, { workspaceId: "ws-keys", agentId: "agent-1" });
    expect(key).toMatch(/^pak_[A-Za-z0-9_-]{43}$/);
    expect(record).toMatchObject({ kind: "agent", workspaceId: "ws-keys", agentId: "agent-1", revokedAt: null });
    expect(record.id).toMatch(/^key_[A-Za-z0-9_-]{22}$/);
    expect(record.hash).toBe(await sha256Hex(key));
    expect(record.hint).toBe(`pak_…${key.slice(-4)}`);
    expect(JSON.stringify(record)).not.toContain(key.slice(4, -4));
    expect(await store.getApiKeyByHash(record.hash)).toEqual(record);
  });

  it("gives a service key psk_, belonging to no agent even when an agentId is passed along", async () => {
    const options = { kind: "service", workspaceId: "ws-keys", agentId: "agent-1" } as unknown as Parameters<typeof issueApiKey>[1];
    const { key, record } = await issueApiKey(store, options);
    expect(key).toMatch(/^psk_[A-Za-z0-9_-]{43}$/);
    expect(record).toMatchObject({ kind: "service", agentId: null, hint: `psk_…${key.slice(-4)}` });
    expect(await authenticate(store, new Headers({ "x-api-key": key }))).toMatchObject({ kind: "service", agentId: null });
  });

  it("refuses ids that are not 1-128 letters, digits, '_' or '-', naming the option and the value", async () => {
    const cases: Array<[Parameters<typeof issueApiKey>[1], RegExp]> = [
      [{ workspaceId: "ws 1", agentId: "a" }, /^workspaceId must be 1-128 letters, digits, '_' or '-'; got "ws 1"\.$/],
      [{ workspaceId: "!ws", agentId: "a" }, /^workspaceId must be .*; got "!ws"/],
      [{ workspaceId: "", kind: "service" }, /^workspaceId must be .*; got ""/],
      [{ workspaceId: "w".repeat(129), kind: "service" }, /^workspaceId must be/],
      [{ workspaceId: "ws", agentId: "agent one" }, /^agentId must be .*; got "agent one"/],
      [{ workspaceId: "ws", agentId: "agent!" }, /^agentId must be/],
      [{ workspaceId: "ws", agentId: "" }, /^agentId must be .*; got ""/],
      [{ workspaceId: "ws" } as Parameters<typeof issueApiKey>[1], /^agentId must be .*; got ""/],
    ];
    for (const [options, message] of cases) {
      await expect(issueApiKey(store, options), JSON.stringify(options)).rejects.toThrow(message);
    }
    await expect(issueApiKey(store, { workspaceId: "w".repeat(128), agentId: "a".repeat(128) })).resolves.toBeDefined();
  });
});

describe("which headers carry the key", () => {
  it("takes x-api-key, or Authorization: Bearer in any case with spaces or tabs", async () => {
    const sendings: Array<Record<string, string>> = [
      { "x-api-key": agentKey },
      { authorization: `Bearer ${agentKey}` },
      { authorization: `bearer ${agentKey}` },
      { authorization: `BEARER \t ${agentKey}` },
      { authorization: `Bearer   ${agentKey}` },
    ];
    for (const headers of sendings) {
      expect((await get(headers)).status, JSON.stringify(headers)).toBe(200);
    }
  });

  it("takes a key copied with a non-breaking space or a vertical tab around it", async () => {
    expect((await get({ "x-api-key": `\u00a0${agentKey}\u00a0` })).status).toBe(200);
    expect((await get({ authorization: `Bearer ${agentKey}\u00a0` })).status).toBe(200);
    expect(readApiKey(new Headers({ authorization: `\u000bBearer ${agentKey}` }))).toBe(agentKey);
  });

  it("leaves an Authorization that is not one of our keys to the app when x-api-key is there", async () => {
    for (const authorization of [`Bearer session.${agentKey}`, `Bearer xpak_${"a".repeat(43)}`, "Bearer app-session-token"]) {
      expect(readApiKey(new Headers({ "x-api-key": agentKey, authorization })), authorization).toBe(agentKey);
    }
    const twoKeys = await refusal(
      Promise.resolve().then(() => readApiKey(new Headers({ "x-api-key": agentKey, authorization: `Bearer ${serviceKey}` }))),
    );
    expect(twoKeys).toEqual({
      code: "invalid_request",
      message: "Two different API keys were sent, in x-api-key and in Authorization; send one of them.",
    });
  });

  it("refuses another scheme that merely contains the word Bearer", async () => {
    for (const authorization of [`XBearer ${agentKey}`, `Token Bearer ${agentKey}`, `Basic Bearer ${agentKey}`]) {
      const { status, body } = await get({ authorization });
      expect(status, authorization).toBe(401);
      expect(body.error, authorization).toBe(
        "The Authorization header does not carry an API key: send `Authorization: Bearer <key>` or the header `x-api-key: <key>`.",
      );
    }
    expect((await get({ authorization: `Token Bearer ${agentKey} extra` })).body.error).toMatch(/does not carry an API key/);
  });

  it("says what is wrong with a Bearer value that has more after the key, however it is spaced", async () => {
    for (const authorization of [`Bearer ${agentKey} x`, "Bearer ab cd", `Bearer  \t${agentKey}  extra`, "bearer a\tb"]) {
      const { status, body } = await get({ authorization });
      expect(status, authorization).toBe(401);
      expect(body.error, authorization).toBe("The Authorization header must be `Bearer <key>` with nothing after the key.");
    }
  });

  it("refuses a repeated x-api-key with a 400 that says so", async () => {
    const headers = new Headers({ "x-api-key": agentKey });
    headers.append("x-api-key", agentKey);
    expect(await get(headers)).toEqual({
      status: 400,
      body: { code: "invalid_request", error: "The x-api-key header is sent more than once; send one API key." },
    });
  });
});

describe("authenticate", () => {
  it("gives an agent key's principal, whatever x-agent-id says", async () => {
    const issued = await issueApiKey(store, { workspaceId: "ws-keys", agentId: "agent-2" });
    expect(await authenticate(store, new Headers({ "x-api-key": issued.key, "x-agent-id": "agent-3" }))).toEqual({
      workspaceId: "ws-keys",
      agentId: "agent-2",
      keyId: issued.record.id,
      kind: "agent",
    });
  });

  it("lets a service key act for the agent x-agent-id names, if it is a well-formed id", async () => {
    const headers = (agentId: string) => new Headers({ "x-api-key": serviceKey, "x-agent-id": agentId });
    expect(await authenticate(store, headers("agent-9"))).toMatchObject({ kind: "service", agentId: "agent-9", workspaceId: "ws-keys" });
    expect(await authenticate(store, headers("a".repeat(128)))).toMatchObject({ agentId: "a".repeat(128) });
    for (const agentId of ["agent 9", "!agent", "agent!", "a".repeat(129), "agent/../9"]) {
      expect(await refusal(authenticate(store, headers(agentId))), agentId).toEqual({
        code: "invalid_request",
        message: "The x-agent-id header must be an agent id of letters, digits, '_' or '-' (at most 128).",
      });
    }
  });

  it("asks for a key when none is sent", async () => {
    expect(await refusal(authenticate(store, new Headers()))).toEqual({
      code: "unauthorized",
      message: "Missing API key. Send it as the header `x-api-key: <key>` or `Authorization: Bearer <key>`.",
    });
  });

  it("refuses anything not shaped like a key before asking the store, even a string the store holds a row for", async () => {
    const lookups: string[] = [];
    const spied: ToolsStore = {
      ...store,
      getApiKeyByHash: (hash) => {
        lookups.push(hash);
        return store.getApiKeyByHash(hash);
      },
    };
    const notKeys = [
      `x${agentKey}`,
      `${agentKey}x`,
      agentKey.slice(0, -1),
      `pak-${agentKey.slice(4)}`,
      `psk_${"a".repeat(42)}!`,
      "legacy-key",
    ];
    for (const [index, notKey] of notKeys.entries()) {
      const record: ApiKeyRecord = {
        id: `key_legacy_${index}`,
        hash: await sha256Hex(notKey),
        kind: "agent",
        workspaceId: "ws-keys",
        agentId: "legacy",
        hint: "",
        createdAt: new Date(),
        revokedAt: null,
      };
      await store.createApiKey(record);
      expect(await refusal(authenticate(spied, new Headers({ "x-api-key": notKey }))), notKey).toEqual({
        code: "unauthorized",
        message: INVALID,
      });
    }
    expect(lookups).toEqual([]);
  });

  it("refuses a key a loosely matching store returns a row for, when the row's hash is not the key's", async () => {
    const { record } = await issueApiKey(store, { workspaceId: "ws-keys", agentId: "agent-4" });
    // A store whose lookup ignores case, or matches on a prefix of the hash.
    const loose: ToolsStore = { ...store, getApiKeyByHash: () => ({ ...record, hash: record.hash.toUpperCase() }) };
    const prefix: ToolsStore = { ...store, getApiKeyByHash: () => record };
    const other = `pak_${"Q".repeat(43)}`;
    expect(await refusal(authenticate(loose, new Headers({ "x-api-key": other })))).toEqual({ code: "unauthorized", message: INVALID });
    expect(await refusal(authenticate(prefix, new Headers({ "x-api-key": other })))).toEqual({ code: "unauthorized", message: INVALID });
  });
});
