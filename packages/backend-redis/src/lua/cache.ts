import { PRELUDE_LUA } from './clock.js';
import { scriptProtocol } from '../protocol.js';

/**
 * An entry is a hash {value, expires_at} with a Redis TTL (PX); expires_at, on the scripts' clock,
 * is what decides (it follows an injected test clock; in production both agree). Recency is a zset
 * (key → a number from an INCR counter): its lowest member is the least recently used.
 */

const CACHE_KEYS = ['entry', 'lru', 'counter'] as const;

/** get: the value (now the most recently used), or a miss (missing or expired; an expired entry is dropped). */
export const CACHE_GET = scriptProtocol({
  label: 'cache_get',
  keys: CACHE_KEYS,
  args: ['now', 'key'],
  replies: { hit: { code: 1, fields: { value: 'string' } }, miss: { code: 0, fields: {} } },
  lua: `
${PRELUDE_LUA}
local now = clock(A.now)
local entry = redis.call('HMGET', K.entry, 'value', 'expires_at')
if not entry[1] or now >= tonumber(entry[2]) then
  redis.call('DEL', K.entry)
  redis.call('ZREM', K.lru, A.key)
  return REPLY.miss{}
end
redis.call('ZADD', K.lru, redis.call('INCR', K.counter), A.key)
return REPLY.hit{value = entry[1]}
`,
});

/**
 * set: stores the value as the most recently used entry, then evicts the least recently used beyond
 * maxEntries (their entry keys are entryKeyPrefix .. key, in the same hash slot). The lru and counter
 * keys live as long as the longest-lived entry. `evicted`: how many entries were.
 */
export const CACHE_SET = scriptProtocol({
  label: 'cache_set',
  keys: CACHE_KEYS,
  args: ['now', 'key', 'value', 'ttlMs', 'maxEntries', 'entryKeyPrefix'],
  replies: { stored: { code: 1, fields: { evicted: 'number' } } },
  lua: `
${PRELUDE_LUA}
local now = clock(A.now)
local ttl = tonumber(A.ttlMs)
redis.call('HSET', K.entry, 'value', A.value, 'expires_at', num(now + ttl))
redis.call('PEXPIRE', K.entry, math.ceil(ttl))
redis.call('ZADD', K.lru, redis.call('INCR', K.counter), A.key)
local evicted = 0
local excess = redis.call('ZCARD', K.lru) - tonumber(A.maxEntries)
if excess > 0 then
  local oldest = redis.call('ZPOPMIN', K.lru, excess)
  for i = 1, #oldest, 2 do
    redis.call('DEL', A.entryKeyPrefix .. oldest[i])
    evicted = evicted + 1
  end
end
for _, key in ipairs({K.lru, K.counter}) do
  if redis.call('PTTL', key) < ttl then redis.call('PEXPIRE', key, math.ceil(ttl)) end
end
return REPLY.stored{evicted = evicted}
`,
});
