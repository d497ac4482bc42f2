import { PRELUDE_LUA } from './clock.js';
import { LIMITER_FUNCTIONS_LUA } from './limiter.js';

/**
 * The store's epoch: a scope's key holding a random value, written when missing. A store that lost
 * it (restarted without persistence, flushed, evicted) has forgotten the scope's books, so every
 * worker that saw another value re-books what it holds before it admits anything new.
 */
export const STORE_FORGOTTEN_LUA = `
local function store_forgotten(key, known)
  return redis.call('GET', key) ~= known
end
`;

/**
 * rebook: writes back what one worker holds, unless the store still has the epoch it knows.
 * KEYS: epoch, the scope's window, tokens, token sum and leases, then per source group: its window,
 * tokens, token sum, leases and breaker state.
 * ARGV: injectedNow, knownEpoch ('' = re-book whatever the epoch), candidateEpoch (set when none
 * is), epochTtlMs, windowMs, leaseTtlMs, limiterKeyTtlMs, breakerKeyTtlMs, probeTtlMs, scope
 * windowed (0|1), scope leased (0|1), then per held admission 7 values: group (1-based), permit id,
 * charged (estimate, or '=' .. actual once settled), admitted at, leased (0|1), probe token ('' =
 * none), breaker epoch.
 * Every write is "add if absent" (a window entry, a lease, a breaker that forgot its probe), so
 * re-booking into a store that kept part of the books changes nothing of what it kept.
 * Returns {epoch now in force, 1 when re-booked | 0 when the store still had the known epoch}.
 */
export const REBOOK_LUA = `
${PRELUDE_LUA}
${LIMITER_FUNCTIONS_LUA}
local now = clock(ARGV[1])
local current = redis.call('GET', KEYS[1])
if current == ARGV[2] then return {current, 0} end
if not current then
  current = ARGV[3]
  redis.call('SET', KEYS[1], current, 'PX', ARGV[4])
end
local window, lease_ttl, key_ttl = tonumber(ARGV[5]), tonumber(ARGV[6]), tonumber(ARGV[7])
local breaker_ttl, probe_ttl = tonumber(ARGV[8]), tonumber(ARGV[9])
local scope_windowed, scope_leased = ARGV[10] == '1', ARGV[11] == '1'

local function book_window(win, tok, sum, id, value, at)
  if redis.call('ZADD', win, 'NX', at, id) == 1 then
    redis.call('HSET', tok, id, value)
    add_sum(sum, charged(value))
  end
end

for i = 12, #ARGV, 7 do
  local k = 5 + (tonumber(ARGV[i]) - 1) * 5
  local id, value, at = ARGV[i + 1], ARGV[i + 2], tonumber(ARGV[i + 3])
  if at > now - window then
    book_window(KEYS[k + 1], KEYS[k + 2], KEYS[k + 3], id, value, at)
    if scope_windowed then book_window(KEYS[2], KEYS[3], KEYS[4], id, value, at) end
  end
  if ARGV[i + 4] == '1' and at + lease_ttl > now then
    redis.call('ZADD', KEYS[k + 4], 'NX', at + lease_ttl, id)
    if scope_leased then redis.call('ZADD', KEYS[5], 'NX', at + lease_ttl, id) end
  end
  -- A half-open breaker whose probe this worker holds: open since the admission, probe leased, its
  -- open→half_open already reported by the admission that took the probe (probed, see lua/breaker.ts).
  local token, state = ARGV[i + 5], KEYS[k + 5]
  if token ~= '' and redis.call('EXISTS', state) == 0 then
    redis.call('HSET', state, 'state', 'open', 'epoch', ARGV[i + 6], 'open_until', num(at), 'consecutive', 0, 'reopen', 0,
      'probe_token', token, 'probe_until', num(at + probe_ttl), 'probed', 1)
    redis.call('PEXPIRE', state, breaker_ttl)
  end
end
-- The limiter's keys (not the breaker states, which keep their own TTL) live on from now.
for k = 2, #KEYS do
  if k <= 5 or (k - 6) % 5 ~= 4 then redis.call('PEXPIRE', KEYS[k], key_ttl) end
end
return {current, 1}
`;
