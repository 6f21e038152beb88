import { CATALOG_ICON_PREFIX } from "../catalog/icons.js";
import type { HandlerContext } from "../context/context.js";
import { randomBytes, toBase64 } from "../util/encoding.js";
import { fieldRow, formFields } from "./form-fields.js";
import type { OpenLink } from "./link.js";
import { html, text } from "./words.js";

export { type FormField, formFields } from "./form-fields.js";
export { text } from "./words.js";

/** The connect form, with an error from the last try and the non-secret values typed before. */
export function formPage(
  ctx: HandlerContext,
  link: OpenLink,
  formToken: string,
  options: { status?: number; error?: string; values?: Record<string, string> } = {},
): Response {
  const toolkit = link.toolkit;
  const words = { toolkit: toolkit.name };
  const fields = formFields(ctx, link);
  const scheme = link.scheme;
  const rows = fields.map((field) => fieldRow(ctx, field, options.values?.[field.name], options.error !== undefined));
  const given = Object.entries(link.config).map(
    ([name, value]) =>
      `<p class="given">${html(toolkit.inputs.find((i) => i.name === name)?.label ?? name)}: <strong>${html(value)}</strong></p>`,
  );
  const schemeLabel = "label" in scheme && scheme.label ? `<p class="scheme">${html(scheme.label)}</p>` : "";
  const help =
    "helpUrl" in scheme && scheme.helpUrl && /^https?:\/\//.test(scheme.helpUrl)
      ? `<p><a href="${html(scheme.helpUrl)}" rel="noreferrer noopener">${html(text(ctx, "help", words))}</a></p>`
      : "";
  const error = options.error ? `<div class="error" role="alert" id="form-error"><p>${html(options.error)}</p></div>` : "";
  const submit = scheme.type === "oauth2" ? text(ctx, "continue", words) : text(ctx, "submit", words);
  const body = `<main>
<header>${icon(ctx, link)}<h1>${html(text(ctx, "title", words))}</h1></header>
${schemeLabel}<p>${html(text(ctx, "intro", words))}</p>
${help}${given.join("")}${error}
<form method="post" action="" autocomplete="off"${options.error ? ' aria-describedby="form-error"' : ""}>
<input type="hidden" name="csrf" value="${html(formToken)}">
${rows.join("\n")}
<button type="submit">${html(submit)}</button>
</form>
</main>`;
  // The form's answer redirects: to the return URL, or to the provider's sign-in, whose host may
  // hold an input ({shop}.myshopify.com). CSP's form-action applies to those redirects too.
  const targets = link.authorization.returnUrl ? [new URL(link.authorization.returnUrl).origin] : [];
  if (scheme.type === "oauth2") targets.push(sourceOf(scheme.authorizationUrl));
  return page(ctx, options.status ?? 200, text(ctx, "title", words), body, targets);
}

/** A page with a title and one message: done, or a link that does not work. */
export function messagePage(ctx: HandlerContext, status: number, title: string, message: string): Response {
  return page(ctx, status, title, `<main><h1>${html(title)}</h1><p>${html(message)}</p></main>`, []);
}

/**
 * The headers of every page answer: a strict CSP (only the nonced style, images from this origin,
 * forms posted to this origin or where the form redirects, no framing), no referrer, no caching.
 */
function page(ctx: HandlerContext, status: number, title: string, body: string, formTargets: string[]): Response {
  const nonce = toBase64(randomBytes(16));
  const document = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer"><meta name="color-scheme" content="light dark">
<title>${html(title)}</title>
<style nonce="${nonce}">${css(ctx.connectPage.accentColor)}</style>
</head><body>
${body}
</body></html>`;
  return new Response(document, {
    status,
    headers: {
      "content-type": "text/html; charset=utf-8",
      "content-security-policy": [
        "default-src 'none'",
        `style-src 'nonce-${nonce}'`,
        "img-src 'self'",
        `form-action 'self'${formTargets.map((o) => ` ${o}`).join("")}`,
        "frame-ancestors 'none'",
        "base-uri 'none'",
      ].join("; "),
      "referrer-policy": "no-referrer",
      "cache-control": "no-store",
      "x-content-type-options": "nosniff",
      "x-frame-options": "DENY",
    },
  });
}

/**
 * A CSP source for a URL template: its origin, with a placeholder leftmost label as `*`
 * (`https://*.myshopify.com`), or only its scheme when a placeholder is elsewhere in the host.
 */
function sourceOf(template: string): string {
  const [, scheme = "https", host = ""] = /^(https?):\/\/([^/?#]*)/.exec(template) ?? [];
  if (!host.includes("{")) return `${scheme}://${host}`;
  const wildcard = /^\{[A-Za-z0-9_]+\}(\.[^{}]+)$/.exec(host);
  return wildcard ? `${scheme}://*${wildcard[1]}` : `${scheme}:`;
}

/** The toolkit's icon when this handler serves it (a catalog icon), else a monogram: nothing is loaded from elsewhere. */
function icon(ctx: HandlerContext, link: OpenLink): string {
  const source = link.toolkit.icon;
  if (source.startsWith(CATALOG_ICON_PREFIX)) {
    const src = `${ctx.basePath}/icons/${encodeURIComponent(source.slice(CATALOG_ICON_PREFIX.length))}.svg`;
    return `<img class="icon" src="${html(src)}" alt="" width="48" height="48">`;
  }
  const letter = [...link.toolkit.name.trim()][0]?.toUpperCase() ?? "?";
  return `<span class="icon monogram" aria-hidden="true">${html(letter)}</span>`;
}

function css(accent: string): string {
  return `:root{--accent:${accent};--link:${accent};--bg:#fff;--fg:#1a1a1a;--muted:#555;--line:#8a8a8a;--error-bg:#fdecec;--error-fg:#8a1010;color-scheme:light dark}
@media (prefers-color-scheme:dark){:root{--bg:#15171a;--fg:#eceff3;--muted:#b4bac2;--line:#8b939d;--error-bg:#3a1416;--error-fg:#ffc9c9;--link:#9ec1ff}}
*{box-sizing:border-box}
body{margin:0;background:var(--bg);color:var(--fg);font:16px/1.5 system-ui,-apple-system,"Segoe UI",sans-serif}
main{max-width:30rem;margin:0 auto;padding:2rem 1rem 3rem}
header{display:flex;align-items:center;gap:.75rem}
h1{font-size:1.5rem;line-height:1.25;margin:0}
.icon{width:48px;height:48px;flex:none;border-radius:10px}
img.icon{background:#fff;padding:4px;border:1px solid var(--line)}
.monogram{display:inline-flex;align-items:center;justify-content:center;background:var(--accent);color:#fff;font-weight:700;font-size:1.5rem}
.scheme{color:var(--muted);margin:.75rem 0 0}
a{color:var(--link)}
.field{margin:1.25rem 0}
label{display:block;font-weight:600;margin-bottom:.25rem}
.hint{color:var(--muted);font-size:.875rem;margin:0 0 .375rem}
input{width:100%;font:inherit;padding:.625rem .75rem;border:1px solid var(--line);border-radius:6px;background:var(--bg);color:var(--fg)}
select{width:100%;font:inherit;padding:.625rem .75rem;border:1px solid var(--line);border-radius:6px;background:var(--bg);color:var(--fg)}
.optional{font-weight:400;color:var(--muted)}
input:focus-visible,select:focus-visible,button:focus-visible,a:focus-visible{outline:3px solid var(--accent);outline-offset:2px}
button{font:inherit;font-weight:600;width:100%;padding:.75rem 1rem;border:0;border-radius:6px;background:var(--accent);color:#fff;cursor:pointer}
.error{background:var(--error-bg);color:var(--error-fg);border-radius:6px;padding:.25rem 1rem;margin:1rem 0}
.given{margin:.5rem 0}`;
}
