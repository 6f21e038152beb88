/**
 * How the command line tells a person the ways to connect a toolkit, against `serve --catalog`
 * where no OAuth client is set: `toolkit <slug>` lists every auth mode with its command, whether
 * its OAuth is configured and the inputs; `auth` of a provider whose OAuth is not configured names
 * the other ways (Slack's --token); `search` shows whether each toolkit is configured; a connect
 * link's wait does not speak of a sign-in.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { missingBuild, type ServeProcess, startServe } from "../support/serve-process.js";
import { cliEnv, configHome, runCli, spawnCli, waitForOutput } from "./run.js";

describe.skipIf(missingBuild)(missingBuild ? `ways to connect (skipped: ${missingBuild})` : "ways to connect, in the CLI", () => {
  let serve: ServeProcess;
  let env: NodeJS.ProcessEnv;
  const cli = (args: string[]) => runCli(args, env);

  beforeAll(async () => {
    serve = await startServe(["--memory", "--catalog", "--quiet", "--public-url", "http://tools.test"]);
    env = cliEnv(configHome(), { SVC_WORKSPACE_API_URL: serve.origin, SVC_WORKSPACE_ID: "local", SVC_WORKSPACE_API_KEY: serve.key! });
  });
  afterAll(async () => {
    await serve?.stop();
  });

  it("toolkit slack: both ways to connect, OAuth not configured, each with its command", async () => {
    const shown = await cli(["toolkit", "slack"]);
    expect(shown.status, shown.stderr).toBe(0);
    expect(shown.stdout).toMatch(
      /^toolkit +Slack \(slack\)\nauth +OAuth \(Slack app \(OAuth v2\)\), not configured on this server: tools-proxy auth slack --open\n +token \(Bot or user token\), get it at https:\/\/api\.slack\.com\/apps: tools-proxy auth slack --token TOKEN\nabout /,
    );
  });

  it("toolkit zendesk: the input, and the commands pass it", async () => {
    const shown = await cli(["toolkit", "zendesk"]);
    expect(shown.status, shown.stderr).toBe(0);
    const lines = shown.stdout.split("\n");
    expect(lines.filter((line) => /tools-proxy auth zendesk --param subdomain=\S+ /.test(line))).toHaveLength(2);
    expect(lines.find((line) => line.startsWith("inputs"))).toMatch(/^inputs +--param subdomain=\.\.\. \(/);
    expect(shown.stdout).toContain("--username NAME --password PASSWORD");
  });

  it("toolkit demo: the API key way, with its flag", async () => {
    const shown = await cli(["toolkit", "demo"]);
    expect(shown.stdout).toMatch(/^toolkit +Demo \(demo\)\nauth +API key.*: tools-proxy auth demo --api-key KEY\nabout /);
  });

  it("auth slack: the server's sentence on the missing client, then the way that works: --token", async () => {
    const refused = await cli(["auth", "slack", "--no-wait"]);
    expect(refused.status).toBe(1);
    expect(refused.stderr).toBe(
      "tools-proxy: the server answered 400 invalid_request: Slack is not configured on this server: its operator must set " +
        "TOOLS_PROXY_SLACK_CLIENT_ID and TOOLS_PROXY_SLACK_CLIENT_SECRET (the OAuth client's id and secret), then restart it. " +
        "Or connect with a token (Bot or user token): tools-proxy auth slack --token TOKEN.\n",
    );
    // --link starts with the first way too: the same sentence.
    expect((await cli(["auth", "slack", "--link", "--no-wait"])).stderr).toContain("tools-proxy auth slack --token TOKEN.");
    // A provider with no other way keeps the server's sentence alone.
    const outlook = await cli(["auth", "outlook", "--param", "tenant=common", "--no-wait"]);
    expect(outlook.stderr).toMatch(/TOOLS_PROXY_MICROSOFT_CLIENT_SECRET \(the OAuth client's id and secret\), then restart it\.\n$/);
  });

  it("search: every way to connect and whether the toolkit is configured", async () => {
    const found = await cli(["search", "slack"]);
    expect(found.stdout).toMatch(
      /^TOOLKIT +NAME +AUTH +TOOLS +CONFIGURED +CONNECTED +DESCRIPTION\nslack +Slack +oauth2, bearer +\d+ +no +no +/,
    );
    expect((await cli(["search", "demo"])).stdout).toMatch(/\ndemo +Demo +apiKey +3 +yes +no +/);
  });

  it("auth demo --link: the wait is for the page, not a sign-in", async () => {
    const child = spawnCli(["auth", "demo", "--link", "--interval", "100"], env);
    await waitForOutput(child, (o) => o.stderr.includes("Waiting"));
    child.kill("SIGINT");
    const result = await child.exited;
    expect(result.stderr).toContain("Waiting for the connection to be made on that page...");
    expect(result.stderr).not.toContain("sign-in");
  });
});
