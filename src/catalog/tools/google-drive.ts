// Google Drive's curated tools. Facts from the Drive API v3 reference and guides:
// https://developers.google.com/workspace/drive/api/reference/rest/v3/files/list (q, pageSize up to 1000, pageToken, nextPageToken, fields)
// https://developers.google.com/workspace/drive/api/guides/search-files (query syntax)
// https://developers.google.com/workspace/drive/api/reference/rest/v3/files/get (alt=media downloads content)
// https://developers.google.com/workspace/drive/api/reference/rest/v3/files/export (Google Workspace documents, up to 10 MB)
// https://developers.google.com/workspace/drive/api/guides/ref-export-formats (export MIME types)
// https://developers.google.com/workspace/drive/api/guides/manage-uploads (multipart up to 5 MB, resumable above)
// https://developers.google.com/workspace/drive/api/guides/folder (folder MIME type)
// https://developers.google.com/workspace/drive/api/reference/rest/v3/permissions/create (type, role, sendNotificationEmail)
import { z } from "zod";
import { invalidArguments, ToolRunError } from "../../core/tool-error.js";
import { defineTool, stagedFile, type Tool, type ToolContext } from "../../toolkits/define.js";
import { type ProviderErrors, request, requestJson, segment } from "../../toolkits/provider-requests.js";
import { concatBytes } from "../../util/bytes.js";

// Drive answers 404 for a file that exists but is not shared with the account: the advice names both.
const DRIVE: ProviderErrors = {
  name: "Google Drive",
  hints: { 404: "Check the identifiers: the resource does not exist or this connection cannot see it." },
};
const UPLOAD = "https://www.googleapis.com/upload/drive/v3";
const FOLDER = "application/vnd.google-apps.folder";
const FILE_FIELDS = "id,name,mimeType,size,createdTime,modifiedTime,parents,webViewLink,owners(displayName,emailAddress),trashed,driveId";
/** Largest file sent in one multipart request; larger ones go as a resumable upload. */
const MULTIPART_MAX = 5 * 1024 * 1024;

interface DriveFile {
  id: string;
  name: string;
  mimeType: string;
  size?: string;
  createdTime?: string;
  modifiedTime?: string;
  parents?: string[];
  webViewLink?: string;
  owners?: Array<{ displayName?: string; emailAddress?: string }>;
  trashed?: boolean;
  driveId?: string;
  description?: string;
  exportLinks?: Record<string, string>;
}

function fileSummary(file: DriveFile) {
  return {
    id: file.id,
    name: file.name,
    mimeType: file.mimeType,
    isFolder: file.mimeType === FOLDER,
    size: file.size === undefined ? null : Number(file.size),
    createdTime: file.createdTime ?? null,
    modifiedTime: file.modifiedTime ?? null,
    parents: file.parents ?? [],
    url: file.webViewLink ?? null,
    owners: (file.owners ?? []).map((o) => o.emailAddress ?? o.displayName ?? ""),
    trashed: file.trashed ?? false,
    sharedDriveId: file.driveId ?? null,
  };
}

const fileId = z
  .string()
  .regex(/^[A-Za-z0-9_-]{1,200}$/, "must be a Drive file id")
  .meta({ description: "The file's id, from GOOGLEDRIVE_SEARCH_FILES." });

const searchFiles = defineTool({
  slug: "GOOGLEDRIVE_SEARCH_FILES",
  name: "Search files",
  description:
    "Finds files and folders with Drive's query syntax, e.g. `name contains 'budget'`, `fullText contains 'Q3 plan'`, " +
    "`'<folderId>' in parents`, `mimeType = 'application/vnd.google-apps.folder'`, `modifiedTime > '2024-01-01T00:00:00'`, joined with " +
    "`and`/`or`. Trashed files are left out unless `includeTrashed`. Returns `files` (id, name, mimeType, isFolder, size, times, parents, url, " +
    "owners) and `nextPageToken` (pass it as `pageToken` with the same query for more; null on the last page).",
  input: z.object({
    query: z.string().max(2000).optional().meta({ description: "Drive search query; every file when left out." }),
    orderBy: z
      .string()
      .regex(/^[a-zA-Z_ ,]+$/, "must be fields such as `modifiedTime desc,name`")
      .optional()
      .meta({ description: "Sort, e.g. `modifiedTime desc` or `folder,name`." }),
    pageSize: z.number().int().min(1).max(1000).default(50).meta({ description: "Files per page, at most 1000 (default 50)." }),
    pageToken: z.string().max(1000).optional().meta({ description: "`nextPageToken` of the previous result." }),
    includeTrashed: z.boolean().default(false).meta({ description: "Also list files in the trash (default false)." }),
  }),
  annotations: { readOnly: true, idempotent: true },
  async run(args, ctx) {
    const q = args.includeTrashed ? args.query : args.query ? `(${args.query}) and trashed = false` : "trashed = false";
    const answer = await requestJson<{ files?: DriveFile[]; nextPageToken?: string; incompleteSearch?: boolean }>(ctx, DRIVE, "/files", {
      query: {
        q,
        orderBy: args.orderBy,
        pageSize: args.pageSize,
        pageToken: args.pageToken,
        fields: `nextPageToken,incompleteSearch,files(${FILE_FIELDS})`,
        supportsAllDrives: true,
        includeItemsFromAllDrives: true,
      },
    });
    return {
      files: (answer.files ?? []).map(fileSummary),
      incompleteSearch: answer.incompleteSearch ?? false,
      nextPageToken: answer.nextPageToken ?? null,
    };
  },
});

async function metadata(ctx: ToolContext, id: string, fields = `${FILE_FIELDS},description,exportLinks`) {
  return requestJson<DriveFile>(ctx, DRIVE, `/files/${segment(id)}`, { query: { fields, supportsAllDrives: true } });
}

const getFile = defineTool({
  slug: "GOOGLEDRIVE_GET_FILE",
  name: "Get file metadata",
  description:
    "Gets a file's metadata: name, type, size, times, parents, url, owners, description, and for Google Docs, Sheets and Slides the " +
    "`exportFormats` GOOGLEDRIVE_DOWNLOAD_FILE can produce.",
  input: z.object({ fileId }),
  annotations: { readOnly: true, idempotent: true },
  async run(args, ctx) {
    const file = await metadata(ctx, args.fileId);
    return { ...fileSummary(file), description: file.description ?? null, exportFormats: Object.keys(file.exportLinks ?? {}) };
  },
});

/** Export formats by name: MIME type and file extension. */
const FORMATS = {
  pdf: ["application/pdf", "pdf"],
  docx: ["application/vnd.openxmlformats-officedocument.wordprocessingml.document", "docx"],
  odt: ["application/vnd.oasis.opendocument.text", "odt"],
  txt: ["text/plain", "txt"],
  md: ["text/markdown", "md"],
  html: ["application/zip", "zip"],
  xlsx: ["application/vnd.openxmlformats-officedocument.spreadsheetml.sheet", "xlsx"],
  csv: ["text/csv", "csv"],
  pptx: ["application/vnd.openxmlformats-officedocument.presentationml.presentation", "pptx"],
  png: ["image/png", "png"],
  svg: ["image/svg+xml", "svg"],
} as const;
type Format = keyof typeof FORMATS;

/** The format used when none is asked for, by Google type. */
const DEFAULT_FORMAT: Record<string, Format> = {
  "application/vnd.google-apps.document": "pdf",
  "application/vnd.google-apps.spreadsheet": "xlsx",
  "application/vnd.google-apps.presentation": "pdf",
  "application/vnd.google-apps.drawing": "png",
};

const downloadFile = defineTool({
  slug: "GOOGLEDRIVE_DOWNLOAD_FILE",
  name: "Download file",
  description:
    "Downloads a file's content as a staged file: returns `file`, whose `stagingKey` GET /files/{key} reads or another tool takes as a " +
    "file argument. Google Docs, Sheets, Slides and Drawings are exported: to `exportFormat` (pdf, docx, odt, txt, md, html as a zip, " +
    "xlsx, csv (first sheet), pptx, png, svg), by default Docs and Slides to pdf, Sheets to xlsx, Drawings to png; exports are limited to " +
    "10 MB. Folders cannot be downloaded.",
  input: z.object({
    fileId,
    exportFormat: z
      .enum(Object.keys(FORMATS) as [Format, ...Format[]])
      .optional()
      .meta({ description: "Format for a Google Docs/Sheets/Slides/Drawings file; ignored for other files." }),
  }),
  annotations: { readOnly: true, idempotent: true },
  async run(args, ctx) {
    const file = await metadata(ctx, args.fileId, "id,name,mimeType,size");
    const isGoogleType = file.mimeType.startsWith("application/vnd.google-apps.");
    if (!isGoogleType) {
      const response = await request(ctx, DRIVE, `/files/${segment(file.id)}`, { query: { alt: "media", supportsAllDrives: true } });
      const staged = await ctx.files.stage(response.body ?? new Uint8Array(), { contentType: file.mimeType, filename: file.name });
      return { id: file.id, name: file.name, mimeType: file.mimeType, exported: false, file: staged };
    }
    const format = args.exportFormat ?? DEFAULT_FORMAT[file.mimeType];
    if (!format) {
      throw invalidArguments(
        `${file.name} is a ${file.mimeType}, which Drive cannot export; only Docs, Sheets, Slides and Drawings can be downloaded.`,
      );
    }
    const [mimeType, extension] = FORMATS[format];
    const response = await request(ctx, DRIVE, `/files/${segment(file.id)}/export`, { query: { mimeType } });
    const filename = file.name.endsWith(`.${extension}`) ? file.name : `${file.name}.${extension}`;
    const staged = await ctx.files.stage(response.body ?? new Uint8Array(), { contentType: mimeType, filename });
    return { id: file.id, name: file.name, mimeType: file.mimeType, exported: true, exportFormat: format, file: staged };
  },
});

/** Google types an upload can be converted to. */
const CONVERSIONS = {
  document: "application/vnd.google-apps.document",
  spreadsheet: "application/vnd.google-apps.spreadsheet",
  presentation: "application/vnd.google-apps.presentation",
} as const;

const uploadFile = defineTool({
  slug: "GOOGLEDRIVE_UPLOAD_FILE",
  name: "Upload file",
  description:
    "Uploads a staged file (POST /upload first) to Drive, into a folder or My Drive's root, optionally converted to a Google Doc, Sheet " +
    "or Slides (e.g. a .docx to a document, a .csv to a spreadsheet). Returns the new file's id, name, mimeType and url.",
  input: z.object({
    file: stagedFile("Staging key of the file to upload, from POST /upload."),
    name: z.string().min(1).max(255).optional().meta({ description: "Name in Drive; the uploaded file's name when left out." }),
    parentId: z
      .string()
      .regex(/^[A-Za-z0-9_-]{1,200}$/)
      .optional()
      .meta({ description: "Id of the folder to put it in; My Drive's root when left out." }),
    description: z.string().max(4000).optional().meta({ description: "The file's description in Drive." }),
    convertTo: z.enum(["document", "spreadsheet", "presentation"]).optional().meta({ description: "Convert to this Google type." }),
  }),
  annotations: { readOnly: false, destructive: false, idempotent: false },
  async run(args, ctx) {
    const file = await ctx.files.get(args.file);
    const meta = {
      name: args.name ?? file.name,
      parents: args.parentId ? [args.parentId] : undefined,
      description: args.description,
      mimeType: args.convertTo ? CONVERSIONS[args.convertTo] : undefined,
    };
    const bytes = await file.bytes();
    const query = { fields: FILE_FIELDS, supportsAllDrives: true };
    let created: DriveFile;
    if (bytes.length <= MULTIPART_MAX) {
      const boundary = `drive_${crypto.randomUUID().replace(/-/g, "")}`;
      const encoder = new TextEncoder();
      const body = concatBytes([
        encoder.encode(
          `--${boundary}\r\nContent-Type: application/json; charset=UTF-8\r\n\r\n${JSON.stringify(meta)}\r\n` +
            `--${boundary}\r\nContent-Type: ${file.contentType}\r\n\r\n`,
        ),
        bytes,
        encoder.encode(`\r\n--${boundary}--\r\n`),
      ]);
      created = await requestJson<DriveFile>(ctx, DRIVE, `${UPLOAD}/files`, {
        method: "POST",
        query: { uploadType: "multipart", ...query },
        headers: { "content-type": `multipart/related; boundary=${boundary}` },
        body: body as BodyInit,
      });
    } else {
      const session = await request(ctx, DRIVE, `${UPLOAD}/files`, {
        method: "POST",
        query: { uploadType: "resumable", ...query },
        json: meta,
        headers: { "x-upload-content-type": file.contentType, "x-upload-content-length": String(bytes.length) },
      });
      const location = session.headers.get("location");
      if (!location) {
        throw new ToolRunError("Google Drive started no upload session (its answer had no Location); try again.", {
          code: "upstream_error",
          retryable: true,
          upstreamStatus: session.status,
        });
      }
      created = await requestJson<DriveFile>(ctx, DRIVE, location, {
        method: "PUT",
        headers: { "content-type": file.contentType },
        body: bytes as BodyInit,
      });
    }
    return fileSummary(created);
  },
});

const createFolder = defineTool({
  slug: "GOOGLEDRIVE_CREATE_FOLDER",
  name: "Create folder",
  description:
    "Creates a folder, inside another folder or in My Drive's root. Returns its id (use it as `parentId` to upload into it), name and url.",
  input: z.object({
    name: z.string().min(1).max(255).meta({ description: "The folder's name." }),
    parentId: z
      .string()
      .regex(/^[A-Za-z0-9_-]{1,200}$/)
      .optional()
      .meta({ description: "Id of the folder to create it in; My Drive's root when left out." }),
  }),
  annotations: { readOnly: false, destructive: false, idempotent: false },
  async run(args, ctx) {
    const folder = await requestJson<DriveFile>(ctx, DRIVE, "/files", {
      method: "POST",
      query: { fields: FILE_FIELDS, supportsAllDrives: true },
      json: { name: args.name, mimeType: FOLDER, parents: args.parentId ? [args.parentId] : undefined },
    });
    return fileSummary(folder);
  },
});

const shareFile = defineTool({
  slug: "GOOGLEDRIVE_SHARE_FILE",
  name: "Share file",
  description:
    "Shares a file or folder: with a person or a group by email, with everyone in a domain, or with anyone who has the link. Roles: " +
    "reader, commenter, writer (and fileOrganizer or organizer in shared drives). People are emailed unless `notify` is false. Returns " +
    "the permission's id, type, role and email or domain.",
  input: z.object({
    fileId,
    type: z
      .enum(["user", "group", "domain", "anyone"])
      .meta({ description: "Who: one `user` or `group` (by email), a `domain`, or `anyone` with the link." }),
    role: z.enum(["reader", "commenter", "writer", "fileOrganizer", "organizer"]).meta({ description: "What they may do." }),
    emailAddress: z.email().optional().meta({ description: "The person's or group's email; required for `user` and `group`." }),
    domain: z.string().max(253).optional().meta({ description: "The domain, e.g. example.com; required for `domain`." }),
    notify: z.boolean().default(true).meta({ description: "Email people and groups about the share (default true)." }),
    message: z.string().max(2000).optional().meta({ description: "Text added to the notification email." }),
  }),
  annotations: { readOnly: false, destructive: false, idempotent: false, openWorld: true },
  async run(args, ctx) {
    const byEmail = args.type === "user" || args.type === "group";
    if (byEmail && !args.emailAddress)
      throw invalidArguments(`type "${args.type}" needs emailAddress: give the person's or group's email.`);
    if (args.type === "domain" && !args.domain) throw invalidArguments('type "domain" needs domain, e.g. "example.com".');
    const permission = await requestJson<{ id: string; type: string; role: string; emailAddress?: string; domain?: string }>(
      ctx,
      DRIVE,
      `/files/${segment(args.fileId)}/permissions`,
      {
        method: "POST",
        query: {
          sendNotificationEmail: byEmail ? args.notify : undefined,
          emailMessage: byEmail && args.notify ? args.message : undefined,
          supportsAllDrives: true,
          fields: "id,type,role,emailAddress,domain",
        },
        json: {
          type: args.type,
          role: args.role,
          emailAddress: byEmail ? args.emailAddress : undefined,
          domain: args.type === "domain" ? args.domain : undefined,
        },
      },
    );
    return {
      permissionId: permission.id,
      type: permission.type,
      role: permission.role,
      emailAddress: permission.emailAddress ?? null,
      domain: permission.domain ?? null,
    };
  },
});

/** Google Drive's curated tools: search, metadata, download and export, upload, folders and sharing. */
export const googleDriveTools: Tool[] = [searchFiles, getFile, downloadFile, uploadFile, createFolder, shareFile];
