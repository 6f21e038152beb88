/**
 * A real Tools API on node:http for the agent adapter tests, with toolkits that need no network:
 *
 * - `weather` (no auth): `WEATHER_FORECAST` { city, days?, units? } answers a forecast;
 *   `WEATHER_ALERTS` always fails, retryable (the upstream is "down");
 * - `notes` (an API key): `NOTES_ADD` { text }, which needs a connection the agent does not have
 *   until a test connects it;
 * - `mail` (OAuth 2 at a provider that is never reached): `MAIL_SEND` { to }, which needs a
 *   connection; starting one only builds the provider's authorization URL.
 *
 * Every execute the server ran is recorded through the `tool.executed` hook, with the arguments
 * the tool received.
 */
import { z } from "zod";
import { createToolsClient, type ToolsClient } from "../../../src/client/index.js";
import {
  apiKey,
  createToolsHandler,
  defineTool,
  defineToolkit,
  issueApiKey,
  memoryStore,
  none,
  oauth2,
  ToolRunError,
} from "../../../src/index.js";
import { type ApiServer, startApiServer } from "../server.js";

export interface AgentServer {
  server: ApiServer;
  baseUrl: string;
  key: string;
  client: ToolsClient;
  /** Each tool the server executed, in order: slug, whether it succeeded, and the arguments the tool got. */
  executed: Array<{ tool: string; successful: boolean }>;
  /** Arguments each tool's `run` received, in order. */
  received: Array<{ tool: string; args: unknown }>;
  close(): Promise<void>;
}

export async function startAgentServer(): Promise<AgentServer> {
  const executed: AgentServer["executed"] = [];
  const received: AgentServer["received"] = [];
  const forecast = defineTool({
    slug: "WEATHER_FORECAST",
    name: "Forecast",
    description: "The weather forecast of a city for the next days.",
    input: z.object({
      city: z.string().min(1).meta({ description: "The city's name." }),
      days: z.number().int().min(1).max(7).optional().meta({ description: "How many days, 3 by default." }),
      units: z.enum(["celsius", "fahrenheit"]).optional(),
    }),
    annotations: { readOnly: true },
    run: async (args) => {
      received.push({ tool: "WEATHER_FORECAST", args });
      const days = args.days ?? 3;
      return { city: args.city, units: args.units ?? "celsius", highs: Array.from({ length: days }, (_, i) => 20 + i) };
    },
  });
  const alerts = defineTool({
    slug: "WEATHER_ALERTS",
    name: "Alerts",
    description: "Weather alerts of a region.",
    input: z.object({ region: z.string() }),
    run: async (args) => {
      received.push({ tool: "WEATHER_ALERTS", args });
      throw new ToolRunError("The alerts service answered 503.", {
        code: "upstream_error",
        retryable: true,
        upstreamStatus: 503,
        retryAfterMs: 2000,
      });
    },
  });
  const addNote = defineTool({
    slug: "NOTES_ADD",
    name: "Add note",
    description: "Adds a note.",
    input: z.object({ text: z.string() }),
    run: async (args) => {
      received.push({ tool: "NOTES_ADD", args });
      return { id: "note-1", text: args.text };
    },
  });
  const weather = defineToolkit({
    slug: "weather",
    name: "Weather",
    description: "Weather forecasts and alerts.",
    auth: none(),
    tools: [forecast, alerts],
  });
  const notes = defineToolkit({
    slug: "notes",
    name: "Notes",
    description: "A notebook: add notes.",
    baseUrl: "https://notes.invalid",
    auth: apiKey({ in: "header", name: "x-notes-key" }),
    tools: [addNote],
  });
  const mail = defineToolkit({
    slug: "mail",
    name: "Mail",
    description: "Send email.",
    baseUrl: "https://mail.invalid",
    auth: oauth2({
      authorizationUrl: "https://auth.mail.invalid/authorize",
      tokenUrl: "https://auth.mail.invalid/token",
      clientId: "client-1",
    }),
    tools: [
      defineTool({
        slug: "MAIL_SEND",
        name: "Send",
        description: "Sends an email.",
        input: z.object({ to: z.string() }),
        run: async () => ({ sent: true }),
      }),
    ],
  });
  const server = await startApiServer();
  const store = memoryStore();
  server.mount(
    createToolsHandler({
      store,
      toolkits: [weather, notes, mail],
      secret: `agents-test-secret-${Math.random().toString(36).slice(2)}-0123456789abcdef`,
      publicUrl: server.origin,
      hooks: { "tool.executed": (event) => void executed.push({ tool: event.tool, successful: event.successful }) },
    }),
  );
  const { key } = await issueApiKey(store, { workspaceId: "w", agentId: `agent-${Math.random().toString(36).slice(2)}` });
  return {
    server,
    baseUrl: server.baseUrl,
    key,
    client: createToolsClient({ baseUrl: server.baseUrl, apiKey: key }),
    executed,
    received,
    close: () => server.close(),
  };
}

/** The POST /execute requests the server got. */
export function executeRequests(s: AgentServer): number {
  return s.server.requests.filter((r) => r.method === "POST" && r.url === "/proxy/tools/execute").length;
}
