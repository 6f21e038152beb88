/**
 * The `request` field of a JSON toolkit's tool: what loading refuses (each error names its field),
 * and the runner's edges with a recording `ctx.fetch` (bodies, answers, file names).
 */
import { describe, expect, it } from "vitest";
import type { StagedFile, StagedFileReference, ToolContext } from "../../src/toolkits/define.js";
import { buildRequest, type RequestSpec } from "../../src/toolkits/http-request.js";
import { filenameOf } from "../../src/toolkits/http-tool.js";
import { defineJsonToolkit } from "../../src/toolkits/json.js";

function toolkit(tool: Record<string, unknown>, auth: Record<string, unknown> = { type: "none" }) {
  return defineJsonToolkit({
    slug: "pets",
    name: "Pets",
    description: "Pets.",
    baseUrl: "https://pets.test/v1",
    auth,
    tools: [{ slug: "PETS_TOOL", name: "Tool", description: "A tool.", method: "POST", path: "/pets/{petId}", ...tool }],
  });
}

const props = (...names: string[]) => ({ type: "object", properties: Object.fromEntries(names.map((n) => [n, {}])) });
const petId = { in: "path", name: "petId" };

describe("loading refuses a request that does not fit its tool", () => {
  it.each([
    [{ inputParameters: props("petId"), request: {} }, "tools[0].path: placeholder {petId} has no path parameter in request.parameters"],
    [
      { inputParameters: props("petId", "x"), request: { parameters: [petId, { in: "path", name: "x" }] } },
      'tools[0].request.parameters[1].name: path parameter "x" has no {x} in path',
    ],
    [
      {
        inputParameters: props("petId", "a"),
        request: { parameters: [petId, { in: "header", name: "X-A", arg: "a" }, { in: "header", name: "x-a", arg: "a" }] },
      },
      'tools[0].request.parameters[2].name: header parameter "x-a" is declared twice',
    ],
    [
      { inputParameters: props(), request: { parameters: [petId] } },
      'tools[0].request.parameters[0].name: "petId" is not a property of inputParameters',
    ],
    [
      { inputParameters: props("petId"), request: { parameters: [petId], body: { contentType: "application/json", arg: "body" } } },
      'tools[0].request.body.arg: "body" is not a property of inputParameters',
    ],
    [
      {
        inputParameters: props("petId"),
        request: { parameters: [petId], body: { contentType: "application/json", fields: { n: "name" } } },
      },
      'tools[0].request.body.fields.n: "name" is not a property of inputParameters',
    ],
    [
      { inputParameters: props("petId"), request: { parameters: [{ ...petId, style: "form" }] } },
      "tools[0].request.parameters[0].style: must be one of simple, label, matrix for a path parameter",
    ],
    [
      { inputParameters: props("petId"), request: { parameters: [{ ...petId, allowReserved: true }] } },
      "tools[0].request.parameters[0].allowReserved: applies to query parameters only",
    ],
    [
      { inputParameters: props("petId", "h"), request: { parameters: [petId, { in: "header", name: "X A", arg: "h" }] } },
      "tools[0].request.parameters[1].name: must be an HTTP header name",
    ],
    [
      {
        inputParameters: props("petId", "b"),
        request: { parameters: [petId], body: { contentType: "application/json", arg: "b", fields: {} } },
      },
      "tools[0].request.body: must have either arg or fields, not both",
    ],
    [
      { inputParameters: props("petId", "b"), request: { parameters: [petId], body: { contentType: "application/xml", arg: "b" } } },
      "tools[0].request.body.contentType: must be application/json",
    ],
    [
      {
        method: "GET",
        inputParameters: props("petId", "b"),
        request: { parameters: [petId], body: { contentType: "application/json", arg: "b" } },
      },
      "tools[0].request.body: a GET request cannot carry a body",
    ],
  ])("%#: %s", (tool, message) => {
    expect(() => toolkit(tool)).toThrow(message);
  });

  it("accepts +json types, a charset, and paths with OpenAPI template names such as {pet-id}", () => {
    const kit = toolkit({
      path: "/pets/{pet-id}",
      inputParameters: props("id", "b"),
      request: {
        parameters: [{ in: "path", name: "pet-id", arg: "id" }],
        body: { contentType: "application/vnd.api+json; charset=utf-8", arg: "b" },
      },
    });
    expect(kit.tools[0]!.slug).toBe("PETS_TOOL");
  });
});

function recording(answer: () => Response = () => Response.json({ ok: true })) {
  const sent: Array<{ url: string; init: NonNullable<Parameters<ToolContext["fetch"]>[1]> }> = [];
  const staged: Array<{ body: unknown; options: { contentType: string; filename?: string } }> = [];
  const ctx: ToolContext = {
    fetch: async (url, init) => {
      sent.push({ url: String(url), init: init ?? {} });
      return answer();
    },
    files: {
      get: async () => {
        throw new Error("no files");
      },
      stage: async (body, options) => {
        staged.push({ body, options });
        return {
          stagingKey: "stg_x",
          contentType: options.contentType,
          filename: options.filename ?? null,
          size: 1,
          expiresAt: "",
        } as StagedFileReference;
      },
    },
    connection: null,
    principal: { workspaceId: "w", agentId: "a", keyId: "k", kind: "agent" },
    signal: new AbortController().signal,
  };
  return { ctx, sent, staged };
}

function bodyTool(contentType: string, extra: Record<string, unknown> = {}) {
  return toolkit({ path: "/pets", inputParameters: props("b"), request: { body: { contentType, arg: "b" } }, ...extra }).tools[0]!;
}

describe("bodies and answers, with a recording fetch", () => {
  it("text/plain sends a string as it is and anything else as JSON", async () => {
    const { ctx, sent } = recording();
    await bodyTool("text/plain").run({ b: "hi" }, ctx);
    await bodyTool("text/plain").run({ b: { a: 1 } }, ctx);
    expect(sent.map((s) => [s.init.body, (s.init.headers as Record<string, string>)["content-type"]])).toEqual([
      ["hi", "text/plain"],
      ['{"a":1}', "text/plain"],
    ]);
  });

  it("sends no body when the body argument is absent, and an empty object for fields none of which is given", async () => {
    const { ctx, sent } = recording();
    await bodyTool("application/json").run({}, ctx);
    await toolkit({
      path: "/pets",
      inputParameters: props("n"),
      request: { body: { contentType: "application/json", fields: { name: "n" } } },
    }).tools[0]!.run({}, ctx);
    expect(sent[0]!.init.body).toBeUndefined();
    expect((sent[0]!.init.headers as Record<string, string>)["content-type"]).toBeUndefined();
    expect(sent[1]!.init.body).toBe("{}");
  });

  it("refuses a form or multipart body that is no object, and an octet-stream body that is no file or text", async () => {
    const { ctx, sent } = recording();
    await expect(bodyTool("application/x-www-form-urlencoded").run({ b: [1] }, ctx)).rejects.toMatchObject({
      code: "invalid_arguments",
      message: 'Argument "b" must be an object whose properties become the form\'s fields.',
    });
    await expect(bodyTool("multipart/form-data").run({ b: "text" }, ctx)).rejects.toMatchObject({ code: "invalid_arguments" });
    await expect(bodyTool("application/octet-stream").run({ b: 5 }, ctx)).rejects.toMatchObject({ code: "invalid_arguments" });
    await bodyTool("application/octet-stream").run({ b: "raw" }, ctx);
    expect(sent.map((s) => s.init.body)).toEqual(["raw"]);
  });

  it("a multipart body without files is sent as bytes, without a declared length", async () => {
    const { ctx, sent } = recording();
    await bodyTool("multipart/form-data").run({ b: { a: "1", n: null } }, ctx);
    expect(sent[0]!.init.body).toBeInstanceOf(Uint8Array);
    expect(sent[0]!.init.contentLength).toBeUndefined();
    expect(new TextDecoder().decode(sent[0]!.init.body as Uint8Array)).toMatch(
      /^--tools-proxy-\w+\r\nContent-Disposition: form-data; name="a"\r\n\r\n1\r\n--tools-proxy-\w+--\r\n$/,
    );
  });

  it("streams a staged file only when fetch reads it", async () => {
    let opened = 0;
    const file = {
      stagingKey: "stg_abcdefghijklmnop",
      name: "a.bin",
      filename: null,
      contentType: "application/x-thing",
      size: 3,
      stream: async () => {
        opened++;
        return new Blob([new Uint8Array([1, 2, 3])]).stream();
      },
    } as unknown as StagedFile;
    const { ctx, sent } = recording();
    await bodyTool("multipart/form-data").run({ b: { f: file } }, ctx);
    expect(opened).toBe(0);
    const body = new Uint8Array(await new Response(sent[0]!.init.body as ReadableStream).arrayBuffer());
    expect(opened).toBe(1);
    expect(body.byteLength).toBe(sent[0]!.init.contentLength);
    expect(new TextDecoder().decode(body)).toContain(
      'name="f"; filename="a.bin"\r\nContent-Type: application/x-thing\r\n\r\n\x01\x02\x03\r\n',
    );
  });

  it("reads answers by mode: json falls back to text, an empty body is null, a file answer keeps its file name", async () => {
    const tool = (response: string) => toolkit({ path: "/pets", request: { response } }).tools[0]!;
    const broken = recording(() => new Response("not json", { headers: { "content-type": "application/json" } }));
    expect(await tool("json").run({}, broken.ctx)).toBe("not json");
    expect((broken.sent[0]!.init.headers as Record<string, string>).accept).toBe("application/json");
    const empty = recording(() => new Response(null, { status: 204 }));
    expect(await tool("auto").run({}, empty.ctx)).toBeNull();
    expect(await tool("file").run({}, empty.ctx)).toBeNull();
    const typed = recording(() => new Response("{}", { headers: { "content-type": "text/plain" } }));
    expect(await tool("text").run({}, typed.ctx)).toBe("{}");
    expect((typed.sent[0]!.init.headers as Record<string, string>).accept).toBe("text/*, */*;q=0.8");
    const xml = recording(() => new Response("<a/>", { headers: { "content-type": "application/atom+xml" } }));
    expect(await tool("auto").run({}, xml.ctx)).toBe("<a/>");
    const zip = recording(
      () =>
        new Response("PK", {
          headers: { "content-type": "application/zip", "content-disposition": "attachment; filename*=UTF-8''r%C3%A9sum%C3%A9.zip" },
        }),
    );
    expect(await tool("auto").run({}, zip.ctx)).toMatchObject({
      stagingKey: "stg_x",
      filename: "résumé.zip",
      contentType: "application/zip",
    });
  });

  it("a header parameter of any scheme's credential header is refused, even when the connection uses another mode", async () => {
    const kit = defineJsonToolkit({
      slug: "pets",
      name: "Pets",
      description: "Pets.",
      baseUrl: "https://pets.test/v1",
      auth: [
        { type: "apiKey", in: "header", name: "X-Key" },
        { type: "bearer", placement: { in: "header", name: "X-Token" } },
      ],
      tools: [
        {
          slug: "T",
          name: "T",
          description: "T",
          method: "GET",
          path: "/p",
          inputParameters: props("a", "b", "c"),
          request: {
            parameters: [
              { in: "header", name: "x-token", arg: "a" },
              { in: "header", name: "Accept", arg: "b" },
              { in: "header", name: "Proxy-Authorization", arg: "c" },
            ],
          },
        },
      ],
    });
    const { ctx, sent } = recording();
    for (const arg of ["a", "b", "c"])
      await expect(kit.tools[0]!.run({ [arg]: "v" }, ctx)).rejects.toMatchObject({ code: "invalid_arguments" });
    expect(sent).toHaveLength(0);
    await kit.tools[0]!.run({}, ctx);
    expect(sent).toHaveLength(1);
  });
});

describe("file names of a Content-Disposition", () => {
  it.each([
    [null, undefined],
    ["attachment", undefined],
    ['attachment; filename="a b.pdf"', "a b.pdf"],
    ["attachment; filename=plain.txt; size=3", "plain.txt"],
    ["attachment; filename=\"fallback.txt\"; filename*=UTF-8''%E2%82%AC.txt", "€.txt"],
    ["attachment; filename*=UTF-8''%E2%ZZ; filename=ok.txt", "ok.txt"],
  ])("%s → %s", (header, name) => {
    expect(filenameOf(header)).toBe(name);
  });
});

describe("buildRequest, exactly", () => {
  const build = (path: string, spec: RequestSpec, args: Record<string, unknown>) => buildRequest(path, spec, args, ["x-key"]);

  it("fills each placeholder from its own path parameter, even beside a query parameter of the same name", () => {
    const spec: RequestSpec = {
      parameters: [
        { in: "query", name: "id", arg: "q" },
        { in: "path", name: "id", arg: "p" },
        { in: "path", name: "sub" },
      ],
    };
    expect(build("/a/{id}/{sub}", spec, { p: "P", q: "Q", sub: "S" })).toStrictEqual({ pathAndQuery: "/a/P/S?id=Q", headers: {} });
  });

  it("leaves out null and absent values, and sets no cookie, body or length without them", () => {
    const spec: RequestSpec = {
      parameters: [
        { in: "query", name: "q" },
        { in: "header", name: "X-H" },
        { in: "cookie", name: "c" },
      ],
    };
    expect(build("/a", spec, { q: null, "X-H": null, c: undefined })).toStrictEqual({ pathAndQuery: "/a", headers: {} });
    expect(build("/a", spec, { q: 1, "X-H": "h", c: "v" })).toStrictEqual({
      pathAndQuery: "/a?q=1",
      headers: { "X-H": "h" },
      cookie: "c=v",
    });
  });

  it("refuses an empty or null path value, naming the argument and the placeholder, and a . or .. segment", () => {
    const spec: RequestSpec = { parameters: [{ in: "path", name: "owner-id", arg: "ownerId" }] };
    for (const ownerId of ["", null, undefined, []]) {
      expect(() => build("/o/{owner-id}", spec, { ownerId })).toThrow(
        'Argument "ownerId" is required: it fills {owner-id} in the request path.',
      );
    }
    for (const ownerId of [".", ".."]) {
      expect(() => build("/o/{owner-id}", spec, { ownerId })).toThrow(
        'The path arguments must not make a "." or ".." segment of the request path.',
      );
    }
    expect(build("/o/{owner-id}", spec, { ownerId: "..." }).pathAndQuery).toBe("/o/...");
  });

  it("refuses Content-Type and Accept header arguments", () => {
    for (const name of ["Content-Type", "accept"]) {
      expect(() => build("/a", { parameters: [{ in: "header", name, arg: "h" }] }, { h: "x" })).toThrow(
        `Argument "h" cannot be sent: the header "${name}" is set by tools-proxy`,
      );
    }
  });

  it("names the body in its errors: the argument, or the body made of fields", () => {
    expect(() => build("/a", { body: { contentType: "application/octet-stream", arg: "b" } }, { b: 1 })).toThrow(
      'Argument "b" must be a staged file (its staging key from POST /upload) or text.',
    );
    expect(() => build("/a", { body: { contentType: "application/octet-stream", fields: { x: "x" } } }, { x: 1 })).toThrow(
      "The body must be a staged file",
    );
  });

  it("reads the content type case-insensitively, with its parameters", () => {
    const built = build("/a", { body: { contentType: "Text/Plain; charset=utf-8", arg: "b" } }, { b: "hi" });
    expect(built).toStrictEqual({ pathAndQuery: "/a", headers: { "content-type": "Text/Plain; charset=utf-8" }, body: "hi" });
  });

  it("loads and uses a content type with a space before its parameters", async () => {
    const { ctx, sent } = recording();
    await bodyTool("text/plain ; charset=utf-8").run({ b: "hi" }, ctx);
    expect(sent[0]!.init.body).toBe("hi");
  });

  it("a form body leaves out null and absent fields", () => {
    const built = build(
      "/a",
      { body: { contentType: "application/x-www-form-urlencoded", fields: { a: "a", b: "b", c: "c" } } },
      { a: 1, b: null },
    );
    expect(String(built.body)).toBe("a=1");
  });
});

describe("multipart and octet-stream edges", () => {
  function fakeFile(options: { name?: string; contentType?: string; bytes?: Uint8Array; onCancel?: () => void } = {}) {
    let opened = 0;
    const file = {
      stagingKey: "stg_abcdefghijklmnop",
      name: options.name ?? "a.bin",
      filename: options.name ?? null,
      contentType: options.contentType ?? "application/x-thing",
      size: options.bytes?.byteLength ?? 3,
      stream: async () => {
        opened++;
        const bytes = options.bytes ?? new Uint8Array([1, 2, 3]);
        let pulls = 0;
        // The first pull gives the bytes, the second ends the stream: a reader can stop in between.
        return new ReadableStream<Uint8Array>(
          {
            pull: (controller) => {
              if (pulls++ === 0) controller.enqueue(bytes);
              else controller.close();
            },
            cancel: options.onCancel,
          },
          { highWaterMark: 0 },
        );
      },
    } as unknown as StagedFile;
    return { file, opened: () => opened };
  }

  it("escapes quotes and line breaks in part names and file names, and line breaks in the file's type", async () => {
    const { file } = fakeFile({ name: 'a"b\r\nc.bin', contentType: "x/y\r\nX-Evil: 1" });
    const { ctx, sent } = recording();
    await bodyTool("multipart/form-data").run({ b: { 'f"\r\n': file } }, ctx);
    const text = await new Response(sent[0]!.init.body as ReadableStream).text();
    expect(text).toContain(
      'Content-Disposition: form-data; name="f%22%0D%0A"; filename="a%22b%0D%0Ac.bin"\r\nContent-Type: x/yX-Evil: 1\r\n\r\n',
    );
  });

  it("an object that merely has a stagingKey is a JSON part, not a file", async () => {
    const { ctx, sent } = recording();
    await bodyTool("multipart/form-data").run({ b: { f: { stagingKey: "stg_abcdefghijklmnop" } } }, ctx);
    expect(new TextDecoder().decode(sent[0]!.init.body as Uint8Array)).toContain(
      'name="f"\r\nContent-Type: application/json\r\n\r\n{"stagingKey":"stg_abcdefghijklmnop"}\r\n',
    );
  });

  it("an octet-stream body opens its file only when read", async () => {
    const { file, opened } = fakeFile();
    const { ctx, sent } = recording();
    await bodyTool("application/octet-stream").run({ b: file }, ctx);
    expect(opened()).toBe(0);
    expect(new Uint8Array(await new Response(sent[0]!.init.body as ReadableStream).arrayBuffer())).toEqual(new Uint8Array([1, 2, 3]));
    expect(opened()).toBe(1);
  });

  it("cancelling the body cancels the open file", async () => {
    let cancelled = 0;
    const { file } = fakeFile({ onCancel: () => void cancelled++ });
    const { ctx, sent } = recording();
    await bodyTool("multipart/form-data").run({ b: { f: file } }, ctx);
    const reader = (sent[0]!.init.body as ReadableStream<Uint8Array>).getReader();
    await reader.read(); // the part's head
    await reader.read(); // the file's first bytes: the file is open
    await reader.cancel("stop");
    expect(cancelled).toBe(1);
  });

  it("cancelling the body before it is read opens no file and does not fail", async () => {
    const { file, opened } = fakeFile();
    const { ctx, sent } = recording();
    await bodyTool("multipart/form-data").run({ b: { f: file } }, ctx);
    await expect((sent[0]!.init.body as ReadableStream).cancel("stop")).resolves.toBeUndefined();
    expect(opened()).toBe(0);
  });

  it.each(["text/plainx", "x-application/json", "application/json-seq"])("refuses the body type %s at load", (contentType) => {
    expect(() => bodyTool(contentType)).toThrow("tools[0].request.body.contentType: must be application/json");
  });
});
