/**
 * The file a download is saved as when no `-o` is given: named by the server (Content-Disposition),
 * so made harmless here. Only the last path segment is kept; control, bidi and `:` characters
 * become `_`; a leading dot becomes `_`, so a server cannot plant `.npmrc`, `.envrc` or `.bashrc`
 * in the working directory; and the name is cut to 200 characters. Empty, `.` and `..` become
 * `download`.
 */
export function safeDownloadName(name: string): string {
  const base = (name.split(/[\\/]/).pop() ?? "")
    // eslint-disable-next-line no-control-regex
    .replace(/[\u0000-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069:]/g, "_")
    .slice(0, 200);
  if (base === "" || base === "." || base === "..") return "download";
  return base.replace(/^\./, "_");
}
