/**
 * What `auth <toolkit>` sends, read from the toolkit's description rather than known per kind of
 * credential: the way to connect (`--mode`, else the first whose fields the flags fit), each of its
 * fields (a flag, stdin for one secret, or a prompt that hides secrets), and on a terminal the
 * inputs still missing (an enum as a numbered choice, a default offered).
 */
import type { ToolkitDetails } from "../client/types.js";
import { CliError, EXIT } from "./errors.js";
import { note } from "./output.js";
import { canPrompt, promptVisible, readSecret } from "./prompt.js";

type Mode = ToolkitDetails["authModes"][number];
type Input = ToolkitDetails["inputs"][number];

/** The fields servers before mode ids took for each type (their answers list no `fields`). */
const EARLIER_FIELDS: Record<string, Mode["fields"]> = {
  apiKey: [{ name: "apiKey", label: "API key", secret: true, optional: false }],
  bearer: [{ name: "token", label: "Token", secret: true, optional: false }],
  basic: [
    { name: "username", label: "User name", secret: false, optional: false },
    { name: "password", label: "Password", secret: true, optional: false },
  ],
};

/**
 * The toolkit's ways to connect as this CLI reads them, also from a server older than mode ids and
 * fields (which answered `authScheme` alone, or modes without `mode` and `fields`).
 */
export function modesOf(toolkit: Partial<Pick<ToolkitDetails, "authModes" | "authScheme">>): Mode[] {
  const modes =
    (toolkit.authModes as Array<Partial<Mode> & Pick<Mode, "type">> | undefined) ??
    (toolkit.authScheme ? [{ type: toolkit.authScheme as Mode["type"] }] : []);
  return modes.map(
    (m) => ({ ...m, mode: m.mode ?? m.type, label: m.label ?? m.type, fields: m.fields ?? EARLIER_FIELDS[m.type] ?? [] }) as Mode,
  );
}

/** The way to connect: the one `--mode` names, else the first whose fields hold every field given, else the first. */
export function chooseMode(
  toolkit: Pick<ToolkitDetails, "name"> & Partial<Pick<ToolkitDetails, "authModes" | "authScheme">>,
  mode: string | undefined,
  given: readonly string[],
): Mode {
  const modes = modesOf(toolkit);
  if (modes.length === 0) throw new CliError(`${toolkit.name}: the server describes no way to connect it.`);
  if (mode !== undefined) {
    const chosen = modes.find((m) => m.mode === mode);
    if (!chosen) {
      const ids = modes.map((m) => m.mode).join(", ");
      throw new CliError(`${toolkit.name} has no way to connect called "${mode}": use --mode with one of ${ids}.`, EXIT.usage);
    }
    return chosen;
  }
  const fits = (m: Mode) => given.length > 0 && given.every((name) => m.fields.some((f) => f.name === name));
  return modes.find(fits) ?? modes[0]!;
}

/**
 * The mode's credentials: the values given as flags, the others read. At most one secret comes from
 * stdin when it is not a terminal; any other missing field then stops with the flag that gives it.
 */
export async function readFields(
  toolkit: Pick<ToolkitDetails, "name">,
  mode: Mode,
  given: Record<string, string>,
  flagOf: (field: { name: string }) => string,
): Promise<Record<string, string>> {
  const values: Record<string, string> = {};
  for (const [name, value] of Object.entries(given)) {
    if (!mode.fields.some((f) => f.name === name))
      throw new CliError(`${toolkit.name}'s way "${mode.mode}" takes no ${flagOf({ name })}; its fields: ${fieldNames(mode)}.`, EXIT.usage);
    values[name] = value;
  }
  const missing = mode.fields.filter((f) => values[f.name] === undefined && !f.optional);
  const fromStdin = !canPrompt() && missing.length === 1 && missing[0]!.secret;
  for (const field of missing) {
    const what = `the ${field.label.toLowerCase()} for ${toolkit.name}`;
    if (field.secret && (canPrompt() || fromStdin)) values[field.name] = await readSecret(what, `${field.label} for ${toolkit.name}: `);
    else if (canPrompt()) values[field.name] = await promptVisible(`${field.label} for ${toolkit.name}: `);
    else throw new CliError(`${toolkit.name} connects with ${fieldNames(mode)}: pass ${flagOf(field)}.`, EXIT.usage);
  }
  return values;
}

function fieldNames(mode: Mode): string {
  return mode.fields.map((f) => f.label.toLowerCase()).join(", ");
}

/**
 * On a terminal, asks for each input the command did not give and a person types: its default
 * offered (Enter keeps it), an enum as a numbered list. Off a terminal nothing is asked: the
 * server answers with what is missing, or a connect link whose page asks for it.
 */
export async function askInputs(inputs: readonly Input[] = [], given: Record<string, string>): Promise<Record<string, string>> {
  const config = { ...given };
  if (!canPrompt()) return config;
  for (const input of inputs) {
    if (input.filled || config[input.name] !== undefined) continue;
    if (input.optional && input.default === undefined) continue;
    config[input.name] = await askInput(input);
  }
  return config;
}

/** One input's value from the terminal. */
async function askInput(input: Input): Promise<string> {
  const offered = input.default === undefined ? "" : ` [${input.default}]`;
  if (input.type !== "enum" || !input.values) {
    const answer = await promptVisible(`${input.label}${offered}: `);
    return answer === "" && input.default !== undefined ? input.default : answer;
  }
  const values = input.values;
  note(`${input.label}:${values.map((value, i) => `\n  ${i + 1}. ${value}`).join("")}`);
  for (;;) {
    const answer = await promptVisible(`Choose 1-${values.length}${offered}: `);
    const chosen = pickChoice(values, answer, input.default);
    if (chosen !== null) return chosen;
    note(`Type a number from 1 to ${values.length}, or one of: ${values.join(", ")}.`);
  }
}

/** The value an answer picks from a numbered list: its number, the value itself, or the default for an empty answer; null otherwise. */
export function pickChoice(values: readonly string[], answer: string, fallback?: string): string | null {
  const text = answer.trim();
  if (text === "") return fallback ?? null;
  if (/^\d+$/.test(text)) return values[Number(text) - 1] ?? null;
  return values.includes(text) ? text : null;
}
