/**
 * A toolkit's ways to connect, in the CLI's words: each auth mode as the `auth` command that uses
 * it, and the inputs as `--param`. `toolkit <slug>` lists them all; `auth` names the other ways
 * when the first cannot be used (an OAuth client the server's operator has not set).
 */
import type { ToolkitDetails as Toolkit } from "../client/types.js";

type Mode = Toolkit["authModes"][number];
type Input = Toolkit["inputs"][number];

/** The flags of `auth` that give the fields it has its own flag for; any other field is `--credential name=VALUE`. */
const FIELD_FLAGS: Record<string, string> = {
  apiKey: "--api-key KEY",
  token: "--token TOKEN",
  username: "--username NAME",
  password: "--password PASSWORD",
};

/** The `auth` flag that gives a mode's field. */
export function fieldFlag(field: { name: string }): string {
  return FIELD_FLAGS[field.name] ?? `--credential ${field.name}=VALUE`;
}

/** Whether a label says no more than the mode's name ("API key" for an API key), letter case and spaces aside. */
function sameWords(label: string, name: string): boolean {
  const plain = (text: string) => text.toLowerCase().replace(/\s+/g, "");
  return plain(label) === plain(name);
}

/** What each mode is called for people, and with its article. */
const MODE_NAMES: Record<string, [string, string]> = {
  oauth2: ["OAuth", "OAuth"],
  apiKey: ["API key", "an API key"],
  bearer: ["token", "a token"],
  basic: ["user name and password", "a user name and password"],
  none: ["none", "none"],
};

/** The `auth` command that connects `slug` with `mode`, with the `--param` each input needs. */
export function authCommand(slug: string, mode: Mode, inputs: readonly Input[]): string {
  const params = inputs
    .filter((input) => !input.optional && !input.filled)
    .map((input) => ` --param ${input.name}=${input.example ?? input.values?.[0] ?? "VALUE"}`)
    .join("");
  // A mode whose id is not its type is chosen by name; the others the server finds from the fields.
  const chosen = mode.mode !== mode.type ? ` --mode ${mode.mode}` : "";
  if (mode.type === "oauth2") return `tools-proxy auth ${slug}${chosen}${params} --open`;
  if (mode.type === "none") return "execute its tools directly, no connection needed";
  const flags = mode.fields.map((field) => ` ${fieldFlag(field)}`).join("");
  return flags ? `tools-proxy auth ${slug}${chosen}${params}${flags}` : `tools-proxy auth ${slug}${chosen}${params} --link`;
}

/**
 * One line per way to connect: its kind and label, whether an OAuth client is configured, where
 * the provider shows the credential, and the command. `toolkit <slug>` prints them under "auth".
 */
export function describeModes(toolkit: Pick<Toolkit, "slug" | "authModes" | "inputs">): string[] {
  return toolkit.authModes.map((mode) => {
    const name = MODE_NAMES[mode.type]?.[0] ?? mode.type;
    const what = mode.label && !sameWords(mode.label, name) ? `${name} (${mode.label})` : name;
    const facts = [
      ...(mode.type === "oauth2" ? [mode.configured === false ? "not configured on this server" : "configured"] : []),
      ...(mode.helpUrl ? [`get it at ${mode.helpUrl}`] : []),
    ];
    const command = authCommand(toolkit.slug, mode, toolkit.inputs);
    return `${what}${facts.length ? `, ${facts.join(", ")}` : ""}: ${command}`;
  });
}

/**
 * One line per input a person gives: its name, label, description, example, an enum's values and a
 * default. An input the provider fills is not given, so not listed.
 */
export function describeInputs(inputs: readonly Input[]): string[] {
  return inputs
    .filter((input) => !input.filled)
    .map((input) => {
      const about = [
        input.description,
        input.example ? `e.g. ${input.example}` : undefined,
        input.values ? `one of ${input.values.join(", ")}` : undefined,
        input.default !== undefined ? `default ${input.default}` : input.optional ? "optional" : undefined,
      ]
        .filter(Boolean)
        .join("; ");
      return `--param ${input.name}=... (${input.label}${about ? `: ${about}` : ""})`;
    });
}

/**
 * When the toolkit's OAuth cannot start because its client is not configured, the sentence that
 * names its other ways to connect ("Or connect with a token: tools-proxy auth slack --token
 * TOKEN."); null when it has none, or its OAuth is configured.
 */
export function otherWaysToConnect(toolkit: Pick<Toolkit, "slug" | "authModes" | "inputs">): string | null {
  const oauth = toolkit.authModes.find((mode) => mode.type === "oauth2");
  if (oauth?.configured !== false) return null; // no OAuth mode, or its client is set
  const others = toolkit.authModes.filter((mode) => mode.type !== "oauth2" && mode.type !== "none");
  if (others.length === 0) return null;
  const ways = others.map((mode) => {
    const name = MODE_NAMES[mode.type] ?? [mode.type, mode.type];
    const what = `${name[1]}${mode.label && !sameWords(mode.label, name[0]) ? ` (${mode.label})` : ""}`;
    return `with ${what}: ${authCommand(toolkit.slug, mode, toolkit.inputs)}`;
  });
  return `Or connect ${ways.join("; or ")}.`;
}
