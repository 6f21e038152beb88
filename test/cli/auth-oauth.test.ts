/**
 * `tools-proxy auth` for an OAuth toolkit, through the built bin against a `serve` process whose
 * toolkit signs in at a real OpenID Connect server (node-oidc-provider): the test completes the
 * sign-in while the command waits, and the command then reports the connection. Also a denied
 * consent (exit 1), --open with $BROWSER and --no-wait, `auth status --wait`, and Ctrl+C (exit 130).
 */
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type OidcServer, startOidcServer } from "../support/oidc-server.js";
import { callApi, missingBuild, type ServeProcess, startServe, writeNotesToolkit } from "../support/serve-process.js";
import { cliEnv, configHome, runCli, spawnCli, waitForOutput } from "./run.js";

const PUBLIC_URL = "http://tools.test"; // never contacted: the fixture hands the callback URL back

describe.skipIf(missingBuild)(
  missingBuild ? `auth with OAuth (skipped: ${missingBuild})` : "tools-proxy auth with an OAuth toolkit",
  () => {
    let as: OidcServer;
    let serve: ServeProcess;
    let dir: string;
    let env: NodeJS.ProcessEnv;

    /** The browser's part: sign in and consent at the provider, then follow its redirect to the server's callback. */
    async function signIn(authorizationUrl: string, decision: "approve" | "deny" = "approve"): Promise<void> {
      const callbackUrl = await as.authorizeWithFetch(authorizationUrl, { decision });
      const callback = await fetch(`${serve.origin}${callbackUrl.pathname}${callbackUrl.search}`, { redirect: "manual" });
      expect(callback.status).toBeLessThan(500);
      await callback.body?.cancel();
    }

    beforeAll(async () => {
      as = await startOidcServer({ redirectUris: [`${PUBLIC_URL}/proxy/tools/auth/callback`] });
      dir = mkdtempSync(join(tmpdir(), "tools-proxy-cli-oauth-"));
      const notes = writeNotesToolkit(dir, as);
      serve = await startServe(["--memory", "--no-demo", "--public-url", PUBLIC_URL, "--toolkits", notes], {
        NOTES_CLIENT_SECRET: as.clientSecret,
      });
      env = cliEnv(configHome(), { SVC_WORKSPACE_API_URL: serve.origin, SVC_WORKSPACE_ID: "local", SVC_WORKSPACE_API_KEY: serve.key! });
    });

    afterAll(async () => {
      await serve?.stop();
      await as?.close();
      if (dir) rmSync(dir, { recursive: true, force: true });
    });

    it("prints the authorization URL, waits, and reports the connection once the sign-in completes", async () => {
      const child = spawnCli(["auth", "notes", "--json", "--interval", "100"], env);
      await waitForOutput(child, (o) => o.stdout.includes("\n"));
      const started = JSON.parse(child.output.stdout.split("\n")[0]!);
      expect(started).toEqual({
        authorizationId: expect.any(String),
        authorizationUrl: expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+\/auth\?/),
        expiresAt: expect.any(String),
      });
      // The command is polling: the authorization is pending on the server, and the process still runs.
      expect(await (await callApi(serve.api, serve.key!, `/auth/${started.authorizationId}`)).json()).toEqual({ status: "pending" });
      expect(child.exitCode).toBeNull();

      await signIn(started.authorizationUrl);
      const result = await child.exited;
      expect(result.status, result.stderr).toBe(0);
      const lines = result.stdout
        .trim()
        .split("\n")
        .map((line) => JSON.parse(line));
      expect(lines).toHaveLength(2);
      expect(lines[1]).toEqual({ status: "connected", connectionId: expect.stringMatching(/^conn_/) });

      const { connections } = await (await callApi(serve.api, serve.key!, "/connections")).json();
      expect(connections).toEqual([
        expect.objectContaining({ id: lines[1].connectionId, toolkit: "notes", status: "active", remoteUser: "alice" }),
      ]);
      const me = await runCli(["execute", "NOTES_ME", "--json"], env);
      expect(JSON.parse(me.stdout)).toMatchObject({ successful: true, data: { sub: "alice" } });
    });

    it("a denied consent ends the wait with exit 1 and the reason; people get the URL on stdout and notes on stderr", async () => {
      const child = spawnCli(["auth", "notes", "--interval", "100"], env);
      // Two pipes: the URL (stdout) and the notes (stderr) may reach the test in either order.
      await waitForOutput(child, (o) => o.stdout.includes("\n") && o.stderr.includes("Waiting for the sign-in"));
      const url = child.output.stdout.trim();
      expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/auth\?/);
      expect(child.output.stderr).toMatch(
        /^Open this URL in a browser to connect notes \(valid until .+\):\nWaiting for the sign-in to complete\.\.\.\n$/,
      );
      await signIn(url, "deny");
      const result = await child.exited;
      expect(result.status).toBe(1);
      expect(result.stderr).toMatch(
        /\ntools-proxy: the authorization failed: Access was denied at the provider, so no connection was made\.\n$/,
      );
      expect((await (await callApi(serve.api, serve.key!, "/connections")).json()).connections).toHaveLength(1); // only the first test's
    });

    it("--open starts $BROWSER with the URL; --no-wait exits at once; auth status shows pending, then --wait sees it connect", async () => {
      const opened = join(dir, "opened.txt");
      const browser = join(dir, "browser.sh");
      writeFileSync(browser, `#!/bin/sh\nprintf '%s' "$1" > '${opened}'\n`);
      chmodSync(browser, 0o755);
      const start = await runCli(["auth", "notes", "--open", "--no-wait", "--json"], { ...env, BROWSER: browser });
      expect(start.status, start.stderr).toBe(0);
      const started = JSON.parse(start.stdout);
      expect(start.stderr).toContain("Opened it in your browser.");
      expect(start.stderr).toContain(`tools-proxy auth status ${started.authorizationId} --wait`);
      for (let i = 0; i < 50 && readFileSafe(opened) === ""; i++) await new Promise((resolve) => setTimeout(resolve, 50));
      expect(readFileSafe(opened)).toBe(started.authorizationUrl);

      expect(await runCli(["auth", "status", started.authorizationId], env)).toMatchObject({ status: 0, stdout: "pending\n" });
      const waiting = spawnCli(["auth", "status", started.authorizationId, "--wait", "--interval", "100"], env);
      await waitForOutput(waiting, (o) => o.stderr.includes("Waiting for the sign-in"));
      await signIn(started.authorizationUrl);
      const done = await waiting.exited;
      expect(done.status, done.stderr).toBe(0);
      const connectionId = /^Connected: (conn_\S+)$/m.exec(done.stdout)![1]!;
      const { connections } = await (await callApi(serve.api, serve.key!, "/connections")).json();
      expect(connections.map((c: { id: string }) => c.id)).toContain(connectionId);
      expect((await runCli(["auth", "status", "auth_unknown"], env)).status).toBe(4);
    });

    it("Ctrl+C while waiting exits 130 and says how to pick the wait up again", async () => {
      const child = spawnCli(["auth", "notes", "--interval", "100"], env);
      await waitForOutput(child, (o) => o.stderr.includes("Waiting for the sign-in"));
      child.kill("SIGINT");
      const result = await child.exited;
      expect(result.status).toBe(130);
      expect(result.stderr).toMatch(/stopped waiting\. The authorization stays open until it expires: tools-proxy auth status \S+ --wait/);
    });
  },
);

function readFileSafe(path: string): string {
  try {
    return readFileSync(path, "utf8");
  } catch {
    return "";
  }
}
