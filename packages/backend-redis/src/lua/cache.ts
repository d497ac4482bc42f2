import { PRELUDE_LUA } from './clock.js';

/**
 * An entry is a hash {value, expires_at} with a Redis TTL (PX); expires_at, on the scripts' clock,
 * is what decides (it follows an injected test clock; in production both agree). Recency is a zset
 * (key → a number from an INCR counter): its lowest member is the least recently used.
 */

/**
 * get. KEYS: entry, lru, counter   ARGV: injectedNow, key
 * Returns the value and marks it most recently used, or nil (an expired entry is dropped).
 */
export const CACHE_GET_LUA = `
${PRELUDE_LUA}
local now = clock(ARGV[1])
local entry = redis.call('HMGET', KEYS[1], 'value', 'expires_at')
if not entry[1] or now >= tonumber(entry[2]) then
  redis.call('DEL', KEYS[1])
  redis.call('ZREM', KEYS[2], ARGV[2])
  return false
end
redis.call('ZADD', KEYS[2], redis.call('INCR', KEYS[3]), ARGV[2])
return entry[1]
`;

/**
 * set. KEYS: entry, lru, counter   ARGV: injectedNow, key, value, ttlMs, maxEntries, entryKeyPrefix
 * Stores the value as the most recently used entry, then evicts the least recently used beyond
 * maxEntries (their entry keys are entryKeyPrefix .. key, in the same hash slot). The lru and counter
 * keys live as long as the longest-lived entry. Returns the number of entries evicted.
 */
export const CACHE_SET_LUA = `
${PRELUDE_LUA}
local now = clock(ARGV[1])
local ttl = tonumber(ARGV[4])
redis.call('HSET', KEYS[1], 'value', ARGV[3], 'expires_at', num(now + ttl))
redis.call('PEXPIRE', KEYS[1], math.ceil(ttl))
redis.call('ZADD', KEYS[2], redis.call('INCR', KEYS[3]), ARGV[2])
local evicted = 0
local excess = redis.call('ZCARD', KEYS[2]) - tonumber(ARGV[5])
if excess > 0 then
  local oldest = redis.call('ZPOPMIN', KEYS[2], excess)
  for i = 1, #oldest, 2 do
    redis.call('DEL', ARGV[6] .. oldest[i])
    evicted = evicted + 1
  end
end
for _, key in ipairs({KEYS[2], KEYS[3]}) do
  if redis.call('PTTL', key) < ttl then redis.call('PEXPIRE', key, math.ceil(ttl)) end
end
return evicted
`;
