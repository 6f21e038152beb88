/**
 * Type-checks the TypeScript blocks of the docs as a user's files: each block is a module of its
 * own in a directory of its page (a block named with `<!-- name: x.ts -->` can be imported by the
 * page's other blocks as `./x.js`), compiled with the repository's compiler options, and
 * `tools-proxy/...` resolves to the sources of each subpath.
 */
import { join } from "node:path";
import ts from "typescript";
import { ROOT } from "./markdown.js";
import { SUBPATH_SOURCES } from "./subpaths.js";

export interface Snippet {
  /** Where the block is, for messages: `docs/guide/options.md:12`. */
  where: string;
  /** The page it belongs to; blocks of one page share a directory. */
  doc: string;
  /** Its file name in that directory. */
  name: string;
  code: string;
}

/** Compiles every snippet in one program and returns the errors of each, by `where`. */
export function typeCheck(snippets: Snippet[]): Map<string, string[]> {
  const config = ts.readConfigFile(join(ROOT, "tsconfig.json"), ts.sys.readFile);
  const { options } = ts.parseJsonConfigFileContent(config.config, ts.sys, ROOT);
  options.noEmit = true;
  options.paths = Object.fromEntries(Object.entries(SUBPATH_SOURCES).map(([subpath, source]) => [subpath, [join(ROOT, source)]]));

  const files = new Map<string, Snippet>();
  for (const snippet of snippets) {
    const dir = join(ROOT, ".docs-check", snippet.doc.replace(/\.md$/, "").replace(/[^\w/-]/g, "_"));
    // `export {}` makes a block without imports a module too, so blocks never share top-level names.
    files.set(join(dir, snippet.name), { ...snippet, code: `${snippet.code}\nexport {};\n` });
  }

  const host = ts.createCompilerHost(options);
  const { fileExists, readFile, getSourceFile, directoryExists } = host;
  const dirs = new Set([...files.keys()].flatMap((file) => file.split("/").map((_, i, parts) => parts.slice(0, i).join("/"))));
  host.fileExists = (file) => files.has(file) || fileExists.call(host, file);
  host.directoryExists = (dir) => dirs.has(dir) || (directoryExists?.call(host, dir) ?? false);
  host.readFile = (file) => files.get(file)?.code ?? readFile.call(host, file);
  host.getSourceFile = (file, language, ...rest) => {
    const snippet = files.get(file);
    return snippet ? ts.createSourceFile(file, snippet.code, language, true) : getSourceFile.call(host, file, language, ...rest);
  };

  const program = ts.createProgram([...files.keys()], options, host);
  const errors = new Map<string, string[]>();
  for (const [file, snippet] of files) {
    const source = program.getSourceFile(file)!;
    const diagnostics = [...program.getSyntacticDiagnostics(source), ...program.getSemanticDiagnostics(source)];
    errors.set(
      snippet.where,
      diagnostics.map((d) => {
        const line = d.start === undefined ? "?" : source.getLineAndCharacterOfPosition(d.start).line + 1;
        return `line ${line} of the block: ${ts.flattenDiagnosticMessageText(d.messageText, "\n")}`;
      }),
    );
  }
  return errors;
}
