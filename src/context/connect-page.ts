/**
 * The connect page's texts, each replaceable through the handler's `connectPage.texts` option.
 * `{toolkit}` is replaced by the toolkit's name and `{app}` by `connectPage.appName`.
 */
export const DEFAULT_CONNECT_TEXTS = {
  title: "Connect {toolkit}",
  intro:
    "{app} asks you to connect your {toolkit} account. What you enter is stored encrypted; the agent that sent you this link never sees it.",
  apiKey: "API key",
  token: "Access token",
  username: "Username",
  password: "Password",
  help: "Where {toolkit} shows it",
  submit: "Connect",
  continue: "Continue to {toolkit}",
  doneTitle: "Connected",
  done: "Your {toolkit} account is connected. You can close this window.",
  invalidTitle: "This link does not work",
  invalid: "This connect link is not valid. Check that it was copied whole, or ask for a new one.",
  expired: "This connect link has expired. Ask for a new one.",
  used: "This connect link was already used. Ask for a new one if you need to connect again.",
  staleForm: "This form is out of date or was changed. Reload the page and try again.",
  required: "Enter the {field}.",
  tooLong: "The {field} is too long: at most {max} characters.",
  lineBreak: "The {field} contains a line break or a control character. Paste it again without them.",
  optional: "optional",
};

/** The name of one replaceable text. */
export type ConnectTextName = keyof typeof DEFAULT_CONNECT_TEXTS;

/** The connect page's look and words, resolved from the `connectPage` option. */
export interface ConnectPageSettings {
  /** The embedding app's name, shown in the page (`{app}`). */
  appName: string;
  /** The colour of the button and links, `#rrggbb`. */
  accentColor: string;
  texts: Record<ConnectTextName, string>;
}

/** The settings from the resolved `connectPage` option: texts it does not replace keep their defaults. */
export function connectPageSettings(option: {
  appName: string;
  accentColor: string;
  texts?: Partial<Record<ConnectTextName, string | undefined>> | undefined;
}): ConnectPageSettings {
  const texts = { ...DEFAULT_CONNECT_TEXTS };
  for (const [name, value] of Object.entries(option.texts ?? {})) if (value !== undefined) texts[name as ConnectTextName] = value;
  return { appName: option.appName, accentColor: option.accentColor, texts };
}
