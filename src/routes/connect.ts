import { showConnectPage, submitConnectPage } from "../connect-link/submit.js";
import { defineRoute, type Route } from "./route.js";

const page = { description: "The connect page (HTML).", contentType: "text/html" };
const closed = { description: "The link is unknown (404), or expired or used (410): an HTML page that says so.", contentType: "text/html" };

/**
 * The connect page a person opens from a connect link (`POST /auth` without credentials): public,
 * because the person has no API key; the random token in the path is the capability.
 */
export const connectRoutes: Route[] = [
  defineRoute({
    method: "GET",
    path: "/connect/:token",
    summary: "The connect page of a connect link: a form for the toolkit's credential (opened by a person's browser).",
    public: true,
    responses: { 200: page, 404: closed, 410: closed },
    async handle({ params }, ctx) {
      return showConnectPage(ctx, params.token);
    },
  }),
  defineRoute({
    method: "POST",
    path: "/connect/:token",
    summary: "The connect page's form: connects, then 303 to the returnUrl or a done page; a fixable problem shows the form again.",
    public: true,
    requestBody: {
      contentType: "application/x-www-form-urlencoded",
      schema: {
        type: "object",
        properties: {
          csrf: { type: "string", description: "The form's anti-forgery field, as the page sent it." },
          apiKey: { type: "string" },
          token: { type: "string" },
          username: { type: "string" },
          password: { type: "string" },
        },
        additionalProperties: { type: "string", description: "input.<name>: a connection input the page asks for." },
      },
    },
    responses: {
      200: { description: "Connected, without a returnUrl: a done page.", contentType: "text/html" },
      303: { description: "Connected: to the returnUrl, with status=connected&connection_id=..." },
      400: { description: "A value to fix: the form again, with the message.", contentType: "text/html" },
      403: { description: "The anti-forgery field does not match: the form again.", contentType: "text/html" },
      404: closed,
      410: closed,
    },
    async handle({ params, request }, ctx) {
      return submitConnectPage(ctx, params.token, request);
    },
  }),
];
