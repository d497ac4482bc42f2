import { PRELUDE_LUA } from './clock.js';
import { BREAKER_FUNCTIONS_LUA } from './gate.js';
import { LIMITER_FUNCTIONS_LUA } from './limiter.js';

/**
 * One attempt's governance in two scripts: the breaker's admission and the six gates before it, the
 * breaker's verdict and the permit's write-back after it. Both touch one scope, hence one hash slot.
 * KEYS (both): breaker state, breaker samples, then the limiter's eight keys (see lua/limiter.ts).
 */
const GOVERNOR_LUA = `
${PRELUDE_LUA}
${BREAKER_FUNCTIONS_LUA}
${LIMITER_FUNCTIONS_LUA}
local function triples(first)
  local a = ARGV
  return {
    triple(KEYS[3], KEYS[4], KEYS[5], KEYS[6], a[first], a[first + 1], a[first + 2], true),
    triple(KEYS[7], KEYS[8], KEYS[9], KEYS[10], a[first + 3], a[first + 4], a[first + 5], false),
  }
end
`;

/**
 * admit. ARGV: injectedNow, permitId, probeToken, probeTtlMs, breakerKeyTtlMs, estTokens, six limits,
 * leaseTtlMs, windowMs, limiterKeyTtlMs, concurrencyPollMs
 * Returns {1, epoch, probe (0|1)} when admitted (the probe lease, if any, is taken only then),
 * {0, 'open'|'half_open', retryAfterMs} when the breaker refuses (no gate is looked at), or
 * {2, gateIndex, retryAfterMs} when a gate refuses (nothing booked, no probe taken).
 */
export const ADMIT_LUA = `
${GOVERNOR_LUA}
local now = clock(ARGV[1])
local b = load(KEYS[1])
local admits, probe, wait = breaker_admits(b, now)
if not admits then return {0, probe, wait} end
local gate, hint = enter(now, ARGV[2], tonumber(ARGV[6]), triples(7),
  tonumber(ARGV[13]), tonumber(ARGV[14]), tonumber(ARGV[15]), ARGV[16])
if gate then return {2, gate, hint} end
if not probe then return {1, b.epoch, 0} end
take_probe(KEYS[1], ARGV[3], now, tonumber(ARGV[4]))
refresh_ttl({KEYS[1], KEYS[2]}, tonumber(ARGV[5]))
return {1, b.epoch, 1}
`;

/**
 * finish. ARGV: injectedNow, ticketEpoch, probeToken ('' for a non-probe ticket), verdict ('' = none:
 * the probe lease is released), the breaker policy (7 values, see record), permitId, actualTokens,
 * six limits, windowMs
 * Returns {verdict applied (0|1), settle applied (0|1), leases removed}.
 */
export const FINISH_LUA = `
${GOVERNOR_LUA}
local now = clock(ARGV[1])
local epoch, token, verdict = tonumber(ARGV[2]), ARGV[3], ARGV[4]
local b = load(KEYS[1])
local applied
if verdict == '' then
  applied = release_probe(KEYS[1], b, epoch, token)
else
  applied = record(KEYS[1], KEYS[2], b, now, epoch, token, verdict, policy(5))
end
local t = triples(14)
local settled = settle(now, ARGV[12], tonumber(ARGV[13]), t, tonumber(ARGV[20]))
return {applied, settled, release(ARGV[12], t)}
`;
