import { expect } from "vitest";
import { createCredentialCipher } from "../../src/credentials/cipher.js";
import { sealCredential } from "../../src/credentials/sealing.js";
import {
  type ConnectionRecord,
  type Credential,
  createToolsHandler,
  issueApiKey,
  type Logger,
  memoryBlobStore,
  memoryStore,
  type Toolkit,
  type ToolsEvents,
  type ToolsHandler,
  type ToolsHandlerOptions,
  type ToolsStore,
} from "../../src/index.js";
import { bufferedFormRequest } from "./form-body.js";
import { type Origins, testToolkits } from "./toolkits.js";
import { foreignRoute, startServer, type TestServer, upstreamRoute } from "./upstream.js";

/** Every secret value a test uses gets this random suffix, so a leak cannot be a coincidence. */
const RUN = Math.random().toString(36).slice(2, 10);

/** Credential values the tests connect with. Every one of them is in `harness.secrets()`. */
export const CREDENTIALS = {
  headerKey: `hdr-key-${RUN}-aaaa`,
  queryKey: `qry-key-${RUN}-bbbb`,
  bearerToken: `brr-tok-${RUN}-cccc`,
  bearerToken2: `brr-tok-${RUN}-dddd`,
  basicUser: "alice",
  basicPassword: `bsc-pwd-${RUN}-eeee`,
  itemsKey: `itm-key-${RUN}-ffff`,
  oauthAccessToken: `oat-tok-${RUN}-gggg`,
};

/** The handler secret of every harness (>= 32 bytes). */
export const TEST_SECRET = `test-secret-${RUN}-0123456789abcdef0123456789`;

export const BASE = "http://tools.test";

export interface LogLine {
  level: string;
  message: string;
  fields: Record<string, unknown> | undefined;
}

export interface RecordedResponse {
  method: string;
  path: string;
  status: number;
  headers: Record<string, string>;
  text: string;
}

export interface CallOptions {
  /** The API key; sent as `x-api-key` unless `bearer` is set. */
  key?: string;
  bearer?: boolean;
  /** JSON-encoded with `Content-Type: application/json`. */
  body?: unknown;
  /** Sent as is (multipart, malformed JSON, ...). */
  rawBody?: BodyInit;
  headers?: Record<string, string>;
  /** The `x-agent-id` header, for service keys. */
  agentId?: string;
}

export interface CallResult {
  status: number;
  headers: Headers;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  json: any;
  text: string;
  bytes: Uint8Array;
}

export interface HarnessOptions extends Omit<ToolsHandlerOptions, "toolkits"> {
  /** Toolkits added after the standard test toolkits. */
  extraToolkits?: (origins: Origins) => Toolkit[];
}

export type Harness = Awaited<ReturnType<typeof createHarness>>;

/**
 * A handler over in-memory stores with the test toolkits, a recording upstream, a foreign server
 * that must never be reached, and recorders for responses, log lines and hook events.
 */
export async function createHarness(options: HarnessOptions = {}) {
  const upstream: TestServer = await startServer(upstreamRoute);
  const foreign: TestServer = await startServer(foreignRoute);
  const origins = { upstream: upstream.origin, foreign: foreign.origin };
  const logs: LogLine[] = [];
  const events: Array<{ event: keyof ToolsEvents; payload: unknown }> = [];
  const responses: RecordedResponse[] = [];
  const secrets = new Set<string>([
    TEST_SECRET,
    ...Object.entries(CREDENTIALS)
      .filter(([k]) => k !== "basicUser")
      .map(([, v]) => v),
  ]);
  secrets.add(Buffer.from(`${CREDENTIALS.basicUser}:${CREDENTIALS.basicPassword}`).toString("base64"));

  const record = (level: string) => (message: string, fields?: Record<string, unknown>) => void logs.push({ level, message, fields });
  const logger: Logger = { debug: record("debug"), info: record("info"), warn: record("warn"), error: record("error") };
  const hook = (event: keyof ToolsEvents) => (payload: unknown) => void events.push({ event, payload });
  const { extraToolkits, ...handlerOptions } = options;
  const store: ToolsStore = handlerOptions.store ?? memoryStore();
  const handler: ToolsHandler = createToolsHandler({
    store,
    blobStore: memoryBlobStore(),
    secret: TEST_SECRET,
    logger,
    hooks: {
      "connection.created": hook("connection.created"),
      "connection.deleted": hook("connection.deleted"),
      "tool.executed": hook("tool.executed"),
      "proxy.requested": hook("proxy.requested"),
      "file.staged": hook("file.staged"),
    },
    ...handlerOptions,
    toolkits: [...testToolkits(origins), ...(extraToolkits?.(origins) ?? [])],
  });
  const basePath = handler.basePath;
  // The handler keeps its cipher to itself; the same secret makes the same keys, for rows written here.
  const cipher = createCredentialCipher(handlerOptions.secret ?? TEST_SECRET);

  async function send(request: Request): Promise<CallResult> {
    const response = await handler(request);
    const bytes = new Uint8Array(await response.arrayBuffer());
    const text = new TextDecoder().decode(bytes);
    const url = new URL(request.url);
    responses.push({
      method: request.method,
      path: url.pathname + url.search,
      status: response.status,
      headers: Object.fromEntries(response.headers),
      text,
    });
    let json: unknown;
    try {
      json = text ? JSON.parse(text) : undefined;
    } catch {
      json = undefined;
    }
    return { status: response.status, headers: response.headers, json, text, bytes };
  }

  async function call(method: string, path: string, opts: CallOptions = {}): Promise<CallResult> {
    const headers = new Headers(opts.headers);
    if (opts.key !== undefined) {
      if (opts.bearer) headers.set("authorization", `Bearer ${opts.key}`);
      else headers.set("x-api-key", opts.key);
    }
    if (opts.agentId !== undefined) headers.set("x-agent-id", opts.agentId);
    let body: BodyInit | undefined = opts.rawBody;
    if (opts.body !== undefined) {
      body = JSON.stringify(opts.body);
      if (!headers.has("content-type")) headers.set("content-type", "application/json");
      collectCredentials(opts.body);
    }
    const url = path.startsWith("http") ? path : `${BASE}${basePath}${path}`;
    if (body instanceof FormData) return send(await bufferedFormRequest(url, body, headers, method));
    return send(new Request(url, { method, headers, body }));
  }

  function collectCredentials(body: unknown): void {
    const credentials = (body as { credentials?: unknown } | null)?.credentials;
    if (!credentials || typeof credentials !== "object") return;
    for (const [name, value] of Object.entries(credentials))
      if (name !== "username" && typeof value === "string" && value.length >= 6) secrets.add(value);
  }

  async function issueAgentKey(agentId: string, workspaceId = "ws1") {
    const issued = await issueApiKey(store, { workspaceId, agentId });
    secrets.add(issued.key);
    return { key: issued.key, id: issued.record.id };
  }

  async function issueServiceKey(workspaceId = "ws1") {
    const issued = await issueApiKey(store, { kind: "service", workspaceId });
    secrets.add(issued.key);
    return { key: issued.key, id: issued.record.id };
  }

  /** Connects `toolkit` through POST /auth and returns the public connection. */
  async function connect(key: string, toolkit: string, credentials: Record<string, string>, extra: Record<string, unknown> = {}) {
    const res = await call("POST", "/auth", { key, body: { toolkit, credentials, ...extra } });
    expect(res.status, res.text).toBe(201);
    return res.json.connection as { id: string; label: string; toolkit: string; status: string };
  }

  /** Writes a connection straight into the store (for scopes, statuses and OAuth tokens). */
  async function insertConnection(input: {
    workspaceId?: string;
    agentId: string;
    toolkit: string;
    credential: Credential;
    scopes?: string[];
    status?: ConnectionRecord["status"];
    label?: string;
    /** The connection's values for the toolkit's URL placeholders (inputs, or what its token answer held). */
    params?: Record<string, string>;
  }) {
    const id = `conn_test_${Math.random().toString(36).slice(2, 12)}`;
    const now = new Date();
    await store.createConnection({
      id,
      workspaceId: input.workspaceId ?? "ws1",
      agentId: input.agentId,
      toolkit: input.toolkit,
      label: input.label ?? `${input.toolkit} (inserted)`,
      remoteUser: "",
      status: input.status ?? "active",
      statusReason: null,
      credentials: await sealCredential({ cipher }, id, input.credential),
      scopes: input.scopes ?? [],
      params: input.params ?? {},
      credentialsExpireAt: null,
      createdAt: now,
      updatedAt: now,
      version: 1,
    });
    return id;
  }

  /** Every place a secret could escape: bodies and headers of responses, log lines, hook events. */
  function outputs(): Array<{ where: string; text: string }> {
    return [
      ...responses.map((r) => ({ where: `response ${r.method} ${r.path} ${r.status}`, text: `${JSON.stringify(r.headers)}\n${r.text}` })),
      ...logs.map((l) => ({ where: `log ${l.level} "${l.message}"`, text: `${l.message} ${JSON.stringify(l.fields ?? {})}` })),
      ...events.map((e) => ({ where: `event ${e.event}`, text: JSON.stringify(e.payload) })),
    ];
  }

  function assertNoLeaks(): void {
    const leaks: string[] = [];
    for (const output of outputs()) {
      for (const secret of secrets)
        if (output.text.includes(secret)) leaks.push(`${output.where} contains a secret ${secret.slice(0, 6)}…`);
    }
    if (leaks.length) throw new Error(`Secrets leaked:\n${leaks.join("\n")}`);
  }

  return {
    handler,
    store,
    basePath,
    upstream,
    foreign,
    origins,
    logs,
    events,
    responses,
    call,
    send,
    issueAgentKey,
    issueServiceKey,
    connect,
    insertConnection,
    secrets: () => [...secrets],
    /** Adds a value that must never appear in any output. */
    addSecret: (value: string) => void secrets.add(value),
    assertNoLeaks,
    async close() {
      await Promise.all([upstream.close(), foreign.close()]);
    },
  };
}

/** Asserts the exact shape of an error answer: `{ error, code }` and nothing else; a string `message` is the whole sentence. */
export function expectError(res: CallResult, status: number, code: string, message?: RegExp | string): void {
  expect(res.status, res.text).toBe(status);
  expect(res.headers.get("content-type")).toMatch(/^application\/json/);
  expect(Object.keys(res.json).sort()).toEqual(["code", "error"]);
  expect(res.json.code).toBe(code);
  expect(typeof res.json.error).toBe("string");
  expect(res.json.error.length).toBeGreaterThan(10);
  if (typeof message === "string") expect(res.json.error).toBe(message);
  else if (message) expect(res.json.error).toMatch(message);
}

/** A multipart body with one part named `name`. */
export function multipart(content: BlobPart, type: string, filename = "file.txt", name = "file"): FormData {
  const form = new FormData();
  form.append(name, new Blob([content], { type }), filename);
  return form;
}
