/**
 * The server's error sentences speak HTTP: routes to call and fields to send ("Pass connection_id
 * to choose one."). The CLI prints the same sentence with those words swapped for the command or
 * flag that does it ("Pass --connection ID to choose one."); the rest of the sentence (ids, labels,
 * reasons) is kept as the server wrote it. A sentence that matches nothing here is printed as it is.
 * test/cli/server-words.test.ts makes the handler produce each of these sentences, so a change to
 * one of them fails a test instead of silently going back to HTTP words.
 */

/** [the server's words, the CLI's words]. `\S*` stands for the server's basePath. */
const SWAPS: Array<[RegExp, string]> = [
  [/\bPass connection_id to choose one\./, "Pass --connection ID to choose one."],
  [/\b(Connect it first|Reconnect) with POST \S*\/auth \{"toolkit":"([^"]+)"\}\./, '$1 with "tools-proxy auth $2".'],
  [/\bList yours with GET \S*\/connections\?toolkit=([\w.-]+)\./, 'List yours with "tools-proxy connections --toolkit $1".'],
  [/\bList (?:yours|connections) with GET \S*\/connections\./, 'List yours with "tools-proxy connections".'],
  [/\bFind toolkits with GET \S*\/search\?keywords=\.\.\./, 'Find toolkits with "tools-proxy search WORDS".'],
  [/\bFind tools with GET \S*\/toolkit\/\{toolkit\}\/search\?query=\.\.\./, 'Find tools with "tools-proxy toolkit search TOOLKIT WORDS".'],
  [/\b([Uu]pload it(?: again)?) with POST \S*\/upload\b/, '$1 with "tools-proxy upload FILE"'],
  [/\bpass the nextCursor of a previous answer unchanged\./, "pass a cursor that an earlier page printed, unchanged."],
  [/\bneeds "config": \{ "([^"]+)": "\.\.\." \}:/, "needs --param $1=VALUE:"],
  [/\bconfig\.([\w-]+) is not (valid|an input)\b/, "--param $1 is not $2"],
  [/^bodyFile: /, "--body-file: "],
  [/, or drop "body"\./, ", or leave out --body."],
  [/, or drop "bodyFile"\./, ", or leave out --body-file."],
  // zod's field paths in a 400 for a malformed request, e.g. "query.limit: Too big".
  [/\b(?:body|query)\.connection_id\b/g, "--connection"],
  [/\bquery\.limit\b/g, "--limit"],
  [/\bquery\.cursor\b/g, "--cursor"],
  [/\bbody\.label\b/g, "--label"],
];

/** The server's sentence with its HTTP words replaced by the CLI's. */
export function inCliWords(message: string): string {
  return SWAPS.reduce((text, [pattern, replacement]) => text.replace(pattern, replacement), message);
}
