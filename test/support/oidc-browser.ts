/**
 * Driving the OIDC test fixture's own sign-in and consent pages (oidc-provider's dev interactions,
 * see `test/support/oidc-server.ts`) in a real headless Chromium via playwright-core.
 *
 * ```ts
 * if (!chromiumAvailable) ... skip, with CHROMIUM_MISSING as the reason
 * const browser = await launchChromium();
 * const context = await browser.newContext();
 * await keepBrowserLocal(context);
 * const page = await context.newPage();
 * await page.goto(authorizationUrl);
 * const landedOn = await signInAndConsent(page, { login: "alice" });
 * await browser.close();
 * ```
 */
import { existsSync } from "node:fs";
import { type Browser, type BrowserContext, chromium, type Page, type Request } from "playwright-core";

/** Debian's chromium package. */
export const CHROMIUM_PATH = "/usr/bin/chromium";

/** Flags for a quiet, offline, sandbox-less headless run (containers have no user namespaces). */
export const CHROMIUM_ARGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-background-networking",
  "--disable-quic",
  "--no-first-run",
  "--disable-component-update",
  "--disable-sync",
];

/** Whether {@link CHROMIUM_PATH} exists; browser tests skip otherwise. */
export const chromiumAvailable = existsSync(CHROMIUM_PATH);

/** A skip reason for test names: `it.skipIf(!chromiumAvailable)(chromiumAvailable ? name : CHROMIUM_MISSING, ...)`. */
export const CHROMIUM_MISSING = `skipped: Chromium is not installed at ${CHROMIUM_PATH} (apt-get install chromium)`;

/** Launches Debian's Chromium headless with {@link CHROMIUM_ARGS}. */
export function launchChromium(): Promise<Browser> {
  return chromium.launch({ executablePath: CHROMIUM_PATH, args: CHROMIUM_ARGS, headless: true });
}

/**
 * Aborts every request the context makes to a host other than a loopback address (the provider's
 * pages import a Google font, for instance), so tests never wait on the network.
 * `extraHosts` lists other host names to let through.
 */
export async function keepBrowserLocal(context: BrowserContext, extraHosts: string[] = []): Promise<void> {
  const allowed = new Set(["127.0.0.1", "localhost", "[::1]", ...extraHosts]);
  await context.route(
    (url) => !allowed.has(url.hostname),
    (route) => route.abort("blockedbyclient"),
  );
}

/** Options of {@link signInAndConsent}. */
export interface SignInOptions {
  /** Login name typed into the sign-in form (any name is accepted). Default `"alice"`. */
  login?: string;
  /** Password typed into the sign-in form (not checked). Default `"secret"`. */
  password?: string;
  /** Click "Continue" on the consent page, or its "[ Cancel ]" link (→ `error=access_denied`). Default `"approve"`. */
  decision?: "approve" | "deny";
  /** Per-step timeout in ms. Default 10 000. */
  timeoutMs?: number;
}

/**
 * On a page that is at, or navigating to, the authorization server's sign-in page: fills in and
 * submits the login form, then approves (or cancels) the consent page by clicking, like a user.
 * Resolves with the first URL outside the authorization server's origin that the page navigates
 * to — normally the client's `redirect_uri` with `code`, `state` and `iss` (or `error`) — once
 * that request has been answered (or has failed to connect). Whatever it answered (e.g. a 303 from
 * the callback handler, then the return page) is left for the caller to inspect/wait for.
 *
 * If the browser context is already signed in, the sign-in step is skipped; if the authorization
 * server skips consent (an earlier grant in the same context), the consent step is skipped too.
 */
export async function signInAndConsent(page: Page, options: SignInOptions = {}): Promise<URL> {
  const timeout = options.timeoutMs ?? 10_000;
  const loginForm = page.locator('form:has(input[name="prompt"][value="login"])');
  const consentForm = page.locator('form:has(input[name="prompt"][value="consent"])');
  // Already signed in (same browser context) means the consent page comes first.
  await loginForm.or(consentForm).first().waitFor({ state: "attached", timeout });
  const asOrigin = new URL(page.url()).origin;

  // Watch for the main frame's first navigation away from the authorization server (normally the
  // 303 to the redirect_uri). Resolves once that request has been answered — or has failed, e.g. an
  // unreachable redirect_uri — so the URL is known either way.
  let stopWatching = () => {};
  const leftAuthorizationServer = new Promise<URL>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`signInAndConsent: the browser did not leave ${asOrigin}`)), timeout * 3);
    const onRequest = (request: Request) => {
      if (!request.isNavigationRequest() || request.frame() !== page.mainFrame()) return;
      const url = new URL(request.url());
      if (url.origin === asOrigin) return;
      stopWatching();
      void request
        .response()
        .catch(() => null)
        .then(() => resolve(url));
    };
    stopWatching = () => {
      clearTimeout(timer);
      page.off("request", onRequest);
    };
    page.on("request", onRequest);
  });
  // Avoid an unhandled rejection if we fail before awaiting it.
  leftAuthorizationServer.catch(() => undefined);

  try {
    if ((await loginForm.count()) > 0) {
      await loginForm.locator('input[name="login"]').fill(options.login ?? "alice");
      await loginForm.locator('input[name="password"]').fill(options.password ?? "secret");
      await loginForm.getByRole("button", { name: "Sign-in" }).click();
    }
    const step = await Promise.race([
      consentForm.waitFor({ state: "attached", timeout }).then(() => "consent" as const),
      leftAuthorizationServer.then(() => "left" as const),
    ]);
    if (step === "consent") {
      if ((options.decision ?? "approve") === "approve") {
        await consentForm.getByRole("button", { name: "Continue" }).click();
      } else {
        await page.getByRole("link", { name: "[ Cancel ]" }).click();
      }
    }
    return await leftAuthorizationServer;
  } finally {
    stopWatching();
  }
}
