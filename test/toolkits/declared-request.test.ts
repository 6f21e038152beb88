/**
 * A JSON toolkit whose tools declare their request (`request`, as an OpenAPI import writes it),
 * run end to end: POST /execute on a real handler, through the outbound path, to a node:http
 * upstream that records each raw request. Checks where every parameter lands, the form and
 * multipart bodies (the multipart parsed by multipasta, a staged file's bytes compared), a staged
 * file streamed as an octet-stream body, and a binary answer staged and read back by GET /files.
 */
import { createServer, type IncomingHttpHeaders } from "node:http";
import type { AddressInfo } from "node:net";
import { make as makeParser, type PartInfo } from "multipasta";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { defineJsonToolkit } from "../../src/toolkits/json.js";
import { CREDENTIALS, createHarness, type Harness, multipart } from "../support/harness.js";

interface RawRequest {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  body: Buffer;
}

const PDF = Buffer.from("%PDF-1.7\n\x00\xff\x10\x80 binary \r\n--not-a-boundary\r\n%%EOF\n", "latin1");
const PNG = Uint8Array.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0xff, 0x10, 0x80, 0x0d, 0x0a, 0x2d, 0x2d]);

let upstream: { origin: string; requests: RawRequest[]; close: () => Promise<void> };
let h: Harness;
let key: string;

async function startUpstream() {
  const requests: RawRequest[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      requests.push({ method: req.method!, url: req.url!, headers: req.headers, body: Buffer.concat(chunks) });
      if (req.url!.startsWith("/api/reports/")) {
        res.writeHead(200, { "content-type": "application/pdf", "content-disposition": `attachment; filename="q3 report.pdf"` });
        return res.end(PDF);
      }
      if (req.url!.startsWith("/api/notes")) {
        res.writeHead(200, { "content-type": "text/markdown; charset=utf-8" });
        return res.end("# Notes\n");
      }
      if (req.url!.startsWith("/api/missing")) {
        res.writeHead(404, { "content-type": "application/json" });
        return res.end(JSON.stringify({ message: "no such pet" }));
      }
      res.writeHead(200, { "content-type": "application/json", etag: '"v1"', "set-cookie": "upstream=1" });
      res.end(req.method === "HEAD" ? undefined : JSON.stringify({ ok: true }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    requests,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

const text = { type: "string" };
const file = { type: "string", format: "tools-proxy-staging-key" };

function petstore(origin: string) {
  return defineJsonToolkit({
    slug: "petstore",
    name: "Petstore",
    description: "Pets, as an OpenAPI import writes them.",
    baseUrl: `${origin}/api`,
    auth: { type: "apiKey", in: "header", name: "X-Pet-Key" },
    tools: [
      {
        slug: "PETSTORE_FIND",
        name: "Find pets",
        description: "Parameters in every place and style.",
        method: "GET",
        path: "/pets/{petId}/{coords}",
        inputParameters: {
          type: "object",
          properties: {
            petId: text,
            coords: { type: "array", items: { type: "number" } },
            tags: { type: "array", items: text },
            status: { type: "array", items: text },
            filter: { type: "object" },
            redirect: text,
            "header_X-Request-Id": text,
            "header_X-Trace": { type: "array", items: text },
            session: text,
            prefs: { type: "object" },
            header_credential: text,
            header_host: text,
            unused: text,
          },
          required: ["petId", "coords"],
        },
        request: {
          parameters: [
            { in: "path", name: "petId", arg: "petId" },
            { in: "path", name: "coords", style: "matrix", explode: true },
            { in: "query", name: "tags", style: "form", explode: false },
            { in: "query", name: "status", style: "pipeDelimited" },
            { in: "query", name: "filter", style: "deepObject", explode: true },
            { in: "query", name: "redirect", allowReserved: true },
            { in: "header", name: "X-Request-Id", arg: "header_X-Request-Id" },
            { in: "header", name: "X-Trace", arg: "header_X-Trace" },
            { in: "header", name: "X-Pet-Key", arg: "header_credential" },
            { in: "header", name: "Host", arg: "header_host" },
            { in: "cookie", name: "session" },
            { in: "cookie", name: "prefs", explode: true },
          ],
        },
      },
      {
        slug: "PETSTORE_UPDATE_FORM",
        name: "Update with a form",
        description: "A form-urlencoded body assembled from fields.",
        method: "POST",
        path: "/pets/{petId}",
        inputParameters: {
          type: "object",
          properties: { petId: text, name: text, tags: { type: "array", items: text }, meta: { type: "object" }, gone: text },
        },
        request: {
          parameters: [{ in: "path", name: "petId" }],
          body: { contentType: "application/x-www-form-urlencoded", fields: { name: "name", tags: "tags", meta: "meta", gone: "gone" } },
        },
      },
      {
        slug: "PETSTORE_UPLOAD",
        name: "Upload photos",
        description: "A multipart body with staged files.",
        method: "POST",
        path: "/pets/{petId}/photos",
        inputParameters: {
          type: "object",
          properties: {
            petId: text,
            body: {
              type: "object",
              properties: { caption: text, photo: file, extra: { type: "array", items: file }, meta: { type: "object" } },
            },
          },
        },
        request: { parameters: [{ in: "path", name: "petId" }], body: { contentType: "multipart/form-data", arg: "body" } },
      },
      {
        slug: "PETSTORE_PUT_RAW",
        name: "Put raw bytes",
        description: "An octet-stream body from a staged file.",
        method: "PUT",
        path: "/pets/raw",
        inputParameters: { type: "object", properties: { content: file } },
        request: { body: { contentType: "application/octet-stream", arg: "content" } },
      },
      {
        slug: "PETSTORE_PATCH_JSON",
        name: "Patch with JSON",
        description: "A +json body from fields; only named arguments are sent.",
        method: "PATCH",
        path: "/pets/{id}",
        inputParameters: { type: "object", properties: { id: text, displayName: text, age: { type: "integer" }, stray: text } },
        request: {
          parameters: [{ in: "path", name: "id" }],
          body: { contentType: "application/merge-patch+json", fields: { name: "displayName", age: "age" } },
        },
      },
      {
        slug: "PETSTORE_REPORT",
        name: "Download a report",
        description: "A binary answer, staged.",
        method: "GET",
        path: "/reports/{id}",
        inputParameters: { type: "object", properties: { id: text } },
        request: { parameters: [{ in: "path", name: "id" }] },
      },
      {
        slug: "PETSTORE_NOTES",
        name: "Read notes",
        description: "A text answer, or the same one forced to a file.",
        method: "GET",
        path: "/notes",
        inputParameters: { type: "object", properties: { asFile: { type: "boolean" } } },
        request: { response: "auto" },
      },
      {
        slug: "PETSTORE_NOTES_FILE",
        name: "Read notes as a file",
        description: "A text answer forced to a file.",
        method: "GET",
        path: "/notes",
        request: { response: "file" },
      },
      {
        slug: "PETSTORE_HEAD",
        name: "Check a pet",
        description: "HEAD answers with its status and headers.",
        method: "HEAD",
        path: "/pets/{id}",
        inputParameters: { type: "object", properties: { id: text } },
        request: { parameters: [{ in: "path", name: "id" }] },
      },
      {
        slug: "PETSTORE_OPTIONS",
        name: "Ask for options",
        description: "OPTIONS.",
        method: "OPTIONS",
        path: "/pets",
        request: {},
      },
      {
        slug: "PETSTORE_MISSING",
        name: "Missing",
        description: "A 404 upstream.",
        method: "GET",
        path: "/missing",
        request: {},
      },
    ],
  });
}

beforeAll(async () => {
  upstream = await startUpstream();
  h = await createHarness({ extraToolkits: () => [petstore(upstream.origin)] });
  key = (await h.issueAgentKey("agent-pets")).key;
  await h.connect(key, "petstore", { apiKey: CREDENTIALS.headerKey });
});
afterAll(async () => {
  await upstream.close();
  await h.upstream.close();
  await h.foreign.close();
});
afterEach(() => {
  upstream.requests.length = 0;
});

async function execute(tool: string, args: Record<string, unknown> = {}) {
  const res = await h.call("POST", "/execute", { key, body: { tool, arguments: args } });
  expect(res.status, res.text).toBe(200);
  return res.json as { successful: boolean; data: any; error: string | null; code?: string };
}

async function upload(bytes: Uint8Array, type: string, filename: string): Promise<string> {
  const res = await h.call("POST", "/upload", { key, rawBody: multipart(bytes as BlobPart, type, filename) });
  expect(res.status, res.text).toBe(200);
  return res.json.stagingKey as string;
}

function parseMultipart(request: RawRequest) {
  const parts: Array<{ info: PartInfo; bytes: Buffer }> = [];
  let error: unknown = null;
  let done = false;
  const parser = makeParser({
    headers: { "content-type": request.headers["content-type"]! },
    isFile: (info) => info.filename !== undefined,
    onField: (info, value) => parts.push({ info, bytes: Buffer.from(value) }),
    onFile: (info) => {
      const chunks: Buffer[] = [];
      return (chunk) => {
        if (chunk) chunks.push(Buffer.from(chunk));
        else parts.push({ info, bytes: Buffer.concat(chunks) });
      };
    },
    onError: (e) => {
      error = e;
    },
    onDone: () => {
      done = true;
    },
  });
  parser.write(new Uint8Array(request.body));
  parser.end();
  expect(error).toBeNull();
  expect(done).toBe(true);
  return parts;
}

describe("parameters land where they are declared, in their style", () => {
  it("path, query, header and cookie, with the credential in its own header", async () => {
    const result = await execute("PETSTORE_FIND", {
      petId: "a b:é",
      coords: [1.5, 2],
      tags: ["x,y", "z"],
      status: ["available", "sold"],
      filter: { color: "red", size: { min: 1 } },
      redirect: "/next?page=2",
      "header_X-Request-Id": "req-42",
      "header_X-Trace": ["a", "b"],
      session: "s 1;2",
      prefs: { theme: "dark", lang: "en" },
      unused: "never sent",
    });
    expect(result, result.error ?? "").toMatchObject({ successful: true, data: { ok: true } });
    const [request] = upstream.requests;
    expect(request!.method).toBe("GET");
    expect(request!.url).toBe(
      "/api/pets/a%20b%3A%C3%A9/;coords=1.5;coords=2" +
        "?tags=x%2Cy,z&status=available%7Csold&filter%5Bcolor%5D=red&filter%5Bsize%5D%5Bmin%5D=1&redirect=/next?page%3D2",
    );
    expect(request!.headers["x-request-id"]).toBe("req-42");
    expect(request!.headers["x-trace"]).toBe("a,b");
    expect(request!.headers.cookie).toBe("session=s%201%3B2; theme=dark; lang=en");
    expect(request!.headers["x-pet-key"]).toBe(CREDENTIALS.headerKey);
    expect(request!.headers.accept).toBe("application/json, */*;q=0.8");
    expect(request!.body.byteLength).toBe(0);
    expect(JSON.stringify(request)).not.toContain("never sent");
  });

  it("leaves out optional parameters that are not given, and sends no Cookie header without cookies", async () => {
    expect(await execute("PETSTORE_FIND", { petId: "7", coords: [] })).toMatchObject({ successful: false, code: "invalid_arguments" });
    expect(upstream.requests).toHaveLength(0);
    await execute("PETSTORE_FIND", { petId: "7", coords: [3] });
    expect(upstream.requests[0]!.url).toBe("/api/pets/7/;coords=3");
    expect(upstream.requests[0]!.headers.cookie).toBeUndefined();
  });

  it("refuses a header argument for the credential's header or a forbidden one, and sends nothing", async () => {
    for (const [arg, header] of [
      ["header_credential", "X-Pet-Key"],
      ["header_host", "Host"],
    ]) {
      const result = await execute("PETSTORE_FIND", { petId: "7", coords: [1], [arg!]: "attacker-value" });
      expect(result.successful).toBe(false);
      expect(result.code).toBe("invalid_arguments");
      expect(result.error).toContain(`Argument "${arg}" cannot be sent: the header "${header}" is set by tools-proxy`);
    }
    expect(upstream.requests).toHaveLength(0);
  });

  it("refuses a header value with a line break, and a path value that would climb out of the path", async () => {
    const injected = await execute("PETSTORE_FIND", { petId: "7", coords: [1], "header_X-Request-Id": "a\r\nX-Evil: 1" });
    expect(injected).toMatchObject({ successful: false, code: "invalid_arguments" });
    expect(injected.error).toContain(`Argument "header_X-Request-Id" has a line break`);
    const climbing = await execute("PETSTORE_FIND", { petId: "..", coords: [1] });
    expect(climbing).toMatchObject({ successful: false, code: "invalid_arguments" });
    // An encoded slash passes the serialiser, and the outbound URL policy refuses it.
    const slashed = await execute("PETSTORE_FIND", { petId: "a/b", coords: [1] });
    expect(slashed).toMatchObject({ successful: false, code: "invalid_request" });
    expect(upstream.requests).toHaveLength(0);
  });
});

describe("bodies", () => {
  it("a form-urlencoded body from fields: arrays repeat the key, objects go as JSON text, absent fields are left out", async () => {
    const result = await execute("PETSTORE_UPDATE_FORM", { petId: "9", name: "Rex & co", tags: ["a", "b"], meta: { k: [1] } });
    expect(result.successful).toBe(true);
    const [request] = upstream.requests;
    expect(request!.url).toBe("/api/pets/9");
    expect(request!.headers["content-type"]).toBe("application/x-www-form-urlencoded");
    expect(request!.body.toString()).toBe("name=Rex+%26+co&tags=a&tags=b&meta=%7B%22k%22%3A%5B1%5D%7D");
    expect([...new URLSearchParams(request!.body.toString())]).toEqual([
      ["name", "Rex & co"],
      ["tags", "a"],
      ["tags", "b"],
      ["meta", '{"k":[1]}'],
    ]);
  });

  it("a multipart body: staged files as binary parts with their names and types, repeated for arrays, objects as JSON", async () => {
    const pdf = await upload(PDF, "application/pdf", 'q3 "final".pdf');
    const png = await upload(PNG, "image/png", "a.png");
    const result = await execute("PETSTORE_UPLOAD", {
      petId: "9",
      body: { caption: "Rex, é", photo: pdf, extra: [png, pdf], meta: { a: 1 } },
    });
    expect(result, result.error ?? "").toMatchObject({ successful: true });
    const [request] = upstream.requests;
    expect(request!.headers["content-type"]).toMatch(/^multipart\/form-data; boundary=tools-proxy-[0-9a-f]{32}$/);
    expect(Number(request!.headers["content-length"])).toBe(request!.body.byteLength);
    const parts = parseMultipart(request!);
    expect(parts.map(({ info }) => [info.name, info.filename, info.contentType])).toEqual([
      ["caption", undefined, "text/plain"],
      ["photo", "q3 %22final%22.pdf", "application/pdf"],
      ["extra", "a.png", "image/png"],
      ["extra", "q3 %22final%22.pdf", "application/pdf"],
      ["meta", undefined, "application/json"],
    ]);
    expect(parts[0]!.bytes.toString("utf8")).toBe("Rex, é");
    expect(Buffer.compare(parts[1]!.bytes, PDF)).toBe(0);
    expect(Buffer.compare(parts[2]!.bytes, Buffer.from(PNG))).toBe(0);
    expect(Buffer.compare(parts[3]!.bytes, PDF)).toBe(0);
    expect(parts[4]!.bytes.toString()).toBe('{"a":1}');
  });

  it("an octet-stream body: the staged file streamed with its length", async () => {
    const pdf = await upload(PDF, "application/pdf", "raw.pdf");
    expect(await execute("PETSTORE_PUT_RAW", { content: pdf })).toMatchObject({ successful: true });
    const [request] = upstream.requests;
    expect(request!.method).toBe("PUT");
    expect(request!.headers["content-type"]).toBe("application/octet-stream");
    expect(request!.headers["content-length"]).toBe(String(PDF.byteLength));
    expect(Buffer.compare(request!.body, PDF)).toBe(0);
  });

  it("a +json body from fields, under the body's property names; arguments not named are not sent", async () => {
    expect(await execute("PETSTORE_PATCH_JSON", { id: "3", displayName: "Rex", stray: "no" })).toMatchObject({ successful: true });
    const [request] = upstream.requests;
    expect(request!.headers["content-type"]).toBe("application/merge-patch+json");
    expect(JSON.parse(request!.body.toString())).toEqual({ name: "Rex" });
  });
});

describe("answers", () => {
  it("a binary answer is staged with its type and file name, and GET /files/{key} gives back its bytes", async () => {
    const result = await execute("PETSTORE_REPORT", { id: "q3" });
    expect(result.successful).toBe(true);
    expect(result.data).toMatchObject({ contentType: "application/pdf", filename: "q3 report.pdf", size: PDF.byteLength });
    expect(result.data.stagingKey).toMatch(/^stg_/);
    const downloaded = await h.call("GET", `/files/${result.data.stagingKey}`, { key });
    expect(downloaded.status).toBe(200);
    expect(downloaded.headers.get("content-type")).toMatch(/^application\/pdf/);
    expect(Buffer.compare(Buffer.from(downloaded.bytes), PDF)).toBe(0);
    expect(upstream.requests[0]!.url).toBe("/api/reports/q3");
  });

  it("a text answer is text under auto, and a staged file when the tool says file", async () => {
    expect(await execute("PETSTORE_NOTES")).toMatchObject({ successful: true, data: "# Notes\n" });
    const staged = await execute("PETSTORE_NOTES_FILE");
    expect(staged.data).toMatchObject({ contentType: "text/markdown; charset=utf-8", size: 8 });
    expect(upstream.requests[1]!.headers.accept).toBe("*/*");
    const downloaded = await h.call("GET", `/files/${staged.data.stagingKey}`, { key });
    expect(downloaded.text).toBe("# Notes\n");
  });

  it("HEAD answers with the status and headers (no Set-Cookie); OPTIONS is sent as OPTIONS", async () => {
    const head = await execute("PETSTORE_HEAD", { id: "1" });
    expect(head.data.status).toBe(200);
    expect(head.data.headers.etag).toBe('"v1"');
    expect(head.data.headers["set-cookie"]).toBeUndefined();
    expect(await execute("PETSTORE_OPTIONS")).toMatchObject({ successful: true, data: { ok: true } });
    expect(upstream.requests.map((r) => r.method)).toEqual(["HEAD", "OPTIONS"]);
  });

  it("an upstream failure is an upstream_error with its status", async () => {
    expect(await execute("PETSTORE_MISSING")).toMatchObject({ successful: false, code: "upstream_error", upstreamStatus: 404 });
  });

  it("leaks no credential in any answer or log line", () => {
    h.assertNoLeaks();
  });
});
