/**
 * A workspace service key (psk_) on the command line, through the built bin against a real `serve`:
 * `login --agent` saves the agent and the commands act for it (x-agent-id); `--agent` and
 * SVC_WORKSPACE_AGENT_ID override it; without an agent, a command that acts for one fails with the
 * server's 400 sentence and exit 6, while search and the workspace's connection list work; an
 * agent key given an agent ignores it with a warning. Connections are checked through the API.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { callApi, missingBuild, runBin, type ServeProcess, startServe } from "../support/serve-process.js";
import { type CliResult, cliEnv, configHome, runCli } from "./run.js";

const credentialsFile = (home: string) => join(home, "tools-proxy", "credentials.json");
const AGENT_ROUTE =
  "This route acts for an agent: with a workspace service key, send the header x-agent-id naming the agent, or use the agent's own key.";

describe.skipIf(missingBuild)(
  missingBuild
    ? `service keys and --agent (skipped: ${missingBuild})`
    : "a workspace service key with --agent, SVC_WORKSPACE_AGENT_ID and login --agent",
  () => {
    let dataDir: string;
    let serve: ServeProcess;
    let agentKey: string; // agent "agent", printed by serve
    let serviceKey: string;
    let agentConnection: string;
    const outputs: CliResult[] = [];
    const run = async (args: string[], env: NodeJS.ProcessEnv, input?: string) => {
      const result = await runCli(args, env, input);
      outputs.push(result);
      return result;
    };
    /** The ids of the connections the API lists for this key and agent header: an independent look. */
    const connectionIds = async (key: string, agent?: string) => {
      const response = await callApi(serve.api, key, "/connections", undefined, agent ? { headers: { "x-agent-id": agent } } : {});
      expect(response.status).toBe(200);
      return ((await response.json()).connections as Array<{ id: string }>).map((c) => c.id).sort();
    };
    const serviceEnv = (home: string, extra: Record<string, string> = {}) =>
      cliEnv(home, { SVC_WORKSPACE_API_URL: serve.origin, SVC_WORKSPACE_ID: "local", SVC_WORKSPACE_API_KEY: serviceKey, ...extra });

    beforeAll(async () => {
      dataDir = mkdtempSync(join(tmpdir(), "tools-proxy-agent-"));
      serve = await startServe(["--data-dir", dataDir]);
      agentKey = serve.key!;
      const created = runBin(["keys", "create", "--workspace", "local", "--service", "--data-dir", dataDir]);
      expect(created.status, created.stderr).toBe(0);
      serviceKey = created.stdout.trim();
      expect(serviceKey).toMatch(/^psk_/);
      const connected = await callApi(serve.api, agentKey, "/auth", { toolkit: "demo", credentials: { apiKey: "demo-key" } });
      expect(connected.status).toBe(201);
      agentConnection = (await connected.json()).connection.id;
    });

    afterAll(async () => {
      await serve?.stop();
      if (dataDir) rmSync(dataDir, { recursive: true, force: true });
    });

    let botConnection: string;

    it("login --agent saves the agent; commands then connect, list and execute as that agent only", async () => {
      const home = configHome();
      const login = await run(["login", "--url", serve.origin, "--workspace", "local", "--agent", "bot"], cliEnv(home), serviceKey);
      expect(login.status, login.stderr).toBe(0);
      expect(login.stderr).toContain(`(workspace "local", key psk_…${serviceKey.slice(-4)}, agent "bot")`);
      expect(JSON.parse(readFileSync(credentialsFile(home), "utf8"))).toEqual({
        url: serve.api,
        workspace: "local",
        apiKey: serviceKey,
        agent: "bot",
      });

      const auth = await run(["auth", "demo", "--api-key", "demo-key", "--json"], cliEnv(home));
      expect(auth.status, auth.stderr).toBe(0);
      botConnection = JSON.parse(auth.stdout).connection.id;
      expect(await connectionIds(serviceKey, "bot")).toEqual([botConnection]);
      expect(await connectionIds(agentKey)).toEqual([agentConnection]); // the agent's own are not the bot's

      const list = await run(["connections", "--json"], cliEnv(home));
      expect(list.status, list.stderr).toBe(0);
      expect(JSON.parse(list.stdout).connections.map((c: { id: string }) => c.id)).toEqual([botConnection]);

      const executed = await run(["execute", "DEMO_CREATE_NOTE", "--arg", "text=from the bot", "--json"], cliEnv(home));
      expect(executed.status, executed.stderr).toBe(0);
      expect(JSON.parse(executed.stdout)).toMatchObject({ successful: true, data: { text: "from the bot" } });
      // Acting as "bot", the agent's connection is not the caller's to use.
      const foreign = await run(["execute", "DEMO_LIST_NOTES", "--connection", agentConnection], cliEnv(home));
      expect(foreign.status).toBe(4);
      expect(foreign.stderr).toContain(`No connection "${agentConnection}" to toolkit "demo" for this agent.`);

      const whoami = await run(["whoami", "--json"], cliEnv(home));
      expect(whoami.status, whoami.stderr).toBe(0);
      expect(JSON.parse(whoami.stdout)).toMatchObject({
        kind: "workspace service key",
        agent: "bot",
        sources: { agent: "file" },
        server: "accepted",
      });
      const table = await run(["whoami"], cliEnv(home));
      expect(table.stdout).toMatch(/^agent +bot +\(credentials file\)$/m);
    });

    it("without an agent: execute fails with the server's 400 sentence and exit 6; search and the workspace's connections work", async () => {
      const home = configHome();
      const execute = await run(["execute", "DEMO_LIST_NOTES"], serviceEnv(home));
      expect(execute.status).toBe(6);
      expect(execute.stderr).toBe(
        `tools-proxy: the server answered 400 invalid_request: ${AGENT_ROUTE} This is a workspace service key with no agent: name one with --agent A, SVC_WORKSPACE_AGENT_ID=A, or "tools-proxy login --agent A".\n`,
      );
      for (const args of [
        ["upload", "-"],
        ["connections", "delete", botConnection],
      ]) {
        const result = await run(args, serviceEnv(home), "x");
        expect(result.status, args.join(" ")).toBe(6);
      }
      expect(await connectionIds(serviceKey, "bot")).toEqual([botConnection]); // the delete did not happen

      expect((await run(["search", "--json"], serviceEnv(home))).status).toBe(0);
      const list = await run(["connections", "--json"], serviceEnv(home));
      expect(list.status, list.stderr).toBe(0);
      expect(
        JSON.parse(list.stdout)
          .connections.map((c: { id: string }) => c.id)
          .sort(),
      ).toEqual([agentConnection, botConnection].sort());
      // Any other 400 keeps exit 1, even with a service key and no agent.
      const badLimit = await run(["search", "--limit", "200", "--cursor", "not-a-cursor"], serviceEnv(home));
      expect(badLimit.status).toBe(1);
      const whoami = JSON.parse((await run(["whoami", "--json", "--no-check"], serviceEnv(home))).stdout);
      expect(whoami).toMatchObject({ kind: "workspace service key", agent: null });
    });

    it("SVC_WORKSPACE_AGENT_ID overrides the file's agent, and --agent overrides both", async () => {
      const home = configHome();
      expect(
        (await run(["login", "--url", serve.origin, "--workspace", "local", "--agent", "bot", "--key", serviceKey], cliEnv(home))).status,
      ).toBe(0);
      const ids = async (args: string[], extra: Record<string, string>) => {
        const result = await run(["connections", "--json", ...args], cliEnv(home, extra));
        expect(result.status, result.stderr).toBe(0);
        return JSON.parse(result.stdout).connections.map((c: { id: string }) => c.id);
      };
      expect(await ids([], {})).toEqual([botConnection]);
      expect(await ids([], { SVC_WORKSPACE_AGENT_ID: "agent" })).toEqual([agentConnection]);
      expect(await ids(["--agent", "bot"], { SVC_WORKSPACE_AGENT_ID: "agent" })).toEqual([botConnection]);
      expect(await ids(["--agent", "nobody"], {})).toEqual([]);

      const whoami = JSON.parse((await run(["whoami", "--json"], cliEnv(home, { SVC_WORKSPACE_AGENT_ID: "agent" }))).stdout);
      expect(whoami).toMatchObject({ agent: "agent", sources: { agent: "env", apiKey: "file" }, server: "accepted" });
      const flag = JSON.parse(
        (await run(["whoami", "--json", "--agent", "bot"], cliEnv(home, { SVC_WORKSPACE_AGENT_ID: "agent" }))).stdout,
      );
      expect(flag).toMatchObject({ agent: "bot", sources: { agent: "flag" } });
      // The file is unchanged by any of it.
      expect(JSON.parse(readFileSync(credentialsFile(home), "utf8")).agent).toBe("bot");
    });

    it("a malformed agent is a usage error (exit 2) naming where it came from; nothing is sent or saved", async () => {
      const home = configHome();
      const flag = await run(["connections", "--agent", "bad agent!"], serviceEnv(home));
      expect(flag.status).toBe(2);
      expect(flag.stderr).toContain('--agent must be an agent id of 1 to 128 letters, digits, "_" or "-"; got "bad agent!".');
      const env = await run(["search"], serviceEnv(home, { SVC_WORKSPACE_AGENT_ID: "x".repeat(129) }));
      expect(env.status).toBe(2);
      expect(env.stderr).toContain("SVC_WORKSPACE_AGENT_ID must be an agent id");
      const login = await run(
        ["login", "--url", serve.origin, "--workspace", "local", "--agent", "a/b", "--key", serviceKey],
        cliEnv(home),
      );
      expect(login.status).toBe(2);
      expect(existsSync(credentialsFile(home))).toBe(false);
    });

    it("an agent key: login --agent is refused (exit 2, nothing saved); a command's --agent is ignored with a warning", async () => {
      const home = configHome();
      const login = await run(["login", "--url", serve.origin, "--workspace", "local", "--agent", "bot"], cliEnv(home), agentKey);
      expect(login.status).toBe(2);
      expect(login.stderr).toContain(
        "--agent is for a workspace service key (psk_...); an agent key always acts as its own agent. Nothing was saved.",
      );
      expect(existsSync(credentialsFile(home))).toBe(false);

      const env = cliEnv(home, { SVC_WORKSPACE_API_URL: serve.origin, SVC_WORKSPACE_API_KEY: agentKey });
      const list = await run(["connections", "--json", "--agent", "bot"], env);
      expect(list.status, list.stderr).toBe(0);
      expect(JSON.parse(list.stdout).connections.map((c: { id: string }) => c.id)).toEqual([agentConnection]);
      expect(list.stderr).toContain('the agent "bot" (from --agent) is not used: this is an agent key, which always acts as its own agent');
      const whoami = JSON.parse((await run(["whoami", "--json", "--no-check", "--agent", "bot"], env)).stdout);
      expect(whoami).toMatchObject({ kind: "agent key", agent: null });
    });

    it("no output above contains an API key", () => {
      expect(outputs.length).toBeGreaterThan(20);
      for (const { stdout, stderr } of outputs) for (const key of [agentKey, serviceKey]) expect(stdout + stderr).not.toContain(key);
    });
  },
);
