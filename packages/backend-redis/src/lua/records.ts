import { PRELUDE_LUA } from './clock.js';

/**
 * A record is a hash {value, expires_at} with a Redis TTL (PX); expires_at, on the scripts' clock,
 * is what decides (it follows an injected test clock; in production both agree).
 */

/** get. KEYS: record   ARGV: injectedNow. Returns the value, or nil (an expired record is dropped). */
export const RECORD_GET_LUA = `
${PRELUDE_LUA}
local record = redis.call('HMGET', KEYS[1], 'value', 'expires_at')
if record[1] and clock(ARGV[1]) < tonumber(record[2]) then return record[1] end
redis.call('DEL', KEYS[1])
return false
`;

/** set. KEYS: record   ARGV: injectedNow, value, ttlMs */
export const RECORD_SET_LUA = `
${PRELUDE_LUA}
local ttl = tonumber(ARGV[3])
redis.call('DEL', KEYS[1])
redis.call('HSET', KEYS[1], 'value', ARGV[2], 'expires_at', num(clock(ARGV[1]) + ttl))
redis.call('PEXPIRE', KEYS[1], math.ceil(ttl))
return 1
`;

/** delete. KEYS: record   ARGV: injectedNow. Returns 1 when a live record was deleted, else 0. */
export const RECORD_DELETE_LUA = `
${PRELUDE_LUA}
local expires_at = redis.call('HGET', KEYS[1], 'expires_at')
redis.call('DEL', KEYS[1])
if expires_at and clock(ARGV[1]) < tonumber(expires_at) then return 1 end
return 0
`;
