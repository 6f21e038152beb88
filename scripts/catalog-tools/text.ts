/**
 * Text a model can act on, from an OpenAPI operation: a short description (its summary and the
 * first sentences of its description, without markup), a name, and a slug.
 */

/** Markup a model does not need: HTML tags, Markdown links, images, emphasis, headings, notes, code fences. */
export function plainText(text: string): string {
  return (
    text
      .replace(/\r\n?/g, "\n")
      .replace(/```[\s\S]*?```/g, " ")
      .replace(/<!--[\s\S]*?-->/g, " ")
      .replace(/<br\s*\/?>/gi, "\n")
      .replace(/<\/?(p|div|ul|ol|li|h\d|table|tr)\b[^>]*>/gi, "\n")
      .replace(/<[^>]+>/g, "")
      .replace(/!\[[^\]]*\]\([^)]*\)/g, "")
      .replace(/\[([^\]]+)\]\((?:[^()]|\([^)]*\))*\)/g, "$1")
      .replace(/\[([^\]]+)\]\[[^\]]*\]/g, "$1")
      // A link the upstream left unclosed (Vimeo's `[OAuth spec](https://…`).
      .replace(/\[([^\]]+)\]\([^)\s]*/g, "$1")
      .split("\n")
      .filter((line) => !/^\s*(>|#{1,6}\s|\|)/.test(line))
      .join("\n")
      .replace(/(\*\*|__)(.+?)\1/g, "$2")
      .replace(/\*\*/g, "")
      .replace(/\\([-\\`*_{}[\]()#+.!|])/g, "$1")
      .replace(/&nbsp;/g, " ")
      .replace(/&amp;/g, "&")
      .replace(/&lt;/g, "<")
      .replace(/&gt;/g, ">")
      .replace(/&quot;/g, '"')
      .replace(/[ \t]+/g, " ")
      .trim()
  );
}

/** Abbreviations whose period ends no sentence. */
const ABBREVIATION = /\b(e\.g|i\.e|etc|vs|approx|incl|no|eg|ie)\.$/i;

/** The sentences of a text, in order (a paragraph break ends one too). */
export function sentences(text: string): string[] {
  const found: string[] = [];
  for (const paragraph of text.split(/\n\s*\n/)) {
    let rest = paragraph.replace(/\s*\n\s*/g, " ").trim();
    while (rest) {
      let end = -1;
      for (const match of rest.matchAll(/[.!?](?=\s+[^a-z\s]|$)/g)) {
        if (!ABBREVIATION.test(rest.slice(0, match.index + 1))) {
          end = match.index + 1;
          break;
        }
      }
      if (end < 0) end = rest.length;
      found.push(rest.slice(0, end).trim());
      rest = rest.slice(end).trim();
    }
  }
  return found.filter(Boolean);
}

/**
 * The first sentences of `text` that fit in `max` characters. A first sentence longer than `max`
 * is cut at the last word that fits, with an ellipsis: never inside a word.
 */
export function summarise(text: string, max: number): string {
  const all = sentences(plainText(text));
  let result = "";
  for (const sentence of all) {
    const next = result ? `${result} ${sentence}` : sentence;
    if (next.length > max) break;
    result = next;
  }
  if (result || all.length === 0) return result;
  const head = all[0]!.slice(0, max);
  const space = head.lastIndexOf(" ");
  return `${(space > 0 ? head.slice(0, space) : head).replace(/[\s,;:([{-]+$/, "")}…`;
}

/** Ends a sentence: `List issues` → `List issues.`. */
function sentence(text: string): string {
  return /[.!?…]$/.test(text) ? text : `${text}.`;
}

/** Sentences about tokens, scopes, media types and further reading: true of every operation, no help in choosing one. */
const BOILERPLATE =
  /^(fine-grained|oauth (app )?tokens|personal access tokens|github apps?|this endpoint (supports|works with)|for more information|see also|note:|authorization:|required scopes?|scopes?:|rate limit)/i;

/**
 * A tool's description: its summary as a sentence, then the first sentences of the upstream
 * description that say more than the summary, within `max` characters.
 */
export function toolDescription(summary: string, details: string, max: number): string {
  const head = summary ? sentence(summarise(summary, max)) : "";
  const first = plainText(details).split(/\n\s*\n|\n\s*[-*] /)[0] ?? "";
  // A sentence ending with ":" introduces what is cut (a list, a table): it says nothing alone.
  const more = sentences(first).filter(
    (line) => line.replace(/\.$/, "") !== summary.replace(/\.$/, "") && !BOILERPLATE.test(line) && !line.endsWith(":"),
  );
  const tail = summarise(more.join(" "), max - head.length - 1);
  return [head, tail].filter(Boolean).join(" ") || head;
}

/** `issues/list-for-repo`, `listPetsByOwner` → `ISSUES_LIST_FOR_REPO`, `LIST_PETS_BY_OWNER`. */
export function upperSnake(text: string): string {
  return text
    .replace(/([a-z0-9])([A-Z])/g, "$1_$2")
    .replace(/([A-Z]+)([A-Z][a-z])/g, "$1_$2")
    .replace(/[^A-Za-z0-9]+/g, "_")
    .replace(/^_+|_+$/g, "")
    .toUpperCase();
}

/** The tool slug prefix of a provider, as its curated tools write it: `google-calendar` → `GOOGLECALENDAR`. */
export function slugPrefix(provider: string): string {
  return provider.toUpperCase().replace(/[^A-Z0-9]/g, "");
}

/** A name from an identifier: `issues/list-for-repo`, `answerCallbackQuery` → `Issues list for repo`, `Answer callback query`. */
export function humanise(identifier: string): string {
  return upperSnake(identifier)
    .toLowerCase()
    .split("_")
    .join(" ")
    .replace(/^./, (first) => first.toUpperCase());
}
