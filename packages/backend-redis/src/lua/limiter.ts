import { PRELUDE_LUA } from './clock.js';

/**
 * Sliding windows. A window is a zset (permit id → admission time) with a hash (permit id → tokens
 * charged) and a string holding their sum, so TPM is O(1) to read and trimming subtracts exactly what
 * leaves. An entry admitted at t counts while now < t + window. Leases are a zset (permit id →
 * expiry); a lease with expiry ≤ now is reclaimed by whichever script runs next.
 */
const WINDOW_LUA = `
${PRELUDE_LUA}
local TRIM_BATCH = 500

local function read_sum(sum)
  return tonumber(redis.call('GET', sum) or '0')
end

local function add_sum(sum, delta)
  local value = read_sum(sum) + delta
  if value < 0 then value = 0 end
  redis.call('SET', sum, num(value), 'KEEPTTL')
end

local function trim(win, tok, sum, cutoff)
  while true do
    local gone = redis.call('ZRANGEBYSCORE', win, '-inf', cutoff, 'LIMIT', 0, TRIM_BATCH)
    if #gone == 0 then break end
    local charged = redis.call('HMGET', tok, unpack(gone))
    local freed = 0
    for i = 1, #charged do
      if charged[i] then freed = freed + tonumber(charged[i]) end
    end
    redis.call('HDEL', tok, unpack(gone))
    redis.call('ZREM', win, unpack(gone))
    add_sum(sum, -freed)
  end
  if redis.call('ZCARD', win) == 0 then redis.call('DEL', sum, tok) end
end

local function reclaim(leases, now)
  redis.call('ZREMRANGEBYSCORE', leases, '-inf', now)
end
`;

/**
 * tryEnter: checks and reserves all six gates at once.
 * KEYS: sourceWindow, sourceTokens, sourceTpm, sourceLeases, globalWindow, globalTokens, globalTpm, globalLeases
 * ARGV: injectedNow ('' = TIME), permitId, estTokens, source rpm, tpm, maxConcurrency,
 *       global rpm, tpm, maxConcurrency (0 = unlimited), leaseTtlMs, windowMs, keyTtlMs, concurrencyPollMs
 * Returns {1} when admitted, or {0, gateIndex, retryAfterMs} (gateIndex 1-based, in @pgw/core LIMIT_GATES order); a denial writes nothing
 * but the trimming of what already left. RPM/TPM hints: until the oldest entry leaves the window;
 * concurrency: concurrencyPollMs (a release comes when it comes). An estimate above the whole TPM
 * limit is admitted when the window holds no tokens, otherwise it could never run.
 */
export const ENTER_LUA = `
${WINDOW_LUA}
local now = clock(ARGV[1])
local id = ARGV[2]
local est = tonumber(ARGV[3])
local lease_ttl, window, key_ttl, poll = tonumber(ARGV[10]), tonumber(ARGV[11]), tonumber(ARGV[12]), ARGV[13]
local cutoff = now - window

trim(KEYS[1], KEYS[2], KEYS[3], cutoff)
trim(KEYS[5], KEYS[6], KEYS[7], cutoff)
reclaim(KEYS[4], now)
reclaim(KEYS[8], now)

local function until_oldest_leaves(win)
  local oldest = redis.call('ZRANGE', win, 0, 0, 'WITHSCORES')
  return num(tonumber(oldest[2]) + window - now)
end

-- The first full gate of a triple (rpm, tpm, concurrency) and its retry hint, or nil.
local function denial(win, sum, leases, rpm, tpm, concurrency)
  if rpm > 0 and redis.call('ZCARD', win) >= rpm then return 1, until_oldest_leaves(win) end
  if tpm > 0 then
    local used = read_sum(sum)
    if used > 0 and used + est > tpm then return 2, until_oldest_leaves(win) end
  end
  if concurrency > 0 and redis.call('ZCARD', leases) >= concurrency then return 3, poll end
  return nil
end

local gate, wait = denial(KEYS[1], KEYS[3], KEYS[4], tonumber(ARGV[4]), tonumber(ARGV[5]), tonumber(ARGV[6]))
if not gate then
  gate, wait = denial(KEYS[5], KEYS[7], KEYS[8], tonumber(ARGV[7]), tonumber(ARGV[8]), tonumber(ARGV[9]))
  if gate then gate = gate + 3 end
end
if gate then
  touch(KEYS, key_ttl)
  return {0, gate, wait}
end

for _, books in ipairs({{KEYS[1], KEYS[2], KEYS[3], KEYS[4]}, {KEYS[5], KEYS[6], KEYS[7], KEYS[8]}}) do
  redis.call('ZADD', books[1], now, id)
  redis.call('HSET', books[2], id, est)
  add_sum(books[3], est)
  redis.call('ZADD', books[4], now + lease_ttl, id)
end
touch(KEYS, key_ttl)
return {1}
`;

/**
 * settle: re-charges the reservation to actualTokens (= est + delta) in the window it was made in, once.
 * A reservation that already left its window is not touched: no refund into, no charge to, the new window.
 * KEYS: sourceWindow, sourceTokens, sourceTpm, globalWindow, globalTokens, globalTpm, settled
 * ARGV: injectedNow, permitId, actualTokens, windowMs, keyTtlMs
 * Returns 1 when applied, 0 when already settled or out of the window. `settled` (permit id →
 * admission time) remembers settled permits exactly as long as their reservation can be touched.
 */
const SETTLE_FUNCTION_LUA = `
${WINDOW_LUA}
local function settle()
  local now = clock(ARGV[1])
  local id = ARGV[2]
  local actual = tonumber(ARGV[3])
  local window, key_ttl = tonumber(ARGV[4]), tonumber(ARGV[5])
  local cutoff = now - window

  trim(KEYS[1], KEYS[2], KEYS[3], cutoff)
  trim(KEYS[4], KEYS[5], KEYS[6], cutoff)
  redis.call('ZREMRANGEBYSCORE', KEYS[7], '-inf', cutoff)
  if redis.call('ZSCORE', KEYS[7], id) then return 0 end
  local admitted = redis.call('ZSCORE', KEYS[1], id)
  if not admitted then return 0 end

  for _, books in ipairs({{KEYS[2], KEYS[3]}, {KEYS[5], KEYS[6]}}) do
    local charged = tonumber(redis.call('HGET', books[1], id) or '0')
    redis.call('HSET', books[1], id, actual)
    add_sum(books[2], actual - charged)
  end
  redis.call('ZADD', KEYS[7], admitted, id)
  -- Only the settled set gains an entry here. The windows' keys got their TTL from the enter that admitted
  -- this reservation, and everything re-weighed here leaves its window before they expire.
  redis.call('PEXPIRE', KEYS[7], key_ttl)
  return 1
end
`;

export const SETTLE_LUA = `
${SETTLE_FUNCTION_LUA}
return settle()
`;

/**
 * settleAndRelease: settle, then release, atomically — one round trip where the two scripts take two.
 * KEYS: those of settle, then sourceLeases, globalLeases   ARGV: those of settle
 * Returns {settle's reply, the number of leases removed}.
 */
export const SETTLE_RELEASE_LUA = `
${SETTLE_FUNCTION_LUA}
local applied = settle()
return {applied, redis.call('ZREM', KEYS[8], ARGV[2]) + redis.call('ZREM', KEYS[9], ARGV[2])}
`;

/**
 * release: frees the concurrency slot (both leases). Idempotent.
 * KEYS: sourceLeases, globalLeases   ARGV: permitId
 * Returns the number of leases removed (0 when already released or reclaimed).
 */
export const RELEASE_LUA = `
return redis.call('ZREM', KEYS[1], ARGV[1]) + redis.call('ZREM', KEYS[2], ARGV[1])
`;

/**
 * stats: one source's usage after trimming its window and reclaiming its expired leases.
 * KEYS: sourceWindow, sourceTokens, sourceTpm, sourceLeases   ARGV: injectedNow, windowMs, keyTtlMs
 * Returns {inflight, rpmUsed, tpmUsed}.
 */
export const STATS_LUA = `
${WINDOW_LUA}
local now = clock(ARGV[1])
trim(KEYS[1], KEYS[2], KEYS[3], now - tonumber(ARGV[2]))
reclaim(KEYS[4], now)
touch(KEYS, tonumber(ARGV[3]))
return {redis.call('ZCARD', KEYS[4]), redis.call('ZCARD', KEYS[1]), num(read_sum(KEYS[3]))}
`;
