/**
 * Tool names every framework accepts: `^[a-zA-Z_][a-zA-Z0-9_-]{0,63}$`. That is the common part of
 * OpenAI's function names and Anthropic's tool names (`^[a-zA-Z0-9_-]{1,64}$`) and Gemini's (which
 * must start with a letter or an underscore), so one name works with every provider behind the
 * AI SDK, LangChain or the Agents SDK.
 */
export const TOOL_NAME_PATTERN = /^[a-zA-Z_][a-zA-Z0-9_-]{0,63}$/;

const MAX = 64;

/**
 * Gives each slug a valid name, unique among `taken`: characters outside `[a-zA-Z0-9_-]` become
 * `_`, a leading digit or dash gets a `_` before it, the name is cut to 64 characters, and a
 * clash gets `_2`, `_3`... A slug that is already a valid, free name is kept as it is.
 */
export function toolNameFor(slug: string, taken: ReadonlySet<string>): string {
  let base = slug.replace(/[^a-zA-Z0-9_-]/g, "_");
  if (!/^[a-zA-Z_]/.test(base)) base = `_${base}`;
  base = base.slice(0, MAX);
  if (!taken.has(base)) return base;
  for (let n = 2; ; n++) {
    const suffix = `_${n}`;
    const candidate = `${base.slice(0, MAX - suffix.length)}${suffix}`;
    if (!taken.has(candidate)) return candidate;
  }
}
