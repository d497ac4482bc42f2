import { PRELUDE_LUA } from './clock.js';
import { scriptProtocol } from '../protocol.js';

/**
 * Sliding windows. A window is a zset (permit id → admission time) with a hash (permit id → tokens
 * charged) and a string holding their sum, so TPM is O(1) to read and trimming subtracts exactly what
 * leaves. An entry admitted at t counts while now < t + window. Leases are a zset (permit id →
 * expiry); a lease with expiry ≤ now is reclaimed by whichever script runs next.
 *
 * A gate triple is a table {win, tok, sum, lease, rpm, tpm, conc, windowed, leased}. A source's triple
 * always keeps its window and leases (its usage is public: `sourceStats`). The scope-wide triple keeps
 * a window only while its RPM or TPM limit is set, and leases only while its concurrency limit is:
 * an unlimited gate costs nothing.
 */
export const LIMITER_FUNCTIONS_LUA = `
local TRIM_BATCH = 500
-- A window no limit reads is trimmed in batches of this much time (sourceStats trims it exactly).
local LAZY_TRIM_MS = 1000

local function read_sum(sum)
  return tonumber(redis.call('GET', sum) or '0')
end

-- Token counts are integers, so the sum is kept with INCRBY; it never goes below 0.
local function add_sum(sum, delta)
  if delta ~= 0 and redis.call('INCRBY', sum, delta) < 0 then redis.call('SET', sum, 0, 'KEEPTTL') end
end

-- What an entry of the tokens hash charges: its estimate, or '=' .. actual once settled.
local function charged(value)
  if string.sub(value, 1, 1) == '=' then return tonumber(string.sub(value, 2)) end
  return tonumber(value)
end

local function trim(t, cutoff)
  while true do
    local gone = redis.call('ZRANGEBYSCORE', t.win, '-inf', cutoff, 'LIMIT', 0, TRIM_BATCH)
    if #gone == 0 then break end
    local values = redis.call('HMGET', t.tok, unpack(gone))
    local freed = 0
    for i = 1, #values do
      if values[i] then freed = freed + charged(values[i]) end
    end
    redis.call('HDEL', t.tok, unpack(gone))
    redis.call('ZREM', t.win, unpack(gone))
    add_sum(t.sum, -freed)
    if #gone < TRIM_BATCH then break end
  end
end

-- A gate with no limit whose books nobody reads: nothing of it is read, booked or written, so all
-- such gates share one triple instead of each making its own.
local UNBOUNDED = {win = '', tok = '', sum = '', lease = '', rpm = 0, tpm = 0, conc = 0, windowed = false, leased = false}

local function triple(win, tok, sum, lease, rpm, tpm, conc, always)
  if not always and rpm == '0' and tpm == '0' and conc == '0' then return UNBOUNDED end
  rpm, tpm, conc = tonumber(rpm), tonumber(tpm), tonumber(conc)
  return {win = win, tok = tok, sum = sum, lease = lease, rpm = rpm, tpm = tpm, conc = conc,
    windowed = always or rpm > 0 or tpm > 0, leased = always or conc > 0}
end

-- The source's and the scope's triples, from the limiter's eight keys and six limits by name: the
-- same for every item of a source in a call (a source's limits are its own), so built once.
local triples_of = {}
local function triples(K, A)
  local t = triples_of[K.sourceWindow]
  if not t then
    t = {
      triple(K.sourceWindow, K.sourceTokens, K.sourceTpm, K.sourceLeases, A.rpm, A.tpm, A.maxConcurrency, true),
      triple(K.globalWindow, K.globalTokens, K.globalTpm, K.globalLeases, A.globalRpm, A.globalTpm, A.globalMaxConcurrency, false),
    }
    triples_of[K.sourceWindow] = t
  end
  return t
end

`;

/** What an admission needs besides: its bookings, gathered and written once per call. */
export const LIMITER_ENTRY_LUA = `
-- What this run of the script already did to a book. All of a call's items share one clock reading,
-- so a window trimmed or a lease set reclaimed stays so for the rest of the call, and a book whose
-- TTL was checked or set does not need it again.
local trimmed, ttl_checked = {}, {}

-- A call's bookings, written when it ends (write_bookings): one ZADD, HSET and INCRBY per key, not
-- one per item. What a later item of the call reads of a book (the window's count, its token sum, the
-- leases held) includes them, so every gate sees exactly what it would have seen item by item.
local pending, pending_order, known = {}, {}, {}

local function pending_of(t)
  local p = pending[t.win]
  if not p then
    p = {t = t, win = {}, tok = {}, lease = {}, entries = 0, tokens = 0, leases = 0}
    pending[t.win] = p
    pending_order[#pending_order + 1] = p
  end
  return p
end

-- A book's size as Redis has it plus what the call booked into it: read once, then kept current.
local function known_value(key, read, booked)
  local value = known[key]
  if value == nil then
    value = read(key) + booked
    known[key] = value
  end
  return value
end

local function zcard(key) return redis.call('ZCARD', key) end

local function window_count(t)
  local p = pending[t.win]
  return known_value(t.win, zcard, p and p.entries or 0)
end

local function tokens_used(t)
  local p = pending[t.win]
  return known_value(t.sum, read_sum, p and p.tokens or 0)
end

local function leases_held(t)
  local p = pending[t.win]
  return known_value(t.lease, zcard, p and p.leases or 0)
end

local function add_known(key, delta)
  if known[key] ~= nil then known[key] = known[key] + delta end
end

local function book(t, now, id, est, lease_ttl)
  if not t.windowed and not t.leased then return end
  local p = pending_of(t)
  if t.windowed then
    p.win[#p.win + 1] = now
    p.win[#p.win + 1] = id
    p.tok[#p.tok + 1] = id
    p.tok[#p.tok + 1] = est
    p.entries = p.entries + 1
    p.tokens = p.tokens + est
    add_known(t.win, 1)
    add_known(t.sum, est)
  end
  if t.leased then
    p.lease[#p.lease + 1] = now + lease_ttl
    p.lease[#p.lease + 1] = id
    p.leases = p.leases + 1
    add_known(t.lease, 1)
  end
end

-- Writes the call's bookings. Keys are given their TTL when (re)created or past half of it, not on
-- every call: a window's three keys together, the lease set on its own — a source at concurrency 1
-- empties it with every call's end (Redis drops an empty zset), while its window lives on.
local function write_bookings(key_ttl)
  for _, p in ipairs(pending_order) do
    local t = p.t
    if p.entries > 0 then
      redis.call('ZADD', t.win, unpack(p.win))
      redis.call('HSET', t.tok, unpack(p.tok))
      add_sum(t.sum, p.tokens)
    end
    if p.leases > 0 then redis.call('ZADD', t.lease, unpack(p.lease)) end
    if not ttl_checked[t.win] then
      ttl_checked[t.win] = true
      if p.entries > 0 and redis.call('PTTL', t.win) < key_ttl / 2 then
        for _, key in ipairs({t.win, t.tok, t.sum}) do redis.call('PEXPIRE', key, key_ttl) end
      end
      if p.leases > 0 and redis.call('PTTL', t.lease) < key_ttl / 2 then redis.call('PEXPIRE', t.lease, key_ttl) end
    end
  end
  pending, pending_order = {}, {}
end

-- A full window's retry hint: until its oldest entry leaves (which may be one this call booked).
local function until_oldest_leaves(win, now, window, key_ttl)
  write_bookings(key_ttl)
  local oldest = redis.call('ZRANGE', win, 0, 0, 'WITHSCORES')
  return num(tonumber(oldest[2]) + window - now)
end

-- Admission: nil when admitted (booked, written by write_bookings), else the first full gate
-- (1-based within the triples: rpm, tpm, concurrency; +3 for each triple before) and its retry hint. A
-- denial books nothing.
local function enter(now, id, est, triples, lease_ttl, window, key_ttl, poll)
  local cutoff = now - window
  for _, t in ipairs(triples) do
    if not trimmed[t.win] then
      trimmed[t.win] = true
      if t.rpm > 0 or t.tpm > 0 then
        trim(t, cutoff)
      elseif t.windowed and #redis.call('ZRANGEBYSCORE', t.win, '-inf', cutoff - LAZY_TRIM_MS, 'LIMIT', 0, 1) > 0 then
        trim(t, cutoff)
      end
    end
    if t.conc > 0 and not trimmed[t.lease] then
      trimmed[t.lease] = true
      redis.call('ZREMRANGEBYSCORE', t.lease, '-inf', now)
    end
  end
  for level, t in ipairs(triples) do
    local base = (level - 1) * 3
    if t.rpm > 0 and window_count(t) >= t.rpm then return base + 1, until_oldest_leaves(t.win, now, window, key_ttl) end
    if t.tpm > 0 then
      local used = tokens_used(t)
      if used > 0 and used + est > t.tpm then return base + 2, until_oldest_leaves(t.win, now, window, key_ttl) end
    end
    if t.conc > 0 and leases_held(t) >= t.conc then return base + 3, poll end
  end
  for _, t in ipairs(triples) do book(t, now, id, est, lease_ttl) end
  return nil
end

`;

/** What a settlement needs besides: the call's settlements and releases, written once. */
export const LIMITER_SETTLEMENT_LUA = `
-- A call's settlements and releases, written once when it ends (write_settlements): one HSET and one
-- SET per book, one ZREM per lease set. A permit settles once per call whatever its items say (a
-- second settle of it would have found it settled); a sum is read once and kept in the call, clamped
-- at 0 after each change as INCRBY would have been.
local settled_now, retagged, retagged_order, sums, sums_read, sums_order, releases, releases_order = {}, {}, {}, {}, {}, {}, {}, {}

-- The list kept for a key in lists, made on first use; order lists the keys as they first came.
local function list_for(lists, order, key)
  local list = lists[key]
  if not list then
    list = {}
    lists[key] = list
    order[#order + 1] = key
  end
  return list
end

local function retag(tok, id, value)
  local fields = list_for(retagged, retagged_order, tok)
  fields[#fields + 1] = id
  fields[#fields + 1] = value
end

local function adjust_sum(sum, delta)
  local value = sums[sum]
  if value == nil then
    value = read_sum(sum)
    sums_read[sum] = value
    sums_order[#sums_order + 1] = sum
  end
  value = value + delta
  if value < 0 then value = 0 end
  sums[sum] = value
end

-- Re-charges a reservation to actual tokens in the window it was made in, once: its tokens entry
-- becomes '=' .. actual. A reservation that already left its window (trimmed or not yet) is not
-- touched: no refund into, no charge to, the current window. Returns 1 when applied, else 0.
local function settle(now, id, actual, triples, window)
  if settled_now[id] then return 0 end
  local admitted = redis.call('ZSCORE', triples[1].win, id)
  if not admitted or tonumber(admitted) <= now - window then return 0 end
  local before = redis.call('HGET', triples[1].tok, id)
  if not before or string.sub(before, 1, 1) == '=' then return 0 end
  settled_now[id] = true
  for i, t in ipairs(triples) do
    if t.windowed then
      local value = before
      if i > 1 then value = redis.call('HGET', t.tok, id) end
      if value then
        retag(t.tok, id, '=' .. actual)
        adjust_sum(t.sum, actual - charged(value))
      end
    end
  end
  return 1
end

local function release(id, triples)
  for _, t in ipairs(triples) do
    if t.leased then
      local ids = list_for(releases, releases_order, t.lease)
      ids[#ids + 1] = id
    end
  end
end

local function write_settlements()
  for _, tok in ipairs(retagged_order) do redis.call('HSET', tok, unpack(retagged[tok])) end
  for _, sum in ipairs(sums_order) do
    if sums[sum] ~= sums_read[sum] then redis.call('SET', sum, sums[sum], 'KEEPTTL') end
  end
  for _, lease in ipairs(releases_order) do redis.call('ZREM', lease, unpack(releases[lease])) end
end
`;

/** The limiter's eight keys (keys.ts limiterKeys): a source's window, tokens, token sum and leases, then the scope's. */
export const LIMITER_KEYS = ['sourceWindow', 'sourceTokens', 'sourceTpm', 'sourceLeases', 'globalWindow', 'globalTokens', 'globalTpm', 'globalLeases'] as const;
/** A source's three limits and the scope's (0 = unlimited). */
export const SOURCE_LIMITS = ['rpm', 'tpm', 'maxConcurrency'] as const;
export const GLOBAL_LIMITS = ['globalRpm', 'globalTpm', 'globalMaxConcurrency'] as const;
/** How an entry is booked: its lease's TTL, the window, the keys' TTL, a full concurrency gate's retry hint. */
export const ENTRY_POLICY = ['leaseTtlMs', 'windowMs', 'limiterKeyTtlMs', 'concurrencyPollMs'] as const;

const LIMITER_LUA = `
${PRELUDE_LUA}
${LIMITER_FUNCTIONS_LUA}
`;
const ENTRY_LUA = `
${LIMITER_LUA}
${LIMITER_ENTRY_LUA}
`;
const SETTLEMENT_LUA = `
${LIMITER_LUA}
${LIMITER_SETTLEMENT_LUA}
`;

/**
 * tryEnter. `now` is the injected clock ('' = Redis TIME), as in every clocked script.
 * admitted: everything booked. refused: `gate` (1-based, in @pgw/core LIMIT_GATES order) and its
 * hint (RPM/TPM: until the oldest entry leaves the window; concurrency: concurrencyPollMs, a
 * release comes when it comes); nothing booked. An estimate above the whole TPM limit is admitted
 * when the window holds no tokens, otherwise it could never run.
 */
export const ENTER = scriptProtocol({
  label: 'limiter_enter',
  keys: LIMITER_KEYS,
  args: ['now', 'permitId', 'estTokens', ...SOURCE_LIMITS, ...GLOBAL_LIMITS, ...ENTRY_POLICY],
  replies: { admitted: { code: 1, fields: {} }, refused: { code: 0, fields: { gate: 'number', retryAfterMs: 'number' } } },
  lua: `
${ENTRY_LUA}
local gate, wait = enter(clock(A.now), A.permitId, tonumber(A.estTokens), triples(K, A),
  tonumber(A.leaseTtlMs), tonumber(A.windowMs), tonumber(A.limiterKeyTtlMs), A.concurrencyPollMs)
if gate then return REPLY.refused{gate = gate, retryAfterMs = wait} end
write_bookings(tonumber(A.limiterKeyTtlMs))
return REPLY.admitted{}
`,
});

const SETTLE_ARGS = ['now', 'permitId', 'actualTokens', ...SOURCE_LIMITS, ...GLOBAL_LIMITS, 'windowMs'] as const;

/** settle: `applied` 1 the first time, 0 when settled before or the reservation left its window. */
export const SETTLE = scriptProtocol({
  label: 'limiter_settle',
  keys: LIMITER_KEYS,
  args: SETTLE_ARGS,
  replies: { settled: { code: 1, fields: { applied: 'number' } } },
  lua: `
${SETTLEMENT_LUA}
local applied = settle(clock(A.now), A.permitId, tonumber(A.actualTokens), triples(K, A), tonumber(A.windowMs))
write_settlements()
return REPLY.settled{applied = applied}
`,
});

/** settleAndRelease: settle, then release, atomically. */
export const SETTLE_RELEASE = scriptProtocol({
  label: 'limiter_settle_release',
  keys: LIMITER_KEYS,
  args: SETTLE_ARGS,
  replies: { done: { code: 1, fields: { applied: 'number' } } },
  lua: `
${SETTLEMENT_LUA}
local t = triples(K, A)
local applied = settle(clock(A.now), A.permitId, tonumber(A.actualTokens), t, tonumber(A.windowMs))
release(A.permitId, t)
write_settlements()
return REPLY.done{applied = applied}
`,
});

/** release: frees the concurrency slot (both leases), idempotently; `released` is 0 when already released or reclaimed. */
export const RELEASE = scriptProtocol({
  label: 'limiter_release',
  keys: ['sourceLeases', 'globalLeases'],
  args: ['permitId'],
  replies: { done: { code: 1, fields: { released: 'number' } } },
  lua: `
return REPLY.done{released = redis.call('ZREM', K.sourceLeases, A.permitId) + redis.call('ZREM', K.globalLeases, A.permitId)}
`,
});

/** stats: one source's usage after trimming its window and reclaiming its expired leases. */
export const STATS = scriptProtocol({
  label: 'limiter_stats',
  keys: ['sourceWindow', 'sourceTokens', 'sourceTpm', 'sourceLeases'],
  args: ['now', 'windowMs'],
  replies: { stats: { code: 1, fields: { inflight: 'number', rpmUsed: 'number', tpmUsed: 'number' } } },
  lua: `
${LIMITER_LUA}
local now = clock(A.now)
local t = triple(K.sourceWindow, K.sourceTokens, K.sourceTpm, K.sourceLeases, 0, 0, 0, true)
trim(t, now - tonumber(A.windowMs))
redis.call('ZREMRANGEBYSCORE', K.sourceLeases, '-inf', now)
return REPLY.stats{inflight = redis.call('ZCARD', K.sourceLeases), rpmUsed = redis.call('ZCARD', K.sourceWindow), tpmUsed = read_sum(K.sourceTpm)}
`,
});
