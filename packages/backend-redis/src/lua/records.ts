import { PRELUDE_LUA } from './clock.js';
import { scriptProtocol } from '../protocol.js';

/**
 * A record is a hash {value, expires_at} with a Redis TTL (PX); expires_at, on the scripts' clock,
 * is what decides (it follows an injected test clock; in production both agree).
 */

const RECORD_KEYS = ['record'] as const;

/** get: the record's value, or absent (missing or expired; an expired record is dropped). */
export const RECORD_GET = scriptProtocol({
  label: 'record_get',
  keys: RECORD_KEYS,
  args: ['now'],
  replies: { found: { code: 1, fields: { value: 'string' } }, absent: { code: 0, fields: {} } },
  lua: `
${PRELUDE_LUA}
local record = redis.call('HMGET', K.record, 'value', 'expires_at')
if record[1] and clock(A.now) < tonumber(record[2]) then return REPLY.found{value = record[1]} end
redis.call('DEL', K.record)
return REPLY.absent{}
`,
});

/** set: replaces the record, for `ttlMs`. */
export const RECORD_SET = scriptProtocol({
  label: 'record_set',
  keys: RECORD_KEYS,
  args: ['now', 'value', 'ttlMs'],
  replies: { stored: { code: 1, fields: {} } },
  lua: `
${PRELUDE_LUA}
local ttl = tonumber(A.ttlMs)
redis.call('DEL', K.record)
redis.call('HSET', K.record, 'value', A.value, 'expires_at', num(clock(A.now) + ttl))
redis.call('PEXPIRE', K.record, math.ceil(ttl))
return REPLY.stored{}
`,
});

/** delete: `live` 1 when a live record was deleted, else 0. */
export const RECORD_DELETE = scriptProtocol({
  label: 'record_delete',
  keys: RECORD_KEYS,
  args: ['now'],
  replies: { deleted: { code: 1, fields: { live: 'number' } } },
  lua: `
${PRELUDE_LUA}
local expires_at = redis.call('HGET', K.record, 'expires_at')
redis.call('DEL', K.record)
local live = 0
if expires_at and clock(A.now) < tonumber(expires_at) then live = 1 end
return REPLY.deleted{live = live}
`,
});
