/**
 * Redis for the tests: the shared server on 127.0.0.1:6379 (skipped, saying why, when absent),
 * and private `redis-server` processes a test may stop and start without touching the shared one.
 */
import { spawn, spawnSync } from "node:child_process";
import { createServer } from "node:net";
import { createClient } from "redis";
import { freePort, PortTakenError, restartable } from "./restartable.js";

export const SHARED_REDIS_URL = process.env.TOOLS_PROXY_TEST_REDIS_URL ?? "redis://127.0.0.1:6379";

/** Why the Redis tests cannot run here, or null when the shared server answers. */
export async function redisUnavailableReason(url = SHARED_REDIS_URL): Promise<string | null> {
  const client = createClient({ url, socket: { connectTimeout: 1000, reconnectStrategy: false } });
  client.on("error", () => {});
  try {
    await client.connect();
    await client.ping();
    await client.close();
    return null;
  } catch (error) {
    client.destroy();
    return `no Redis at ${url} (${(error as Error).message}); start redis-server or set TOOLS_PROXY_TEST_REDIS_URL`;
  }
}

/** The process id of the redis-server at `url` (INFO server), or null when none answers. */
async function redisProcessId(url: string): Promise<number | null> {
  const client = createClient({ url, socket: { connectTimeout: 1000, reconnectStrategy: false } });
  client.on("error", () => {});
  try {
    await client.connect();
    const info = await client.info("server");
    await client.close();
    return Number(/^process_id:(\d+)/m.exec(info)?.[1] ?? Number.NaN);
  } catch {
    client.destroy();
    return null;
  }
}

/** A connected node-redis client with an error listener, for tests that pass their own client. */
export async function connectedClient(url = SHARED_REDIS_URL) {
  const client = createClient({ url, disableOfflineQueue: true });
  client.on("error", () => {});
  await client.connect();
  return client;
}

/** Whether `redis-server` can be started here for a private instance. */
export const hasRedisServer = spawnSync("redis-server", ["--version"]).status === 0;

/** A redis-server of the test's own on a free loopback port, stopped and started at will. */
export interface PrivateRedis {
  url: string;
  port: number;
  start(): Promise<void>;
  stop(): Promise<void>;
}

export async function privateRedis(): Promise<PrivateRedis> {
  // Test files run in parallel and each may start servers on ports freePort chose: on the rare
  // collision, try another port.
  for (let attempt = 1; ; attempt++) {
    const port = await freePort();
    const url = `redis://127.0.0.1:${port}`;
    const server = restartable(
      `redis-server on port ${port}`,
      () => spawn("redis-server", ["--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"], { stdio: "ignore" }),
      async (child) => (await redisProcessId(url)) === child.pid,
      100,
    );
    try {
      await server.start();
      return { url, port, ...server };
    } catch (error) {
      if (!(error instanceof PortTakenError) || attempt === 5) throw error;
    }
  }
}

/** A loopback TCP server that accepts connections and never answers: a hung Redis. */
export async function silentServer(): Promise<{ url: string; close(): Promise<void> }> {
  const sockets = new Set<import("node:net").Socket>();
  const server = createServer((socket) => {
    sockets.add(socket);
    socket.on("error", () => {});
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  return {
    url: `redis://127.0.0.1:${port}`,
    close: () =>
      new Promise((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
