/** What `RedisPubSubClient.listen` calls. */
export interface RedisChannelListener {
  /** A message published on the channel. */
  message(text: string): void;
  /**
   * The subscription is live: at first, and again after each reconnection. Messages published
   * while it was not may be lost.
   */
  live(): void;
  /** The subscription's connection failed or was refused; called once per outage, then `live` when it is back. */
  down(error: Error): void;
}

/** Listens on Redis channels over one connection of its own (a subscribed connection can send nothing else). */
export interface RedisSubscriber {
  /** Calls `listener` for `channel` until the returned function is called. */
  subscribe(channel: string, listener: RedisChannelListener): () => void;
  close(): Promise<void>;
}

interface Channel {
  listeners: Set<RedisChannelListener>;
  /** node-redis holds the subscription: it renews it itself on every reconnection, before "ready". */
  subscribed: boolean;
  pending: boolean;
  dispatch(text: string): void;
}

/** The part of a node-redis client the subscriber uses. */
interface NodeRedisClient {
  readonly isReady: boolean;
  on(event: "error" | "ready", listener: (error: Error) => void): unknown;
  connect(): Promise<unknown>;
  subscribe(channel: string, listener: (message: string) => void): Promise<void>;
  unsubscribe(channel: string, listener: (message: string) => void): Promise<void>;
  destroy(): void;
}

/**
 * A subscriber on `url` with node-redis: it connects at once and reconnects in the background
 * (backing off up to 2 s, like `connectRedis`), and tells each listener when its subscription is
 * live again, since Redis keeps no message for a subscriber that was away.
 */
export function createSubscriber(url: string, timeoutMs: number): RedisSubscriber {
  const channels = new Map<string, Channel>();
  let up = true; // until the first failure, which is then reported
  let closed = false;
  const each = (channel: Channel, call: (listener: RedisChannelListener) => void) => {
    for (const listener of [...channel.listeners]) call(listener);
  };
  const fail = (error: unknown) => {
    if (!up || closed) return;
    up = false;
    const reason = error instanceof Error ? error : new Error(String(error));
    for (const channel of channels.values()) each(channel, (listener) => listener.down(reason));
  };
  const establish = async (redis: NodeRedisClient, name: string) => {
    const channel = channels.get(name);
    if (!channel || channel.pending || closed) return;
    if (!channel.subscribed) {
      channel.pending = true;
      try {
        await redis.subscribe(name, channel.dispatch);
        channel.subscribed = true;
      } catch (error) {
        return fail(error); // the next "ready" tries again
      } finally {
        channel.pending = false;
      }
    }
    if (channels.get(name) === channel) each(channel, (listener) => listener.live());
  };
  const client: Promise<NodeRedisClient> = import("redis").then(({ createClient }) => {
    const redis: NodeRedisClient = createClient({
      url,
      socket: { connectTimeout: timeoutMs, reconnectStrategy: (retries: number) => Math.min(50 * 2 ** retries, 2000) },
    });
    redis.on("error", fail);
    redis.on("ready", () => {
      up = true;
      for (const name of channels.keys()) void establish(redis, name);
    });
    if (!closed) redis.connect().catch(() => {});
    return redis;
  });
  client.catch(fail);
  return {
    subscribe(name, listener) {
      let channel = channels.get(name);
      if (!channel) {
        const created: Channel = {
          listeners: new Set(),
          subscribed: false,
          pending: false,
          dispatch: (text) => each(created, (l) => l.message(text)),
        };
        channel = created;
        channels.set(name, channel);
      }
      channel.listeners.add(listener);
      const joined = channel;
      void client.then((redis) => {
        if (!redis.isReady || !joined.listeners.has(listener)) return;
        if (joined.subscribed) listener.live();
        else void establish(redis, name);
      }, fail);
      return () => {
        if (!joined.listeners.delete(listener) || joined.listeners.size > 0) return;
        if (channels.get(name) === joined) channels.delete(name);
        if (joined.subscribed) void client.then((redis) => redis.unsubscribe(name, joined.dispatch)).catch(() => {});
      };
    },
    async close() {
      if (closed) return;
      closed = true;
      const redis = await client.catch(() => null);
      redis?.destroy(); // nothing pending matters on a subscriber: drop it at once
    },
  };
}
