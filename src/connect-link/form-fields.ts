/**
 * The connect form's fields, made from the way to connect's `fieldsOf` and the toolkit's inputs,
 * never from the kind of credential: a new scheme type with new fields shows without a change
 * here. An enum input is a `<select>`, an input with a default shows it chosen, an optional field
 * is not required.
 */
import { neededInputs } from "../connections/config.js";
import type { ConnectTextName } from "../context/connect-page.js";
import type { HandlerContext } from "../context/context.js";
import { fieldsOf } from "../credentials/fields.js";
import { type ConnectionInput, describeRule, inputType, isOptional, TEXT_MAX_LENGTH } from "../toolkits/inputs.js";
import type { OpenLink } from "./link.js";
import { html, text } from "./words.js";

/** One field of the connect form. */
export interface FormField {
  /** The form field's name: a field of the mode (`apiKey`, `token`, ...), or `input.<config name>`. */
  name: string;
  label: string;
  /** Longest accepted value, in characters. */
  max: number;
  secret: boolean;
  /** Whether it may be left empty (an input with a default or optional, a mode's optional field). */
  optional: boolean;
  hint?: string;
  autocomplete: string;
  /** An enum input's values: the field is a choice among them. */
  choices?: string[];
  /** The value shown before the person types (an input's default). */
  initial?: string;
  /** An origin input: shown as a URL field. */
  url?: boolean;
  /** Several lines: a text area, unless the field is secret (a key file stays in a password field). */
  multiline?: boolean;
}

/** Longest value of an input, by kind. */
function maxLength(input: ConnectionInput | undefined): number {
  switch (input && inputType(input)) {
    case "host":
    case "enum":
      return 253;
    case "origin":
      return 2048;
    case "text":
      return input!.maxLength ?? TEXT_MAX_LENGTH.default;
    default:
      return 63;
  }
}

/** What the form asks for this link: the mode's fields, then the inputs the agent did not give. */
export function formFields(ctx: HandlerContext, link: OpenLink): FormField[] {
  // A field the page's texts name (apiKey, token, username, password) takes the deployer's words.
  const texts = ctx.connectPage.texts as Record<string, string | undefined>;
  const fields: FormField[] = fieldsOf(link.scheme).map((f) => ({
    name: f.name,
    label: Object.hasOwn(texts, f.name) ? text(ctx, f.name as ConnectTextName, { toolkit: link.toolkit.name }) : f.label,
    max: f.maxLength,
    secret: f.secret,
    optional: f.optional,
    autocomplete: f.secret ? (f.name === "password" ? "current-password" : "off") : f.name === "username" ? "username" : "off",
    ...(f.multiline ? { multiline: true } : {}),
  }));
  for (const { name, input } of neededInputs(link.toolkit, link.scheme)) {
    if (link.config[name] !== undefined) continue;
    const choices = input && inputType(input) === "enum" ? input.values : undefined;
    const hint = [input?.description, choices ? undefined : `${describeRule(input)}.`].filter(Boolean).join(" ");
    fields.push({
      name: `input.${name}`,
      label: input?.label ?? name,
      max: maxLength(input),
      secret: false,
      optional: input !== undefined && isOptional(input),
      ...(hint ? { hint } : {}),
      autocomplete: "off",
      ...(choices ? { choices: [...choices] } : {}),
      ...(input?.default !== undefined ? { initial: input.default } : {}),
      ...(input && inputType(input) === "origin" ? { url: true } : {}),
    });
  }
  return fields;
}

/** One field's row: its label, hint and control, with the value typed before (never a secret's) or its initial value. */
export function fieldRow(ctx: HandlerContext, field: FormField, typed: string | undefined, invalid: boolean): string {
  const id = `f-${field.name.replace(/[^A-Za-z0-9_-]/g, "-")}`;
  const value = field.secret ? "" : (typed ?? field.initial ?? "");
  const hint = field.hint ? `<p class="hint" id="${id}-hint">${html(field.hint)}</p>` : "";
  // A field with a default shows it, so it is not marked optional; a choice with one always has a value.
  const blank = field.optional && field.initial === undefined;
  const optional = blank ? ` <span class="optional">(${html(text(ctx, "optional"))})</span>` : "";
  const required = blank || (field.optional && !field.choices) ? "" : " required";
  const described = `${field.hint ? ` aria-describedby="${id}-hint"` : ""}${invalid ? ' aria-invalid="true"' : ""}`;
  // A secret that spans lines (a key file) stays hidden: a password field, whose paste drops the
  // line breaks (JSON keeps its meaning without them).
  const control =
    field.multiline && !field.secret
      ? `<textarea id="${id}" name="${html(field.name)}"${required} maxlength="${field.max}" rows="8" autocomplete="off" spellcheck="false" autocapitalize="off"${described}>${html(value)}</textarea>`
      : field.choices
        ? `<select id="${id}" name="${html(field.name)}"${required}${described}>${blank ? '<option value=""></option>' : ""}${field.choices
            .map((choice) => `<option value="${html(choice)}"${choice === value ? " selected" : ""}>${html(choice)}</option>`)
            .join("")}</select>`
        : `<input id="${id}" name="${html(field.name)}" type="${field.secret ? "password" : field.url ? "url" : "text"}"${required} maxlength="${field.max}" autocomplete="${field.autocomplete}" spellcheck="false" autocapitalize="off"${described} value="${html(value)}">`;
  return `<div class="field"><label for="${id}">${html(field.label)}${optional}</label>${hint}${control}</div>`;
}
