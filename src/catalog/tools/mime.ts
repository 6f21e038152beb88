// Building and reading email messages (RFC 5322 with MIME, RFC 2045-2047 and RFC 2231 file names), for
// the Gmail tools. Gmail takes a whole message as base64url `raw`:
// https://developers.google.com/workspace/gmail/api/guides/sending

import { invalidArguments } from "../../core/tool-error.js";
import { toBase64 } from "../../util/encoding.js";

/** A file to attach: its name, type and bytes. */
export interface Attachment {
  filename: string;
  contentType: string;
  bytes: Uint8Array;
}

/** What an outgoing message holds. Addresses are `a@b.c` or `Name <a@b.c>`. */
export interface OutgoingMessage {
  from?: string;
  to: string[];
  cc?: string[];
  bcc?: string[];
  subject: string;
  text?: string;
  html?: string;
  inReplyTo?: string;
  references?: string;
  attachments?: Attachment[];
}

const CRLF = "\r\n";

/** A header value as sent: refused if it holds a line break (which would add headers), encoded if not ASCII. */
function headerText(name: string, value: string): string {
  if (/[\r\n]/.test(value)) throw invalidArguments(`${name} must not contain line breaks.`);
  return /^[\x20-\x7e]*$/.test(value) ? value : encodedWords(value);
}

/** RFC 2047 encoded words of UTF-8 text, each under 75 characters, never splitting a character. */
function encodedWords(value: string): string {
  const words: string[] = [];
  let chunk = "";
  for (const char of value) {
    if (new TextEncoder().encode(chunk + char).length > 45) {
      words.push(chunk);
      chunk = "";
    }
    chunk += char;
  }
  if (chunk) words.push(chunk);
  return words.map((word) => `=?UTF-8?B?${toBase64(word)}?=`).join(`${CRLF} `);
}

/** An address list header: each display name encoded on its own, the address left readable. */
function addresses(name: string, list: string[]): string {
  return list
    .map((entry) => {
      const trimmed = entry.trim();
      const match = /^(.*?)\s*<([^<>\s]+@[^<>\s]+)>$/.exec(trimmed);
      if (!match && !/^[^<>\s@]+@[^<>\s@]+$/.test(trimmed)) {
        throw invalidArguments(`${name} has "${trimmed}", which is not an email address; write it as a@b.com or Name <a@b.com>.`);
      }
      if (!match?.[1]) return headerText(name, match ? match[2]! : trimmed);
      const display = match[1].replace(/^"(.*)"$/, "$1");
      const shown = /^[\x20-\x7e]*$/.test(display) ? `"${display.replace(/(["\\])/g, "\\$1")}"` : headerText(name, display);
      return `${shown} <${headerText(name, match[2]!)}>`;
    })
    .join(", ");
}

/** Base64 lines of 76 characters, as MIME bodies are written. */
function base64Lines(bytes: Uint8Array): string {
  return (toBase64(bytes).match(/.{1,76}/g) ?? []).join(CRLF);
}

function boundary(): string {
  return `=_part_${crypto.randomUUID().replace(/-/g, "")}`;
}

/** A MIME part: its headers and body, as lines. */
type Part = { headers: string[]; body: string };

function textPart(subtype: "plain" | "html", text: string): Part {
  return {
    headers: [`Content-Type: text/${subtype}; charset="UTF-8"`, "Content-Transfer-Encoding: base64"],
    body: base64Lines(new TextEncoder().encode(text)),
  };
}

function multipart(subtype: "mixed" | "alternative", parts: Part[]): Part {
  const mark = boundary();
  const body = parts.map((part) => `--${mark}${CRLF}${part.headers.join(CRLF)}${CRLF}${CRLF}${part.body}${CRLF}`).join("");
  return { headers: [`Content-Type: multipart/${subtype}; boundary="${mark}"`], body: `${body}--${mark}--` };
}

/** A file name parameter: quoted when ASCII, RFC 2231 `filename*` when not. */
function filenameParameter(filename: string): string {
  if (/[\r\n]/.test(filename)) throw invalidArguments("An attachment's file name must not contain line breaks.");
  if (/^[\x20-\x7e]*$/.test(filename)) return `filename="${filename.replace(/(["\\])/g, "\\$1")}"`;
  return `filename*=UTF-8''${encodeURIComponent(filename).replace(/['()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`)}`;
}

function attachmentPart(file: Attachment): Part {
  if (!/^[\w.+-]+\/[\w.+-]+$/.test(file.contentType))
    throw invalidArguments(`The attachment ${file.filename} has an invalid content type.`);
  return {
    headers: [
      `Content-Type: ${file.contentType}`,
      `Content-Disposition: attachment; ${filenameParameter(file.filename)}`,
      "Content-Transfer-Encoding: base64",
    ],
    body: base64Lines(file.bytes),
  };
}

/**
 * The message as RFC 5322 text with CRLF line ends: text and HTML as multipart/alternative when
 * both are given, and attachments in a multipart/mixed around them.
 */
export function buildMessage(message: OutgoingMessage): string {
  if (message.to.length + (message.cc?.length ?? 0) + (message.bcc?.length ?? 0) === 0) {
    throw invalidArguments("Give at least one recipient in to, cc or bcc.");
  }
  const headers = ["MIME-Version: 1.0"];
  if (message.from) headers.push(`From: ${addresses("from", [message.from])}`);
  if (message.to.length) headers.push(`To: ${addresses("to", message.to)}`);
  if (message.cc?.length) headers.push(`Cc: ${addresses("cc", message.cc)}`);
  if (message.bcc?.length) headers.push(`Bcc: ${addresses("bcc", message.bcc)}`);
  headers.push(`Subject: ${headerText("subject", message.subject)}`);
  if (message.inReplyTo) headers.push(`In-Reply-To: ${headerText("inReplyTo", message.inReplyTo)}`);
  const references = message.references ?? message.inReplyTo;
  if (references) headers.push(`References: ${headerText("references", references)}`);

  const bodies: Part[] = [];
  if (message.text !== undefined || message.html === undefined) bodies.push(textPart("plain", message.text ?? ""));
  if (message.html !== undefined) bodies.push(textPart("html", message.html));
  let root = bodies.length === 1 ? bodies[0]! : multipart("alternative", bodies);
  if (message.attachments?.length) root = multipart("mixed", [root, ...message.attachments.map(attachmentPart)]);
  return [...headers, ...root.headers].join(CRLF) + CRLF + CRLF + root.body + CRLF;
}

/** Decodes RFC 2047 encoded words (`=?UTF-8?B?...?=`, `=?ISO-8859-1?Q?...?=`) in a header value. */
export function decodeHeader(value: string): string {
  return value
    .replace(/(=\?[^?]+\?[BbQq]\?[^?]*\?=)\s+(?==\?)/g, "$1")
    .replace(/=\?([^?]+)\?([BbQq])\?([^?]*)\?=/g, (word, charset: string, encoding: string, text: string) => {
      try {
        const bytes =
          encoding.toUpperCase() === "B"
            ? Uint8Array.from(atob(text), (c) => c.charCodeAt(0))
            : Uint8Array.from(
                text
                  .replace(/_/g, " ")
                  .replace(/=([0-9A-Fa-f]{2})|[\s\S]/g, (m, hex?: string) => (hex ? String.fromCharCode(parseInt(hex, 16)) : m)),
                (c) => c.charCodeAt(0),
              );
        return new TextDecoder(charset.split("*")[0]!).decode(bytes);
      } catch {
        return word;
      }
    });
}

/** The charset of a Content-Type header value, or utf-8. */
export function charsetOf(contentType: string | undefined): string {
  return /charset="?([^";\s]+)"?/i.exec(contentType ?? "")?.[1]?.toLowerCase() ?? "utf-8";
}

/** Text of bytes in a charset, falling back to UTF-8 for a charset the runtime does not know. */
export function decodeText(bytes: Uint8Array, charset: string): string {
  try {
    return new TextDecoder(charset).decode(bytes);
  } catch {
    return new TextDecoder().decode(bytes);
  }
}

/** Readable text of an HTML body: scripts and styles dropped, tags removed, common entities decoded. */
export function htmlToText(html: string): string {
  return html
    .replace(/<(script|style|head)[^>]*>[\s\S]*?<\/\1>/gi, "")
    .replace(/<br\s*\/?>|<\/(p|div|tr|li|h[1-6])>/gi, "\n")
    .replace(/<[^>]+>/g, "")
    .replace(/&nbsp;/g, " ")
    .replace(/&lt;/g, "<")
    .replace(/&gt;/g, ">")
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&amp;/g, "&")
    .replace(/[ \t]+\n/g, "\n")
    .replace(/\n{3,}/g, "\n\n")
    .trim();
}
