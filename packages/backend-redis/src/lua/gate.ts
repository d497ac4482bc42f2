import { PRELUDE_LUA } from './clock.js';

/**
 * One source's breaker: a hash (state 'closed'|'open', epoch, open_until, consecutive, reopen,
 * probe_token, probe_until, seq) and two sample windows, zsets of successes and failures
 * (member = seq, score = time; a sample at t counts while now < t + window). Half-open is not stored:
 * it is an open breaker whose cooldown has passed, reached by time, so no ticket needs fencing there.
 */
const BREAKER_LUA = `
${PRELUDE_LUA}
local function load(key)
  local f = redis.call('HMGET', key, 'state', 'epoch', 'open_until', 'consecutive', 'reopen', 'probe_token', 'probe_until')
  return {
    open = f[1] == 'open',
    epoch = tonumber(f[2] or '0'),
    open_until = tonumber(f[3] or '0'),
    consecutive = tonumber(f[4] or '0'),
    reopen = tonumber(f[5] or '0'),
    probe_token = f[6],
    probe_until = tonumber(f[7] or '0'),
  }
end

-- The lease on record counts for its holder even past its TTL, until somebody retakes it.
local function holds_probe(b, token)
  return token ~= '' and token == b.probe_token
end

local function trim_samples(successes, failures, cutoff)
  redis.call('ZREMRANGEBYSCORE', successes, '-inf', cutoff)
  redis.call('ZREMRANGEBYSCORE', failures, '-inf', cutoff)
end
`;

/**
 * tryAcquire. KEYS: state   ARGV: injectedNow, probeToken (used if a probe is granted), probeTtlMs, keyTtlMs
 * Returns {1, epoch, 0} (closed), {1, epoch, 1} (the probe lease is now probeToken's), or
 * {0, 'open'|'half_open', retryAfterMs}: until the cooldown ends, or until the probe lease expires.
 */
export const ACQUIRE_LUA = `
${BREAKER_LUA}
local b = load(KEYS[1])
if not b.open then return {1, b.epoch, 0} end
local now = clock(ARGV[1])
if now < b.open_until then return {0, 'open', num(b.open_until - now)} end
if b.probe_token and now < b.probe_until then return {0, 'half_open', num(b.probe_until - now)} end
redis.call('HSET', KEYS[1], 'probe_token', ARGV[2], 'probe_until', num(now + tonumber(ARGV[3])))
touch(KEYS, tonumber(ARGV[4]))
return {1, b.epoch, 1}
`;

/**
 * record. KEYS: state, successes, failures
 * ARGV: injectedNow, ticketEpoch, probeToken ('' for a non-probe ticket), outcome ('success'|'failure'|'dead'|'invalid'),
 *       failureThreshold, failureRate, windowMs, minSamples, cooldownMs, maxCooldownMs, keyTtlMs
 * Returns 1 when applied, 0 when fenced off (stale epoch, or an open breaker and not the probe holder).
 * Closed: success/invalid reset the failure run (only success is a sample); failure/dead extend it and
 * are samples; dead trips at once. Rate channel: ≥ minSamples and failure rate ≥ failureRate.
 * Consecutive channel: ≥ failureThreshold in a row, unless health evidence (≥ minSamples at under
 * half the trip rate) says it is a blip and the run is shorter than twice the threshold.
 * Open (half-open): the probe holder's success/invalid closes; failure/dead reopens with k + 1.
 * Opening lasts cooldown × 2^k capped by maxCooldown and never shortens a deadline already set.
 * Every state change bumps the epoch.
 */
export const RECORD_LUA = `
${BREAKER_LUA}
local b = load(KEYS[1])
if tonumber(ARGV[2]) ~= b.epoch then return 0 end
local now = clock(ARGV[1])
local token, outcome = ARGV[3], ARGV[4]
local threshold, rate_limit, window, min_samples = tonumber(ARGV[5]), tonumber(ARGV[6]), tonumber(ARGV[7]), tonumber(ARGV[8])
local cooldown, max_cooldown, key_ttl = tonumber(ARGV[9]), tonumber(ARGV[10]), tonumber(ARGV[11])
local served = outcome == 'success' or outcome == 'invalid'

local function trip(k)
  local open_ms = math.min(max_cooldown, cooldown * 2 ^ k)
  redis.call('HSET', KEYS[1], 'state', 'open', 'epoch', b.epoch + 1, 'reopen', k,
    'open_until', num(math.max(b.open_until, now + open_ms)))
  redis.call('HDEL', KEYS[1], 'probe_token', 'probe_until')
end

local function close()
  redis.call('HSET', KEYS[1], 'state', 'closed', 'epoch', b.epoch + 1, 'open_until', 0, 'consecutive', 0, 'reopen', 0)
  redis.call('HDEL', KEYS[1], 'probe_token', 'probe_until')
  redis.call('DEL', KEYS[2], KEYS[3])
end

local function should_trip(consecutive)
  local failures = redis.call('ZCARD', KEYS[3])
  local samples = redis.call('ZCARD', KEYS[2]) + failures
  local rate = 0
  if samples > 0 then rate = failures / samples end
  if samples >= min_samples and rate >= rate_limit then return true end
  if consecutive < threshold then return false end
  local healthy = samples >= min_samples and rate < rate_limit / 2
  return (not healthy) or consecutive >= 2 * threshold
end

if b.open then
  if not holds_probe(b, token) then return 0 end
  if served then close() else trip(b.reopen + 1) end
  touch(KEYS, key_ttl)
  return 1
end

trim_samples(KEYS[2], KEYS[3], now - window)
local sample = redis.call('HINCRBY', KEYS[1], 'seq', 1)
if served then
  redis.call('HSET', KEYS[1], 'consecutive', 0)
  if outcome == 'success' then redis.call('ZADD', KEYS[2], now, sample) end
else
  local consecutive = b.consecutive + 1
  redis.call('HSET', KEYS[1], 'consecutive', consecutive)
  redis.call('ZADD', KEYS[3], now, sample)
  if outcome == 'dead' or should_trip(consecutive) then trip(b.reopen) end
end
touch(KEYS, key_ttl)
return 1
`;

/**
 * releaseProbe. KEYS: state   ARGV: ticketEpoch, probeToken
 * Frees the probe lease if this ticket still holds it under the current epoch. Returns 1 if freed.
 */
export const RELEASE_PROBE_LUA = `
${BREAKER_LUA}
local b = load(KEYS[1])
if tonumber(ARGV[1]) ~= b.epoch or not holds_probe(b, ARGV[2]) then return 0 end
redis.call('HDEL', KEYS[1], 'probe_token', 'probe_until')
return 1
`;

/**
 * snapshot. KEYS: state, successes, failures   ARGV: injectedNow, windowMs, keyTtlMs
 * Returns {state, epoch, openUntil (0 unless open or half-open), consecutiveFailures, reopenCount,
 * windowSuccesses, windowFailures, probeHeld (0|1)}.
 */
export const SNAPSHOT_LUA = `
${BREAKER_LUA}
local now = clock(ARGV[1])
local b = load(KEYS[1])
trim_samples(KEYS[2], KEYS[3], now - tonumber(ARGV[2]))
touch(KEYS, tonumber(ARGV[3]))
local state = 'closed'
local open_until = 0
if b.open then
  open_until = b.open_until
  if now < b.open_until then state = 'open' else state = 'half_open' end
end
local probe_held = 0
if b.probe_token and now < b.probe_until then probe_held = 1 end
return {state, b.epoch, num(open_until), b.consecutive, b.reopen,
  redis.call('ZCARD', KEYS[2]), redis.call('ZCARD', KEYS[3]), probe_held}
`;
