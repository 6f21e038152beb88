import { checkConfig } from "../connections/config.js";
import { createConnection } from "../connections/create.js";
import type { HandlerContext } from "../context/context.js";
import { ToolsError } from "../core/errors.js";
import { credentialProblem, type OAuth2Scheme } from "../credentials/auth-schemes.js";
import { credentialFromFields } from "../credentials/fields.js";
import { isAllowedReturnUrl, startAuthorization } from "../oauth/start.js";
import { BodyTooLargeError, readBytes } from "../util/bytes.js";
import { sha256Hex } from "../util/encoding.js";
import { type ClosedLink, checkFormToken, formToken, type OpenLink, openConnectLink } from "./link.js";
import { type FormField, formFields, formPage, messagePage, text } from "./page.js";
import { verifyCredential } from "./verify.js";

/** Largest form body read, in bytes: every field at its longest fits well within. */
const MAX_FORM_BYTES = 32 * 1024;

/** A problem a person can fix on the page: shown above the form, which they may send again. */
class FormProblem extends Error {
  constructor(
    message: string,
    readonly status = 400,
  ) {
    super(message);
  }
}

/** `GET {basePath}/connect/{token}`: the form, or a page saying the link does not work. */
export async function showConnectPage(ctx: HandlerContext, token: string): Promise<Response> {
  const link = await openConnectLink(ctx, token);
  if (typeof link === "string") return closedPage(ctx, link);
  return formPage(ctx, link, await formToken(ctx, link));
}

/**
 * `POST {basePath}/connect/{token}`: checks the anti-forgery field and the typed values, verifies
 * the credential with the provider where the scheme can, then takes the link exactly once, stores
 * the connection encrypted and marks the authorization connected. A fixable problem shows the
 * form again with the message (never the typed secret) and leaves the link usable.
 */
export async function submitConnectPage(ctx: HandlerContext, token: string, request: Request): Promise<Response> {
  const link = await openConnectLink(ctx, token);
  if (typeof link === "string") return closedPage(ctx, link);
  const fields = formFields(ctx, link);
  let form: URLSearchParams;
  try {
    form = await readForm(request);
  } catch (error) {
    if (!(error instanceof FormProblem)) throw error;
    return formPage(ctx, link, await formToken(ctx, link), { status: error.status, error: error.message });
  }
  if (!(await checkFormToken(ctx, link, form.get("csrf") ?? ""))) {
    return formPage(ctx, link, await formToken(ctx, link), { status: 403, error: text(ctx, "staleForm") });
  }
  const values: Record<string, string> = {};
  for (const field of fields) values[field.name] = form.get(field.name) ?? "";
  const shown = Object.fromEntries(fields.filter((f) => !f.secret).map((f) => [f.name, values[f.name]!.slice(0, f.max)]));
  try {
    return await connect(ctx, link, fields, values);
  } catch (error) {
    if (error instanceof FormProblem)
      return formPage(ctx, link, await formToken(ctx, link), { status: error.status, error: error.message, values: shown });
    if (error instanceof ToolsError && (error.code === "invalid_request" || error.code === "unavailable")) {
      const status = error.code === "unavailable" ? 503 : 400;
      return formPage(ctx, link, await formToken(ctx, link), { status, error: error.message, values: shown });
    }
    throw error;
  }
}

async function connect(ctx: HandlerContext, link: OpenLink, fields: FormField[], values: Record<string, string>): Promise<Response> {
  for (const field of fields) {
    const value = values[field.name]!;
    const words = { field: field.label.toLowerCase(), max: String(field.max) };
    if (value === "" && !field.optional) throw new FormProblem(text(ctx, "required", words));
    if (value.length > field.max) throw new FormProblem(text(ctx, "tooLong", words));
    if (/[\x00-\x1f\x7f]/.test(value)) throw new FormProblem(text(ctx, "lineBreak", words));
  }
  const typed = Object.fromEntries(
    fields.filter((f) => f.name.startsWith("input.")).map((f) => [f.name.slice("input.".length), values[f.name]!.trim()]),
  );
  const { toolkit, scheme } = link;
  const config = checkConfig(toolkit, scheme, { ...link.config, ...typed });
  if (scheme.type === "oauth2") return continueToProvider(ctx, link, scheme, config);
  const credential = credentialFromFields(scheme, values);
  const problem = credential && credentialProblem(scheme, credential);
  if (problem) {
    const label = fields.find((f) => f.name === problem.field)?.label ?? problem.field;
    throw new FormProblem(`The ${label.toLowerCase()} ${problem.reason}.`);
  }
  if (!credential) throw new FormProblem(text(ctx, "invalid"));
  const account = await verifyCredential(ctx, toolkit, scheme, credential, config);

  // Taken exactly once: of two concurrent submits, one connects and the other sees a used link.
  const authorization = await ctx.store.consumeAuthorization(await sha256Hex(link.state), new Date());
  if (!authorization) return closedPage(ctx, "used");
  let connectionId: string;
  try {
    const record = await createConnection(ctx, {
      workspaceId: authorization.workspaceId,
      agentId: authorization.agentId,
      toolkit,
      label: authorization.label,
      remoteUser: account.remoteUser ?? link.remoteUser ?? "",
      credential,
      params: { ...config, ...account.config },
    });
    connectionId = record.id;
  } catch (error) {
    const message = error instanceof ToolsError ? error.message : "The connection could not be stored. Ask for a new link.";
    await ctx.store.updateAuthorization(authorization.id, { status: "failed", error: message });
    ctx.emit("auth.failed", { authorizationId: authorization.id, toolkit: toolkit.slug, agentId: authorization.agentId, error: message });
    throw error;
  }
  await ctx.store.updateAuthorization(authorization.id, { status: "connected", connectionId });
  ctx.emit("auth.completed", { authorizationId: authorization.id, toolkit: toolkit.slug, agentId: authorization.agentId, connectionId });
  // As the OAuth callback: the return URL was checked when the link was made, and again now.
  if (authorization.returnUrl && isAllowedReturnUrl(ctx, authorization.returnUrl)) {
    const target = new URL(authorization.returnUrl);
    target.searchParams.set("status", "connected");
    target.searchParams.set("connection_id", connectionId);
    return new Response(null, {
      status: 303,
      headers: {
        location: target.href,
        "cache-control": "no-store",
        "referrer-policy": "no-referrer",
        "x-content-type-options": "nosniff",
      },
    });
  }
  return messagePage(ctx, 200, text(ctx, "doneTitle", { toolkit: toolkit.name }), text(ctx, "done", { toolkit: toolkit.name }));
}

/**
 * The inputs are known: the link is taken once and an OAuth sign-in starts with them, linked to
 * it so that `GET /auth/{authorizationId}` of the link reports the sign-in's outcome.
 */
async function continueToProvider(
  ctx: HandlerContext,
  link: OpenLink,
  scheme: OAuth2Scheme,
  config: Record<string, string>,
): Promise<Response> {
  const authorization = await ctx.store.consumeAuthorization(await sha256Hex(link.state), new Date());
  if (!authorization) return closedPage(ctx, "used");
  const started = await startAuthorization(ctx, authorization, link.toolkit, scheme, {
    label: authorization.label,
    returnUrl: authorization.returnUrl,
    config,
    linkedTo: authorization.id,
  });
  return new Response(null, {
    status: 303,
    headers: {
      location: started.authorizationUrl,
      "cache-control": "no-store",
      "referrer-policy": "no-referrer",
      "x-content-type-options": "nosniff",
    },
  });
}

function closedPage(ctx: HandlerContext, why: ClosedLink): Response {
  const message = why === "unknown" ? text(ctx, "invalid") : text(ctx, why);
  return messagePage(ctx, why === "unknown" ? 404 : 410, text(ctx, "invalidTitle"), message);
}

/** The urlencoded form body, read up to {@link MAX_FORM_BYTES}. */
async function readForm(request: Request): Promise<URLSearchParams> {
  const type = request.headers.get("content-type") ?? "";
  if (!/^application\/x-www-form-urlencoded\b/i.test(type)) throw new FormProblem("Send the form from the page.", 415);
  let bytes: Uint8Array;
  try {
    bytes = await readBytes(request.body, MAX_FORM_BYTES);
  } catch (error) {
    if (error instanceof BodyTooLargeError)
      throw new FormProblem(`What was sent is larger than ${MAX_FORM_BYTES} bytes; check the values.`, 413);
    throw new FormProblem("The form arrived incomplete; send it again.");
  }
  try {
    return new URLSearchParams(new TextDecoder("utf-8", { fatal: true }).decode(bytes));
  } catch {
    throw new FormProblem("The form is not valid UTF-8; send it again.");
  }
}
