import { describe, expect, it } from "vitest";
import type { ToolsEvents } from "../../src/context/context.js";
import { issueApiKey } from "../../src/credentials/api-keys.js";
import { createToolsHandler } from "../../src/handler.js";
import { attachment } from "../../src/routes/files.js";
import { memoryStore } from "../../src/store/memory.js";
import { bufferedFormRequest } from "../support/form-body.js";

const BASE = "http://localhost/proxy/tools";

async function setup(uploads?: { maxBytes?: number; ttlMs?: number; allowedContentTypes?: string[] }) {
  const store = memoryStore();
  const staged: Array<ToolsEvents["file.staged"]> = [];
  const tools = createToolsHandler({
    store,
    secret: "x".repeat(32),
    uploads,
    hooks: { "file.staged": (event) => void staged.push(event) },
  });
  const agentA = (await issueApiKey(store, { workspaceId: "ws1", agentId: "agent-a" })).key;
  const agentB = (await issueApiKey(store, { workspaceId: "ws1", agentId: "agent-b" })).key;
  const otherWorkspaceA = (await issueApiKey(store, { workspaceId: "ws2", agentId: "agent-a" })).key;
  const service = (await issueApiKey(store, { kind: "service", workspaceId: "ws1" })).key;
  return { tools, staged, agentA, agentB, otherWorkspaceA, service };
}

async function upload(key: string | null, file: Blob | null, filename = "hello.txt", extra: Record<string, string> = {}): Promise<Request> {
  const form = new FormData();
  form.append("note", "a field before the file");
  if (file) form.append("file", file, filename);
  const headers: Record<string, string> = { ...extra };
  if (key) headers["x-api-key"] = key;
  return bufferedFormRequest(`${BASE}/upload`, form, headers);
}

function download(key: string, stagingKey: string, extra: Record<string, string> = {}): Request {
  return new Request(`${BASE}/files/${encodeURIComponent(stagingKey)}`, { headers: { "x-api-key": key, ...extra } });
}

describe("POST /upload and GET /files/:stagingKey", () => {
  it("stages a file and streams it back to the agent that owns it", async () => {
    const { tools, staged, agentA } = await setup();
    const bytes = new TextEncoder().encode("hello, staged world");
    const response = await tools(await upload(agentA, new Blob([bytes], { type: "text/plain" })));
    expect(response.status).toBe(200);
    const body = (await response.json()) as { stagingKey: string; contentType: string; size: number; expiresAt: string };
    expect(body).toMatchObject({ contentType: "text/plain", size: bytes.byteLength });
    expect(body.stagingKey).toMatch(/^stg_[A-Za-z0-9_-]{43}$/);
    expect(new Date(body.expiresAt).toISOString()).toBe(body.expiresAt);
    expect(new Date(body.expiresAt).getTime()).toBeGreaterThan(Date.now() + 59 * 60 * 1000);
    await Promise.resolve();
    expect(staged).toEqual([
      {
        principal: expect.objectContaining({ workspaceId: "ws1", agentId: "agent-a" }),
        stagingKey: body.stagingKey,
        size: bytes.byteLength,
        contentType: "text/plain",
      },
    ]);

    const file = await tools(download(agentA, body.stagingKey));
    expect(file.status).toBe(200);
    expect(file.headers.get("content-type")).toBe("text/plain");
    expect(file.headers.get("content-length")).toBe(String(bytes.byteLength));
    expect(file.headers.get("content-disposition")).toBe(`attachment; filename="hello.txt"; filename*=UTF-8''hello.txt`);
    expect(file.headers.get("x-content-type-options")).toBe("nosniff");
    expect(new Uint8Array(await file.arrayBuffer())).toEqual(bytes);
  });

  it("answers 404 to another agent, another workspace, an unknown and a malformed key", async () => {
    const { tools, agentA, agentB, otherWorkspaceA } = await setup();
    const { stagingKey } = (await (await tools(await upload(agentA, new Blob(["secret"], { type: "text/plain" })))).json()) as {
      stagingKey: string;
    };
    for (const [key, staging] of [
      [agentB, stagingKey],
      [otherWorkspaceA, stagingKey],
      [agentA, `stg_${"A".repeat(43)}`],
      [agentA, "../../etc/passwd"],
    ] as const) {
      const response = await tools(download(key, staging));
      expect(response.status).toBe(404);
      expect(await response.json()).toMatchObject({ code: "not_found" });
    }
    expect((await tools(download(agentA, stagingKey))).status).toBe(200);
  });

  it("lets a service key act for the agent named in x-agent-id, and asks for it otherwise", async () => {
    const { tools, agentA, service } = await setup();
    const { stagingKey } = (await (await tools(await upload(agentA, new Blob(["x"], { type: "text/plain" })))).json()) as {
      stagingKey: string;
    };
    expect((await tools(download(service, stagingKey, { "x-agent-id": "agent-a" }))).status).toBe(200);
    expect((await tools(download(service, stagingKey, { "x-agent-id": "agent-b" }))).status).toBe(404);
    for (const response of [
      await tools(download(service, stagingKey)),
      await tools(await upload(service, new Blob(["x"], { type: "text/plain" }))),
    ]) {
      expect(response.status).toBe(400);
      expect(((await response.json()) as { error: string }).error).toContain("x-agent-id");
    }
  });

  it("answers 404 once the staged file has expired", async () => {
    const { tools, agentA } = await setup({ ttlMs: 50 });
    const { stagingKey } = (await (await tools(await upload(agentA, new Blob(["x"], { type: "text/plain" })))).json()) as {
      stagingKey: string;
    };
    await new Promise((resolve) => setTimeout(resolve, 80));
    expect((await tools(download(agentA, stagingKey))).status).toBe(404);
  });

  it("answers 401, 400, 413 and 415 with JSON errors", async () => {
    const { tools, agentA } = await setup({ maxBytes: 1000, allowedContentTypes: ["text/plain"] });
    const cases: Array<[Request, number, string]> = [
      [await upload(null, new Blob(["x"], { type: "text/plain" })), 401, "unauthorized"],
      [await upload(agentA, null), 400, "invalid_request"],
      [
        new Request(`${BASE}/upload`, { method: "POST", body: "{}", headers: { "x-api-key": agentA, "content-type": "application/json" } }),
        400,
        "invalid_request",
      ],
      [await upload(agentA, new Blob([new Uint8Array(1001)], { type: "text/plain" })), 413, "payload_too_large"],
      [await upload(agentA, new Blob(["<html>"], { type: "text/html" }), "page.html"), 415, "unsupported_media_type"],
    ];
    for (const [request, status, code] of cases) {
      const response = await tools(request);
      expect(response.status).toBe(status);
      expect(await response.json()).toMatchObject({ code });
    }
  });

  it("describes both routes in the OpenAPI document", async () => {
    const { tools } = await setup();
    const doc = (await (await tools(new Request(`${BASE}/openapi.json`))).json()) as { paths: Record<string, Record<string, any>> };
    const uploadOp = doc.paths["/proxy/tools/upload"]!.post;
    expect(Object.keys(uploadOp.requestBody.content)).toEqual(["multipart/form-data"]);
    expect(Object.keys(uploadOp.responses)).toEqual(expect.arrayContaining(["200", "400", "401", "413", "415"]));
    expect(doc.paths["/proxy/tools/files/{stagingKey}"]!.get.responses["404"]).toBeDefined();
  });
});

describe("attachment", () => {
  it("quotes an ASCII fallback and carries the exact name as filename*", () => {
    expect(attachment('résumé "final"\r\n.pdf')).toBe(
      `attachment; filename="r_sum_ _final___.pdf"; filename*=UTF-8''r%C3%A9sum%C3%A9%20%22final%22%0D%0A.pdf`,
    );
  });
});
