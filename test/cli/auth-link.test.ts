/**
 * `tools-proxy auth <toolkit> --link`, through the built bin against a `serve` process: the command
 * prints the connect page's URL and waits; the test plays the person, who opens the page and types
 * the demo API's key; the command then reports the connection, which works.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { callApi, missingBuild, type ServeProcess, startServe } from "../support/serve-process.js";
import { cliEnv, configHome, runCli, spawnCli, waitForOutput } from "./run.js";

const PUBLIC_URL = "http://tools.test"; // the page is fetched from the serve process's own origin

describe.skipIf(missingBuild)(missingBuild ? `auth --link (skipped: ${missingBuild})` : "tools-proxy auth --link", () => {
  let serve: ServeProcess;
  let env: NodeJS.ProcessEnv;

  beforeAll(async () => {
    serve = await startServe(["--memory", "--public-url", PUBLIC_URL]);
    env = cliEnv(configHome(), { SVC_WORKSPACE_API_URL: serve.origin, SVC_WORKSPACE_ID: "local", SVC_WORKSPACE_API_KEY: serve.key! });
  });
  afterAll(async () => {
    await serve?.stop();
  });

  it("prints the connect page's URL, waits, and reports the connection the person made there", async () => {
    const child = spawnCli(["auth", "demo", "--link", "--json", "--interval", "100"], env);
    await waitForOutput(child, (o) => o.stdout.includes("\n"));
    const started = JSON.parse(child.output.stdout.split("\n")[0]!);
    expect(started.authorizationUrl).toMatch(/^http:\/\/tools\.test\/proxy\/tools\/connect\/auth_/);
    expect(child.exitCode).toBeNull();

    // The person's browser, at the server's real origin.
    const url = `${serve.origin}${new URL(started.authorizationUrl).pathname}`;
    const page = await (await fetch(url)).text();
    expect(page).toContain('<label for="f-apiKey">API key</label>');
    const csrf = /name="csrf" value="([^"]+)"/.exec(page)![1]!;
    const sent = await fetch(url, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ csrf, apiKey: "demo-key" }),
    });
    expect(sent.status).toBe(200);

    const result = await child.exited;
    expect(result.status, result.stderr).toBe(0);
    const finished = JSON.parse(result.stdout.trim().split("\n")[1]!);
    expect(finished).toEqual({ status: "connected", connectionId: expect.stringMatching(/^conn_/) });
    // The access log names the page without the link's secret part.
    const secret = new URL(started.authorizationUrl).pathname.split(".").pop()!;
    expect(serve.stderr()).toContain(`POST /proxy/tools/connect/${started.authorizationId}.*** 200`);
    expect(serve.stderr()).not.toContain(secret);
    const { connections } = await (await callApi(serve.api, serve.key!, "/connections")).json();
    expect(connections).toEqual(expect.arrayContaining([expect.objectContaining({ id: finished.connectionId, toolkit: "demo" })]));
  });

  it("refuses --link with a credential option", async () => {
    const result = await runCli(["auth", "demo", "--link", "--api-key", "x"], env);
    expect(result.status).toBe(2);
    expect(result.stderr).toContain("--link asks for the credential in the browser");
  });
});
