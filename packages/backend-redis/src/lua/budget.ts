/**
 * The spend budget's part of the governor's two scripts (docs/architecture.md#spend-budgets). One
 * account per budget per UTC period, computed from the script's clock so every worker agrees:
 * `<base>@<periodStart>` a hash (`spent`, `reserved` and one `r:<permitId>` per reservation, in
 * whole nano-dollars), `<base>@<periodStart>:exp` a zset (permitId → when its reservation lapses).
 * The base carries the scope's hash tag, so both live in the scope's slot. A reservation never
 * settled within the lease TTL is charged whole: its attempt may have been billed.
 */
import { PRELUDE_LUA } from './clock.js';
import { scriptProtocol } from '../protocol.js';

/** The period, the books and what an admission reserves (the status reads the same). */
export const BUDGET_FUNCTIONS_LUA = `
local DAY_MS = 86400000

-- Days since 1970-01-01 of a civil date (H. Hinnant's algorithm).
local function days_from_civil(y, m, d)
  if m <= 2 then y = y - 1 end
  local era = math.floor(y / 400)
  local yoe = y - era * 400
  local mp = m > 2 and m - 3 or m + 9
  local doy = math.floor((153 * mp + 2) / 5) + d - 1
  local doe = yoe * 365 + math.floor(yoe / 4) - math.floor(yoe / 100) + doy
  return era * 146097 + doe - 719468
end

-- The UTC period containing now: its start and the next one's (-1 for total).
local function period_bounds(period, now)
  if period == 'total' then return 0, -1 end
  if period == 'hour' then
    local start = now - now % 3600000
    return start, start + 3600000
  end
  local start = now - now % DAY_MS
  if period == 'day' then return start, start + DAY_MS end
  local z = math.floor(now / DAY_MS) + 719468
  local era = math.floor(z / 146097)
  local doe = z - era * 146097
  local yoe = math.floor((doe - math.floor(doe / 1460) + math.floor(doe / 36524) - math.floor(doe / 146096)) / 365)
  local doy = doe - (365 * yoe + math.floor(yoe / 4) - math.floor(yoe / 100))
  local mp = math.floor((5 * doy + 2) / 153)
  local y = yoe + era * 400
  local m = mp < 10 and mp + 3 or mp - 9
  if m <= 2 then y = y + 1 end
  local ny, nm = y, m + 1
  if nm > 12 then ny, nm = y + 1, 1 end
  return days_from_civil(y, m, 1) * DAY_MS, days_from_civil(ny, nm, 1) * DAY_MS
end

-- Lapsed reservations become spend; returns the account's spent and reserved.
local function budget_books(acct, now)
  local lapsed = redis.call('ZRANGEBYSCORE', acct .. ':exp', '-inf', now)
  for _, id in ipairs(lapsed) do
    local held = redis.call('HGET', acct, 'r:' .. id)
    if held then
      redis.call('HDEL', acct, 'r:' .. id)
      redis.call('HINCRBY', acct, 'reserved', int(-tonumber(held)))
      redis.call('HINCRBY', acct, 'spent', held)
    end
  end
  if #lapsed > 0 then redis.call('ZREM', acct .. ':exp', unpack(lapsed)) end
  local books = redis.call('HMGET', acct, 'spent', 'reserved')
  return tonumber(books[1]) or 0, tonumber(books[2]) or 0
end

-- nil when the reservation fits; else the refusal: exceeded (0|1), spent, reserved.
local function budget_refusal(acct, now, reserve, limit)
  local spent, reserved = budget_books(acct, now)
  if spent + reserved + reserve <= limit then return nil end
  local exceeded = 0
  if spent + reserve > limit then exceeded = 1 end
  return {exceeded = exceeded, spent = int(spent), reserved = int(reserved)}
end

local function budget_reserve(acct, id, reserve, now, lease_ttl, reset_at)
  redis.call('HSET', acct, 'r:' .. id, int(reserve))
  redis.call('HINCRBY', acct, 'reserved', int(reserve))
  redis.call('ZADD', acct .. ':exp', now + lease_ttl, id)
  if reset_at >= 0 then
    -- Kept past its period for as long as a reservation made at its end may still settle. Relative
    -- to the script's clock (PEXPIRE, not PEXPIREAT): an injected test clock keeps its meaning.
    local ttl = int(reset_at - now + lease_ttl + 60000)
    redis.call('PEXPIRE', acct, ttl)
    redis.call('PEXPIRE', acct .. ':exp', ttl)
  end
end

`;

/** What a settlement needs of the budget. */
export const BUDGET_SETTLEMENT_LUA = `
-- Replaces a reservation with the cost; 0 when it was settled (or charged on lapse) before.
local function budget_settle(acct, id, cost)
  local held = redis.call('HGET', acct, 'r:' .. id)
  if not held then return 0 end
  redis.call('HDEL', acct, 'r:' .. id)
  redis.call('ZREM', acct .. ':exp', id)
  redis.call('HINCRBY', acct, 'reserved', int(-tonumber(held)))
  redis.call('HINCRBY', acct, 'spent', int(cost))
  return 1
end
`;

/** budgetStatus: the current period's spent and reserved, in nano-dollars, and when it resets (-1: total, never). */
export const BUDGET_STATUS = scriptProtocol({
  label: 'governor_budget_status',
  keys: ['budget'],
  args: ['now', 'budgetPeriod'],
  replies: { status: { code: 1, fields: { spent: 'number', reserved: 'number', resetAt: 'number' } } },
  lua: `
${PRELUDE_LUA}
${BUDGET_FUNCTIONS_LUA}
local now = clock(A.now)
local start, reset_at = period_bounds(A.budgetPeriod, now)
local spent, reserved = budget_books(K.budget .. '@' .. int(start), now)
return REPLY.status{spent = int(spent), reserved = int(reserved), resetAt = int(reset_at)}
`,
});
