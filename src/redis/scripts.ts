/**
 * The Lua scripts of the Redis stores. Each runs atomically on the server. Numbers cross the Lua
 * boundary as strings formatted with `%.0f`: Lua's default formatting would lose digits.
 */

/**
 * GCRA (see `RateLimitStore`) on the server's clock, in microseconds.
 * KEYS[1] the bucket; ARGV[1] refill interval (µs); ARGV[2] bucket depth (µs).
 * Returns { allowed (1/0), retry after (µs), remaining }.
 */
export const RATE_LIMIT_SCRIPT = `
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000000 + tonumber(time[2])
local interval = tonumber(ARGV[1])
local capacity = tonumber(ARGV[2])
local tat = tonumber(redis.call('GET', KEYS[1]) or '0')
if tat < now then tat = now end
local nextTat = tat + interval
local over = nextTat - now - capacity
if over > 0 then return { 0, string.format('%.0f', over), 0 } end
redis.call('SET', KEYS[1], string.format('%.0f', nextTat), 'PX', string.format('%.0f', math.ceil((nextTat - now) / 1000)))
return { 1, '0', math.floor((capacity - (nextTat - now)) / interval) }
`;

/**
 * Takes or renews a lease. KEYS[1] the lease; ARGV[1] holder; ARGV[2] ttl (ms). Returns 1 or 0.
 * SET NX PX takes a free (or expired: Redis removed it) lease; the holder renews its own.
 */
export const ACQUIRE_LEASE_SCRIPT = `
if redis.call('SET', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2]) then return 1 end
if redis.call('GET', KEYS[1]) == ARGV[1] then
  redis.call('PEXPIRE', KEYS[1], ARGV[2])
  return 1
end
return 0
`;

/** Compare-and-delete: releases KEYS[1] only if ARGV[1] holds it. Returns 1 when released. */
export const RELEASE_LEASE_SCRIPT = `
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0
`;

/**
 * Publishes ARGV[2] on the channel ARGV[1]. A script, so that every client of the stores (one
 * that has only `eval`) can publish too.
 */
export const PUBLISH_SCRIPT = `
return redis.call('PUBLISH', ARGV[1], ARGV[2])
`;
