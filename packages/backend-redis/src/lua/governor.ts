import { BUDGET_FUNCTIONS_LUA } from './budget.js';
import { PRELUDE_LUA } from './clock.js';
import { BREAKER_FUNCTIONS_LUA } from './breaker.js';
import { STORE_FORGOTTEN_LUA } from './holdings.js';
import { LIMITER_FUNCTIONS_LUA } from './limiter.js';

/**
 * One attempt's governance in two scripts: the breaker's admission and the six gates before it, the
 * breaker's verdict and the permit's write-back after it. Both touch one scope, hence one hash slot.
 * KEYS (both): breaker state, breaker samples, the limiter's eight keys (see lua/limiter.ts), the
 * scope's line and its lapse times, then the base of the spend budget the attempt charges (see
 * lua/budget.ts; unused without a charge); admit also takes the store's epoch last (lua/holdings.ts).
 */
const GOVERNOR_LUA = `
${PRELUDE_LUA}
${BREAKER_FUNCTIONS_LUA}
${LIMITER_FUNCTIONS_LUA}
${BUDGET_FUNCTIONS_LUA}
`;

/**
 * The fleet-wide line of callers waiting for room in a scope: KEYS[11] a zset (turn → arrival time),
 * KEYS[12] a zset (turn → when it lapses unless its holder tries again). A turn that lapsed (its
 * process died, its call ended without leaving) is dropped by the next admission. Room freed while
 * anyone waits is announced on the scope's wake channel.
 */
const LINE_LUA = `
local function prune_line(line, alive, now)
  local lapsed = redis.call('ZRANGEBYSCORE', alive, '-inf', now)
  if #lapsed > 0 then
    redis.call('ZREM', line, unpack(lapsed))
    redis.call('ZREM', alive, unpack(lapsed))
  end
end

local function announce_room(line, channel)
  if redis.call('ZCARD', line) > 0 then redis.call('PUBLISH', channel, '1') end
end
`;

/**
 * admit. ARGV: injectedNow, permitId, probeToken, probeTtlMs, breakerKeyTtlMs, estTokens, six limits,
 * leaseTtlMs, windowMs, limiterKeyTtlMs, concurrencyPollMs, turn ('' = none), turnTtlMs, wakeChannel,
 * budget period ('' = no charge), reservation, budget (nano-dollars), knownStoreEpoch
 * Returns {1, epoch, probe (0|1), first, now, periodStart} when admitted (the probe lease, if any, is
 * taken only then — first = 1 for the open period's first lease; the caller's turn is over),
 * {0, 'open'|'half_open', retryAfterMs} when the breaker refuses (nothing else is looked at),
 * {4, exceeded, spent, reserved, resetAt} when the budget refuses and {2, gateIndex, retryAfterMs}
 * when a gate refuses (both: nothing booked, no probe taken), {3} when others are before the caller
 * in line (a caller with a turn joins the line at its back and keeps its place while it tries again
 * within turnTtlMs), or {5} when the store does not have the epoch the caller knows (nothing done:
 * the caller re-books what it holds first).
 */
export const ADMIT_LUA = `
${GOVERNOR_LUA}
${LINE_LUA}
${STORE_FORGOTTEN_LUA}
-- a store that forgot the caller's books admits nothing until the caller re-booked them.
if store_forgotten(KEYS[14], ARGV[23]) then return {5} end
local now = clock(ARGV[1])
local line, alive, turn, turn_ttl = KEYS[11], KEYS[12], ARGV[17], tonumber(ARGV[18])
if turn ~= '' then
  prune_line(line, alive, now)
  if not redis.call('ZSCORE', line, turn) then redis.call('ZADD', line, now, turn) end
  redis.call('ZADD', alive, now + turn_ttl, turn)
  redis.call('PEXPIRE', line, 2 * turn_ttl)
  redis.call('PEXPIRE', alive, 2 * turn_ttl)
  if redis.call('ZRANGE', line, 0, 0)[1] ~= turn then return {3} end
elseif redis.call('EXISTS', line) == 1 then
  prune_line(line, alive, now)
  if redis.call('EXISTS', line) == 1 then return {3} end
end
local b = load(KEYS[1])
local admits, probe, wait = breaker_admits(b, now)
if not admits then return {0, probe, wait} end
local charged, acct, period_start, reset_at = ARGV[20] ~= '', nil, 0, -1
if charged then
  period_start, reset_at = period_bounds(ARGV[20], now)
  acct = KEYS[13] .. '@' .. int(period_start)
  local refusal = budget_refusal(acct, now, tonumber(ARGV[21]), tonumber(ARGV[22]), reset_at)
  if refusal then return refusal end
end
local gate, hint = enter(now, ARGV[2], tonumber(ARGV[6]), triples(3, 7),
  tonumber(ARGV[13]), tonumber(ARGV[14]), tonumber(ARGV[15]), ARGV[16])
if gate then return {2, gate, hint} end
if charged then budget_reserve(acct, ARGV[2], tonumber(ARGV[21]), now, tonumber(ARGV[13]), reset_at) end
if turn ~= '' then
  redis.call('ZREM', line, turn)
  redis.call('ZREM', alive, turn)
  announce_room(line, ARGV[19])
end
if not probe then return {1, b.epoch, 0, 0, num(now), int(period_start)} end
local first = take_probe(KEYS[1], ARGV[3], now, tonumber(ARGV[4]))
refresh_ttl({KEYS[1], KEYS[2]}, tonumber(ARGV[5]))
return {1, b.epoch, 1, first, num(now), int(period_start)}
`;

/** leaveLine. KEYS: line, alive   ARGV: turn, wakeChannel. The next in line is woken if the turn was first. */
export const LEAVE_LINE_LUA = `
${LINE_LUA}
local first = redis.call('ZRANGE', KEYS[1], 0, 0)[1] == ARGV[1]
redis.call('ZREM', KEYS[1], ARGV[1])
redis.call('ZREM', KEYS[2], ARGV[1])
if first then announce_room(KEYS[1], ARGV[2]) end
return 1
`;

/**
 * finish. ARGV: injectedNow, ticketEpoch, probeToken ('' for a non-probe ticket), verdict ('' = none:
 * the probe lease is released), the breaker policy (7 values, see record), permitId, actualTokens,
 * six limits, windowMs, wakeChannel, the budget's periodStart ('' = no charge), cost (nano-dollars)
 * Returns {verdict applied (0|1), settle applied (0|1), leases removed, budget settled (0|1), the
 * verdict's transition as its reason ('' = none)}; the room freed is announced while anyone waits in line.
 */
export const FINISH_LUA = `
${GOVERNOR_LUA}
${LINE_LUA}
local now = clock(ARGV[1])
local epoch, token, verdict = tonumber(ARGV[2]), ARGV[3], ARGV[4]
local b = load(KEYS[1])
local applied, reason
if verdict == '' then
  applied = release_probe(KEYS[1], b, epoch, token)
else
  applied, reason = record(KEYS[1], KEYS[2], b, now, epoch, token, verdict, policy(5))
end
local t = triples(3, 14)
local settled = settle(now, ARGV[12], tonumber(ARGV[13]), t, tonumber(ARGV[20]))
local released = release(ARGV[12], t)
local spent = 0
if ARGV[22] ~= '' then spent = budget_settle(KEYS[13] .. '@' .. ARGV[22], ARGV[12], tonumber(ARGV[23])) end
announce_room(KEYS[11], ARGV[21])
return {applied, settled, released, spent, reason or ''}
`;
