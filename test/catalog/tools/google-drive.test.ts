/**
 * Google Drive's curated tools over an emulation of the Drive API v3. Answer shapes follow Google's
 * reference:
 * https://developers.google.com/workspace/drive/api/reference/rest/v3/files/list
 * https://developers.google.com/workspace/drive/api/reference/rest/v3/files (the File resource)
 * https://developers.google.com/workspace/drive/api/reference/rest/v3/files/get (alt=media)
 * https://developers.google.com/workspace/drive/api/reference/rest/v3/files/export
 * https://developers.google.com/workspace/drive/api/guides/manage-uploads (multipart/related; resumable: Location)
 * https://developers.google.com/workspace/drive/api/reference/rest/v3/permissions/create
 * https://developers.google.com/workspace/drive/api/guides/handle-errors (404 notFound, 403 error objects)
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { googleDriveTools } from "../../../src/catalog/tools/google-drive.js";
import { expectAuthorized, reply, toolkitHarness } from "./support.js";

const API = "https://www.googleapis.com/drive/v3";
const UPLOAD = "https://www.googleapis.com/upload/drive/v3";
let t: Awaited<ReturnType<typeof toolkitHarness>>;

beforeAll(async () => {
  t = await toolkitHarness({ slug: "google-drive", name: "Google Drive", baseUrl: [API, UPLOAD], tools: googleDriveTools });
});
afterAll(() => t.close());

const file = (id: string, extra: Record<string, unknown> = {}) => ({
  id,
  name: `File ${id}`,
  mimeType: "application/pdf",
  size: "1024",
  createdTime: "2024-01-01T00:00:00.000Z",
  modifiedTime: "2024-02-01T00:00:00.000Z",
  parents: ["0AExampleRoot"],
  webViewLink: `https://drive.google.com/file/d/${id}/view`,
  owners: [{ displayName: "Me", emailAddress: "me@example.com" }],
  trashed: false,
  ...extra,
});

describe("GOOGLEDRIVE_SEARCH_FILES", () => {
  it("sends the query without trashed files, asks for the fields it returns, and pages", async () => {
    t.api.answer(() =>
      reply({
        nextPageToken: "drive-page-2",
        incompleteSearch: false,
        files: [file("f1"), file("d1", { mimeType: "application/vnd.google-apps.folder", size: undefined })],
      }),
    );
    const result = await t.execute("GOOGLEDRIVE_SEARCH_FILES", {
      query: "name contains 'budget'",
      pageSize: 2,
      orderBy: "modifiedTime desc",
    });
    const url = t.api.sent[0]!.url;
    expect(url.origin + url.pathname).toBe(`${API}/files`);
    expect(url.searchParams.get("q")).toBe("(name contains 'budget') and trashed = false");
    expect(url.searchParams.get("fields")).toMatch(/^nextPageToken,incompleteSearch,files\(id,name,mimeType,size,/);
    expect(url.searchParams.get("pageSize")).toBe("2");
    expect(url.searchParams.get("orderBy")).toBe("modifiedTime desc");
    expect(url.searchParams.get("supportsAllDrives")).toBe("true");
    expectAuthorized(t.api.sent);
    expect(result.data.nextPageToken).toBe("drive-page-2");
    expect(result.data.files[0]).toEqual({
      id: "f1",
      name: "File f1",
      mimeType: "application/pdf",
      isFolder: false,
      size: 1024,
      createdTime: "2024-01-01T00:00:00.000Z",
      modifiedTime: "2024-02-01T00:00:00.000Z",
      parents: ["0AExampleRoot"],
      url: "https://drive.google.com/file/d/f1/view",
      owners: ["me@example.com"],
      trashed: false,
      sharedDriveId: null,
    });
    expect(result.data.files[1]).toMatchObject({ isFolder: true, size: null });

    t.api.answer(() => reply({ files: [] }));
    const last = await t.execute("GOOGLEDRIVE_SEARCH_FILES", { pageToken: "drive-page-2", includeTrashed: true });
    expect(t.api.sent[0]!.url.searchParams.get("pageToken")).toBe("drive-page-2");
    expect(t.api.sent[0]!.url.searchParams.has("q")).toBe(false);
    expect(last.data.nextPageToken).toBeNull();
  });
});

describe("GOOGLEDRIVE_GET_FILE", () => {
  it("returns the metadata and the export formats", async () => {
    t.api.answer(() =>
      reply(
        file("doc1", {
          mimeType: "application/vnd.google-apps.document",
          size: undefined,
          description: "Plan",
          exportLinks: { "application/pdf": "https://docs.google.com/x", "text/plain": "https://docs.google.com/y" },
        }),
      ),
    );
    const result = await t.execute("GOOGLEDRIVE_GET_FILE", { fileId: "doc1" });
    expect(t.api.sent[0]!.url.pathname).toBe("/drive/v3/files/doc1");
    expect(t.api.sent[0]!.url.searchParams.get("fields")).toContain("exportLinks");
    expect(result.data).toMatchObject({ id: "doc1", description: "Plan", exportFormats: ["application/pdf", "text/plain"] });
  });

  it("reports Google's 404 with what to do", async () => {
    t.api.answer(() =>
      reply(
        {
          error: {
            code: 404,
            message: "File not found: nope.",
            errors: [
              { message: "File not found: nope.", domain: "global", reason: "notFound", location: "fileId", locationType: "parameter" },
            ],
          },
        },
        404,
      ),
    );
    const result = await t.execute("GOOGLEDRIVE_GET_FILE", { fileId: "nope" });
    expect(result).toMatchObject({ successful: false, code: "upstream_error", upstreamStatus: 404 });
    expect(result.error).toMatch(/^Google Drive answered 404: File not found: nope\. Check the identifiers/);
  });
});

describe("GOOGLEDRIVE_DOWNLOAD_FILE", () => {
  it("downloads a binary file with alt=media as a staged file", async () => {
    const bytes = Uint8Array.from([0x25, 0x50, 0x44, 0x46, 0x00, 0xff]);
    t.api.answer((request) =>
      request.url.searchParams.get("alt") === "media"
        ? new Response(bytes, { headers: { "content-type": "application/pdf" } })
        : reply({ id: "f1", name: "report.pdf", mimeType: "application/pdf", size: "6" }),
    );
    const result = await t.execute("GOOGLEDRIVE_DOWNLOAD_FILE", { fileId: "f1" });
    expect(t.api.sent.map((r) => r.url.pathname + r.url.search)).toEqual([
      "/drive/v3/files/f1?fields=id%2Cname%2CmimeType%2Csize&supportsAllDrives=true",
      "/drive/v3/files/f1?alt=media&supportsAllDrives=true",
    ]);
    expectAuthorized(t.api.sent);
    expect(result.data).toMatchObject({
      id: "f1",
      exported: false,
      file: { contentType: "application/pdf", filename: "report.pdf", size: 6 },
    });
    expect((await t.download(result.data.file.stagingKey)).bytes).toEqual(bytes);
  });

  it("exports a Google Doc to the chosen format", async () => {
    t.api.answer((request) =>
      request.url.pathname.endsWith("/export")
        ? new Response("# Plan\n", { headers: { "content-type": "text/markdown" } })
        : reply({ id: "doc1", name: "Plan", mimeType: "application/vnd.google-apps.document" }),
    );
    const result = await t.execute("GOOGLEDRIVE_DOWNLOAD_FILE", { fileId: "doc1", exportFormat: "md" });
    expect(t.api.sent[1]!.url.href).toBe(`${API}/files/doc1/export?mimeType=text%2Fmarkdown`);
    expect(result.data).toMatchObject({ exported: true, exportFormat: "md", file: { contentType: "text/markdown", filename: "Plan.md" } });
    expect((await t.download(result.data.file.stagingKey)).text).toBe("# Plan\n");
  });

  it("exports a Sheet to xlsx by default, and refuses a folder", async () => {
    t.api.answer((request) =>
      request.url.pathname.endsWith("/export")
        ? new Response(new Uint8Array([0x50, 0x4b, 3, 4]))
        : reply({ id: "s1", name: "Budget", mimeType: "application/vnd.google-apps.spreadsheet" }),
    );
    const sheet = await t.execute("GOOGLEDRIVE_DOWNLOAD_FILE", { fileId: "s1" });
    expect(t.api.sent[1]!.url.searchParams.get("mimeType")).toBe("application/vnd.openxmlformats-officedocument.spreadsheetml.sheet");
    expect(sheet.data.file.filename).toBe("Budget.xlsx");

    t.api.answer(() => reply({ id: "d1", name: "Stuff", mimeType: "application/vnd.google-apps.folder" }));
    const folder = await t.execute("GOOGLEDRIVE_DOWNLOAD_FILE", { fileId: "d1" });
    expect(folder).toMatchObject({ successful: false, code: "invalid_arguments" });
    expect(t.api.sent).toHaveLength(1);
  });
});

describe("GOOGLEDRIVE_UPLOAD_FILE", () => {
  it("sends a small file as a multipart/related upload with its metadata", async () => {
    t.api.answer(() => reply(file("up1", { name: "notes.csv", mimeType: "application/vnd.google-apps.spreadsheet" })));
    const key = await t.upload("a,b\n1,2\n", "text/csv", "notes.csv");
    const result = await t.execute("GOOGLEDRIVE_UPLOAD_FILE", { file: key, parentId: "folder123", convertTo: "spreadsheet" });
    const [request] = t.api.sent;
    expect(request!.method).toBe("POST");
    expect(request!.url.origin + request!.url.pathname).toBe(`${UPLOAD}/files`);
    expect(request!.url.searchParams.get("uploadType")).toBe("multipart");
    const boundary = /^multipart\/related; boundary=(.+)$/.exec(request!.headers.get("content-type")!)![1]!;
    const parts = request!.text.split(`--${boundary}`);
    expect(parts).toHaveLength(4);
    expect(parts[3]).toBe("--\r\n");
    const [metaHead, metaBody] = parts[1]!.split("\r\n\r\n");
    expect(metaHead).toBe("\r\nContent-Type: application/json; charset=UTF-8");
    expect(JSON.parse(metaBody!)).toEqual({
      name: "notes.csv",
      parents: ["folder123"],
      mimeType: "application/vnd.google-apps.spreadsheet",
    });
    expect(parts[2]).toBe("\r\nContent-Type: text/csv\r\n\r\na,b\n1,2\n\r\n");
    expectAuthorized(t.api.sent);
    expect(result.data).toMatchObject({ id: "up1", name: "notes.csv" });
  });

  it("sends a file over 5 MB as a resumable upload to the session URL", async () => {
    const session = `${UPLOAD}/files?uploadType=resumable&upload_id=xa298sd_sdlkj2`;
    const big = new Uint8Array(5 * 1024 * 1024 + 10).fill(7);
    t.api.answer((request) =>
      request.method === "POST"
        ? new Response(null, { status: 200, headers: { location: session } })
        : reply(file("up2", { name: "big.bin" })),
    );
    const key = await t.upload(big, "application/octet-stream", "big.bin");
    const result = await t.execute("GOOGLEDRIVE_UPLOAD_FILE", { file: key, name: "big.bin", description: "Raw data" });
    expect(result.successful, result.error ?? "").toBe(true);
    const [start, put] = t.api.sent;
    expect(start!.url.searchParams.get("uploadType")).toBe("resumable");
    expect(start!.headers.get("x-upload-content-type")).toBe("application/octet-stream");
    expect(start!.headers.get("x-upload-content-length")).toBe(String(big.length));
    expect(start!.json()).toEqual({ name: "big.bin", description: "Raw data" });
    expect(put!.method).toBe("PUT");
    expect(put!.url.href).toBe(session);
    expect(put!.bytes.length).toBe(big.length);
    expectAuthorized(t.api.sent);
  }, 30_000);
});

describe("folders and sharing", () => {
  it("GOOGLEDRIVE_CREATE_FOLDER creates a folder", async () => {
    t.api.answer(() => reply(file("fold1", { name: "Reports", mimeType: "application/vnd.google-apps.folder", size: undefined })));
    const result = await t.execute("GOOGLEDRIVE_CREATE_FOLDER", { name: "Reports", parentId: "parent9" });
    const [request] = t.api.sent;
    expect(request!.method).toBe("POST");
    expect(request!.url.pathname).toBe("/drive/v3/files");
    expect(request!.json()).toEqual({ name: "Reports", mimeType: "application/vnd.google-apps.folder", parents: ["parent9"] });
    expect(result.data).toMatchObject({ id: "fold1", isFolder: true });
  });

  it("GOOGLEDRIVE_SHARE_FILE creates a permission and notifies", async () => {
    t.api.answer(() => reply({ kind: "drive#permission", id: "perm1", type: "user", role: "writer", emailAddress: "bob@example.com" }));
    const result = await t.execute("GOOGLEDRIVE_SHARE_FILE", {
      fileId: "f1",
      type: "user",
      role: "writer",
      emailAddress: "bob@example.com",
      message: "Have a look",
    });
    const [request] = t.api.sent;
    expect(request!.method).toBe("POST");
    expect(request!.url.pathname).toBe("/drive/v3/files/f1/permissions");
    expect(request!.url.searchParams.get("sendNotificationEmail")).toBe("true");
    expect(request!.url.searchParams.get("emailMessage")).toBe("Have a look");
    expect(request!.json()).toEqual({ type: "user", role: "writer", emailAddress: "bob@example.com" });
    expect(result.data).toEqual({ permissionId: "perm1", type: "user", role: "writer", emailAddress: "bob@example.com", domain: null });
  });

  it("GOOGLEDRIVE_SHARE_FILE shares with anyone with the link, and needs an email for a user", async () => {
    t.api.answer(() => reply({ id: "anyoneWithLink", type: "anyone", role: "reader" }));
    await t.execute("GOOGLEDRIVE_SHARE_FILE", { fileId: "f1", type: "anyone", role: "reader" });
    expect(t.api.sent[0]!.url.searchParams.has("sendNotificationEmail")).toBe(false);
    expect(t.api.sent[0]!.json()).toEqual({ type: "anyone", role: "reader" });

    t.api.answer(() => reply({}));
    const missing = await t.execute("GOOGLEDRIVE_SHARE_FILE", { fileId: "f1", type: "user", role: "reader" });
    expect(missing).toMatchObject({ successful: false, code: "invalid_arguments" });
    expect(missing.error).toMatch(/needs emailAddress/);
    expect(t.api.sent).toHaveLength(0);
  });
});
