import { PRELUDE_LUA } from './clock.js';
import { scriptProtocol } from '../protocol.js';

/**
 * One source's breaker: a hash (state 'closed'|'open', epoch, open_until, consecutive, reopen,
 * probe_token, probe_until, and the window's running counts ok, fail over buckets from..to) and a hash
 * of per-second sample buckets ('o'..second / 'f'..second → count, by HINCRBY). A bucket of second s
 * counts while now < s × 1000 + window: a sample leaves its window up to 1 s early, never late.
 * Half-open is not stored: it is an open breaker whose cooldown has passed, reached by time, so no
 * ticket needs fencing there.
 */
export const BREAKER_FUNCTIONS_LUA = `
local BUCKET_BATCH = 500

local function load(key)
  local f = redis.call('HMGET', key, 'state', 'epoch', 'open_until', 'consecutive', 'reopen', 'probe_token', 'probe_until',
    'ok', 'fail', 'from', 'to')
  return {
    open = f[1] == 'open',
    epoch = tonumber(f[2] or '0'),
    open_until = tonumber(f[3] or '0'),
    consecutive = tonumber(f[4] or '0'),
    reopen = tonumber(f[5] or '0'),
    probe_token = f[6],
    probe_until = tonumber(f[7] or '0'),
    ok = tonumber(f[8] or '0'),
    fail = tonumber(f[9] or '0'),
    from = tonumber(f[10]),
    to = tonumber(f[11]),
  }
end

-- The breakers a call read, kept while what the call wrote to them is all that changed them; a call
-- that writes a breaker otherwise (a probe lease, a transition) forgets its copy.
local breakers_read = {}

local function breaker_of(key)
  local b = breakers_read[key]
  if not b then
    b = load(key)
    breakers_read[key] = b
  end
  return b
end

local function forget_breaker(key)
  breakers_read[key] = nil
end

-- The lease on record counts for its holder even past its TTL, until somebody retakes it.
local function holds_probe(b, token)
  return token ~= '' and token == b.probe_token
end

-- The samples hashes whose TTL this run of the script checked or set (forgotten when one is deleted).
local samples_ttl_checked = {}

-- keys: {state, samples}. Both are refreshed together, so the samples hash's TTL (absent: -2,
-- just created: -1) tells when: when (re)created or past half of it, not on every call.
local function refresh_ttl(keys, key_ttl)
  if samples_ttl_checked[keys[2]] then return end
  local ttl = redis.call('PTTL', keys[2])
  if ttl < key_ttl / 2 then
    for _, key in ipairs(keys) do redis.call('PEXPIRE', key, key_ttl) end
  end
  -- An absent hash gets its TTL when a later sample creates it.
  if ttl ~= -2 then samples_ttl_checked[keys[2]] = true end
end

local function delete_samples(samples)
  redis.call('DEL', samples)
  samples_ttl_checked[samples] = nil
end

local function window_fields(b)
  if not b.from then return {'ok', 0, 'fail', 0} end
  return {'ok', b.ok, 'fail', b.fail, 'from', b.from, 'to', b.to}
end

-- Drops the buckets that left the window; true when the counts changed (the caller writes them back).
local function trim_samples(b, state, samples, now, window)
  if not b.from then return false end
  local last_out = math.floor((now - window) / 1000)
  if last_out < b.from then return false end
  if last_out >= b.to then
    delete_samples(samples)
    redis.call('HDEL', state, 'from', 'to')
    b.ok, b.fail, b.from, b.to = 0, 0, nil, nil
    return true
  end
  local first = b.from
  while first <= last_out do
    local last = math.min(last_out, first + BUCKET_BATCH - 1)
    local fields = {}
    for s = first, last do
      fields[#fields + 1] = 'o' .. s
      fields[#fields + 1] = 'f' .. s
    end
    local counts = redis.call('HMGET', samples, unpack(fields))
    for i = 1, #counts, 2 do
      b.ok = b.ok - tonumber(counts[i] or '0')
      b.fail = b.fail - tonumber(counts[i + 1] or '0')
    end
    redis.call('HDEL', samples, unpack(fields))
    first = last + 1
  end
  b.from = last_out + 1
  return true
end

local function release_probe(state, b, epoch, token)
  if epoch ~= b.epoch or not holds_probe(b, token) then return 0 end
  redis.call('HDEL', state, 'probe_token', 'probe_until')
  return 1
end

`;

/** What an admission needs besides: the breaker's answer and the probe lease. */
export const BREAKER_ADMISSION_LUA = `
-- Admission: {true, probe} (probe: the half-open lease is to be taken) or {false, state, retryAfterMs}.
local function breaker_admits(b, now)
  if not b.open then return true, false end
  if now < b.open_until then return false, 'open', num(b.open_until - now) end
  if b.probe_token and now < b.probe_until then return false, 'half_open', num(b.probe_until - now) end
  return true, true
end

-- Returns 1 for the first lease of the open period (the breaker's open→half_open, reported once), else 0.
local function take_probe(state, token, now, probe_ttl)
  redis.call('HSET', state, 'probe_token', token, 'probe_until', num(now + probe_ttl))
  return redis.call('HSETNX', state, 'probed', 1)
end

`;

/** What a verdict needs besides: recording it, a call's closed-breaker counts written once. */
export const BREAKER_RECORD_LUA = `
-- A call's records into closed breakers, written when it ends (write_all_counts) or before its breaker is
-- written otherwise: one HINCRBY per sample bucket and one HSET per breaker, not one each per item.
-- All of a call's items share one clock reading, so nothing of this the call trims again.
local pending_counts, pending_counts_order = {}, {}

local function defer_counts(state, samples, b, bucket, key_ttl)
  local w = pending_counts[state]
  if not w then
    w = {state = state, samples = samples, buckets = {}, bucket_order = {}, key_ttl = key_ttl}
    pending_counts[state] = w
    pending_counts_order[#pending_counts_order + 1] = w
  end
  w.b = b
  if bucket then
    if not w.buckets[bucket] then
      w.buckets[bucket] = 0
      w.bucket_order[#w.bucket_order + 1] = bucket
    end
    w.buckets[bucket] = w.buckets[bucket] + 1
  end
end

local function write_counts(state)
  local w = pending_counts[state]
  if not w then return end
  pending_counts[state] = nil
  for _, bucket in ipairs(w.bucket_order) do redis.call('HINCRBY', w.samples, bucket, w.buckets[bucket]) end
  local fields = window_fields(w.b)
  fields[#fields + 1] = 'consecutive'
  fields[#fields + 1] = w.b.consecutive
  redis.call('HSET', state, unpack(fields))
  refresh_ttl({state, w.samples}, w.key_ttl)
end

local function write_all_counts()
  for _, w in ipairs(pending_counts_order) do write_counts(w.state) end
  pending_counts_order = {}
end

-- p: {threshold, rate, window, min_samples, cooldown, max_cooldown, key_ttl}. Returns 1 when applied,
-- 0 when fenced off (stale epoch, or an open breaker and not the probe holder); then the transition it
-- made, as its reason ('failures', 'source_dead', 'probe_succeeded', 'probe_failed'), or nil.
-- Closed: success/invalid reset the failure run (only success is a sample); failure/dead extend it and
-- are samples; dead trips at once. Rate channel: ≥ min_samples and failure rate ≥ rate. Consecutive
-- channel: ≥ threshold in a row, unless health evidence (≥ min_samples at under half the trip rate)
-- says it is a blip and the run is shorter than twice the threshold. Open (half-open): the probe
-- holder's success/invalid closes; failure/dead reopens with k + 1. Opening lasts cooldown × 2^k capped
-- by max_cooldown and never shortens a deadline already set. Every state change bumps the epoch.
local function record(state, samples, b, now, epoch, token, outcome, p)
  if epoch ~= b.epoch then return 0 end
  local served = outcome == 'success' or outcome == 'invalid'

  local function trip(k)
    local open_ms = math.min(p.max_cooldown, p.cooldown * 2 ^ k)
    redis.call('HSET', state, 'state', 'open', 'epoch', b.epoch + 1, 'reopen', k,
      'open_until', num(math.max(b.open_until, now + open_ms)))
    redis.call('HDEL', state, 'probe_token', 'probe_until', 'probed')
  end

  if b.open then
    if not holds_probe(b, token) then return 0 end
    if served then
      redis.call('HSET', state, 'state', 'closed', 'epoch', b.epoch + 1, 'open_until', 0, 'consecutive', 0, 'reopen', 0)
      redis.call('HDEL', state, 'probe_token', 'probe_until', 'probed', 'ok', 'fail', 'from', 'to')
      delete_samples(samples)
    else
      trip(b.reopen + 1)
    end
    refresh_ttl({state, samples}, p.key_ttl)
    if served then return 1, 'probe_succeeded' end
    return 1, 'probe_failed'
  end

  trim_samples(b, state, samples, now, p.window)
  local second = math.floor(now / 1000)
  local consecutive, bucket = 0, nil
  if outcome == 'success' then
    bucket = 'o' .. second
    b.ok = b.ok + 1
  elseif not served then
    bucket = 'f' .. second
    b.fail = b.fail + 1
    consecutive = b.consecutive + 1
  end
  if outcome ~= 'invalid' then
    b.from = b.from or second
    b.to = second
  end
  b.consecutive = consecutive
  defer_counts(state, samples, b, bucket, p.key_ttl)
  local reason
  if not served then
    local samples_n = b.ok + b.fail
    local rate = 0
    if samples_n > 0 then rate = b.fail / samples_n end
    local trips = samples_n >= p.min_samples and rate >= p.rate
    if not trips and consecutive >= p.threshold then
      local healthy = samples_n >= p.min_samples and rate < p.rate / 2
      trips = (not healthy) or consecutive >= 2 * p.threshold
    end
    if outcome == 'dead' then reason = 'source_dead' elseif trips then reason = 'failures' end
    if reason then
      write_counts(state)
      trip(b.reopen)
    end
  end
  return 1, reason
end

-- The breaker policy, by the names of BREAKER_POLICY.
local function policy(A)
  return {threshold = tonumber(A.failureThreshold), rate = tonumber(A.failureRate), window = tonumber(A.breakerWindowMs),
    min_samples = tonumber(A.minSamples), cooldown = tonumber(A.cooldownMs), max_cooldown = tonumber(A.maxCooldownMs),
    key_ttl = tonumber(A.breakerKeyTtlMs)}
end
`;

/** The breaker policy as the record scripts read it. */
export const BREAKER_POLICY = ['failureThreshold', 'failureRate', 'breakerWindowMs', 'minSamples', 'cooldownMs', 'maxCooldownMs', 'breakerKeyTtlMs'] as const;
export const BREAKER_KEYS = ['breakerState', 'breakerSamples'] as const;

/** A breaker's admission: `closed`, `probe` (the probe lease is now probeToken's; first = 1 for the open period's first lease) or `refused`. */
export const ACQUIRE_REPLIES = {
  closed: { code: 1, fields: { epoch: 'number' } },
  probe: { code: 2, fields: { epoch: 'number', first: 'number' } },
  refused: { code: 0, fields: { state: 'string', retryAfterMs: 'number' } },
} as const;

const BREAKER_LUA = `
${PRELUDE_LUA}
${BREAKER_FUNCTIONS_LUA}
`;

/** tryAcquire. refused: `state` open or half_open, `retryAfterMs` until the cooldown ends or the probe lease expires. */
export const ACQUIRE = scriptProtocol({
  label: 'breaker_acquire',
  keys: BREAKER_KEYS,
  args: ['now', 'probeToken', 'probeTtlMs', 'breakerKeyTtlMs'],
  replies: ACQUIRE_REPLIES,
  lua: `
${BREAKER_LUA}
${BREAKER_ADMISSION_LUA}
local b = load(K.breakerState)
if not b.open then return REPLY.closed{epoch = b.epoch} end
local now = clock(A.now)
local admits, state, wait = breaker_admits(b, now)
if not admits then return REPLY.refused{state = state, retryAfterMs = wait} end
local first = take_probe(K.breakerState, A.probeToken, now, tonumber(A.probeTtlMs))
refresh_ttl({K.breakerState, K.breakerSamples}, tonumber(A.breakerKeyTtlMs))
return REPLY.probe{epoch = b.epoch, first = first}
`,
});

/**
 * record. `probeToken` is '' for a non-probe ticket; `outcome` success, failure, dead or invalid.
 * `applied` 1, or 0 when fenced off; `transition` the reason of the transition made ('' = none).
 */
export const RECORD = scriptProtocol({
  label: 'breaker_record',
  keys: BREAKER_KEYS,
  args: ['now', 'ticketEpoch', 'probeToken', 'outcome', ...BREAKER_POLICY],
  replies: { recorded: { code: 1, fields: { applied: 'number', transition: 'string' } } },
  lua: `
${BREAKER_LUA}
${BREAKER_RECORD_LUA}
local applied, reason = record(K.breakerState, K.breakerSamples, load(K.breakerState), clock(A.now), tonumber(A.ticketEpoch), A.probeToken, A.outcome, policy(A))
write_all_counts()
return REPLY.recorded{applied = applied, transition = reason or ''}
`,
});

/** releaseProbe: frees the probe lease if this ticket still holds it under the current epoch (`freed` 1). */
export const RELEASE_PROBE = scriptProtocol({
  label: 'breaker_release_probe',
  keys: ['breakerState'],
  args: ['ticketEpoch', 'probeToken'],
  replies: { done: { code: 1, fields: { freed: 'number' } } },
  lua: `
${BREAKER_LUA}
return REPLY.done{freed = release_probe(K.breakerState, load(K.breakerState), tonumber(A.ticketEpoch), A.probeToken)}
`,
});

/** snapshot: `openUntil` is 0 unless open or half-open. */
export const SNAPSHOT = scriptProtocol({
  label: 'breaker_snapshot',
  keys: BREAKER_KEYS,
  args: ['now', 'breakerWindowMs'],
  replies: {
    snapshot: {
      code: 1,
      fields: { state: 'string', epoch: 'number', openUntil: 'number', consecutiveFailures: 'number', reopenCount: 'number', windowSuccesses: 'number', windowFailures: 'number', probeHeld: 'number' },
    },
  },
  lua: `
${BREAKER_LUA}
local now = clock(A.now)
local b = load(K.breakerState)
if trim_samples(b, K.breakerState, K.breakerSamples, now, tonumber(A.breakerWindowMs)) then redis.call('HSET', K.breakerState, unpack(window_fields(b))) end
local state = 'closed'
local open_until = 0
if b.open then
  open_until = b.open_until
  if now < b.open_until then state = 'open' else state = 'half_open' end
end
local probe_held = 0
if b.probe_token and now < b.probe_until then probe_held = 1 end
return REPLY.snapshot{state = state, epoch = b.epoch, openUntil = num(open_until), consecutiveFailures = b.consecutive,
  reopenCount = b.reopen, windowSuccesses = b.ok, windowFailures = b.fail, probeHeld = probe_held}
`,
});
