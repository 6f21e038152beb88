import { connectRedis, type RedisPubSubClient, runScript } from "./connection.js";
import { PUBLISH_SCRIPT } from "./scripts.js";

/** Options of `redisApiKeyRevocations`. */
export interface RedisApiKeyRevocationsOptions {
  /**
   * The channel, the same on every instance of a deployment. Default `tools-proxy:api-key-revoked`.
   * Deployments sharing one Redis may share it: a key id is random, so another deployment's
   * revocation drops nothing here.
   */
  channel?: string;
  /** How long a publish may take before it counts as failed, in ms. Default 2000. */
  timeoutMs?: number;
  /**
   * Told when Redis cannot be reached: a publish that failed, or the subscription's connection lost
   * (once per outage). The revocations still hold, bounded by the API key cache's `ttlMs` meanwhile.
   * Default: nothing is said.
   */
  onError?: (error: Error) => void;
}

/** The bus `redisApiKeyRevocations` returns: an `ApiKeyRevocations` you close when done. */
export interface RedisApiKeyRevocations {
  publish(keyId: string): Promise<void>;
  subscribe(listener: { revoked(keyId: string): void; missed(): void }): () => void;
  /** Disconnects, when it made the connection from a URL; otherwise does nothing. */
  close(): Promise<void>;
}

/**
 * API key revocations over Redis publish-subscribe, for the handler's `apiKeyRevocations` option
 * (and `revokeApiKey`'s `revocations`): a key revoked on one instance is dropped from every
 * instance's API key cache as soon as the message arrives, instead of after the cache's `ttlMs`.
 * Redis keeps no message for a subscriber that was away, so a handler empties its cache whenever
 * its subscription comes back. While Redis is down, revocation works as without this: at once on
 * the revoking instance, within `ttlMs` elsewhere.
 *
 * `redis` is a URL (it connects with `connectRedis`, and `close()` disconnects) or a connection of
 * `connectRedis` you own (its first subscription opens a second connection, for listening).
 */
export function redisApiKeyRevocations(
  redis: string | RedisPubSubClient,
  options: RedisApiKeyRevocationsOptions = {},
): RedisApiKeyRevocations {
  const channel = options.channel ?? "tools-proxy:api-key-revoked";
  const timeoutMs = options.timeoutMs ?? 2000;
  const report = options.onError ?? (() => {});
  if (typeof redis !== "string" && typeof redis?.listen !== "function") {
    throw new TypeError(
      "redisApiKeyRevocations: pass a Redis URL or a connection of connectRedis (a client of your own cannot subscribe through it).",
    );
  }
  const owned = typeof redis === "string" ? connectRedis(redis, { timeoutMs }) : null;
  const client = owned ?? (redis as RedisPubSubClient);
  let down = false;
  return {
    async publish(keyId) {
      try {
        await runScript(client, PUBLISH_SCRIPT, [], [channel, keyId], timeoutMs);
      } catch (error) {
        report(error as Error);
        throw error;
      }
    },
    subscribe(listener) {
      return client.listen(channel, {
        message: (keyId) => listener.revoked(keyId),
        live: () => {
          down = false;
          listener.missed();
        },
        down: (error) => {
          if (down) return; // said once per outage, however many handlers listen
          down = true;
          report(error);
        },
      });
    },
    async close() {
      await owned?.close();
    },
  };
}
