import { PRELUDE_LUA } from './clock.js';
import { LIMITER_FUNCTIONS_LUA } from './limiter.js';
import { KEY_BOOKS, TENANT_BOOKS } from './tenants.js';

/** A key's four gate books (not its budget: a reservation is charged whole on lapse, never re-booked). */
const KEY_LIMITER_BOOKS = KEY_BOOKS.filter((name) => name !== 'keyBudget');
import { scriptProtocol } from '../protocol.js';

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
 * rebook: writes back what one worker holds, unless the store still has the epoch it knows
 * (`knownStoreEpoch` '' = re-book whatever the epoch); `candidateEpoch` is set when none is. The
 * call: the store's epoch and the scope's books; an item: one held admission — its source's books, its
 * tenant's, its key's and the batch class's (on the scope and on the source), and its breaker, its permit, what it charged (its estimate, or '=' .. actual once settled), when it was
 * admitted, whether it holds a lease (0|1), the probe lease it holds ('' = none) under which
 * breaker epoch, and which of its tenant's, its class's and its key's books it was booked in (0|1 each). Every write is "add if absent" (a window entry, a lease, a breaker that forgot its
 * probe), so re-booking into a store that kept part of the books changes nothing of what it kept.
 * Reply: the epoch in force, and whether the call re-booked (0: the store still had the known epoch).
 */
export const REBOOK = scriptProtocol({
  label: 'holdings_rebook',
  keys: ['storeEpoch', 'globalWindow', 'globalTokens', 'globalTpm', 'globalLeases'],
  args: ['now', 'knownStoreEpoch', 'candidateEpoch', 'epochTtlMs', 'windowMs', 'leaseTtlMs', 'limiterKeyTtlMs', 'breakerKeyTtlMs', 'probeTtlMs', 'scopeWindowed', 'scopeLeased'],
  item: {
    keys: ['sourceWindow', 'sourceTokens', 'sourceTpm', 'sourceLeases', ...TENANT_BOOKS, ...KEY_LIMITER_BOOKS, 'breakerState'],
    args: [
      'permitId',
      'charged',
      'admittedAt',
      'leased',
      'probeToken',
      'breakerEpoch',
      'tenantWindowed',
      'tenantLeased',
      'batchWindowed',
      'batchLeased',
      'sourceBatchWindowed',
      'sourceBatchLeased',
      'keyWindowed',
      'keyLeased',
    ],
  },
  replies: { rebooked: { code: 1, fields: { epoch: 'string', rebooked: 'number' } } },
  lua: `
${PRELUDE_LUA}
${LIMITER_FUNCTIONS_LUA}
local now = clock(A.now)
local current = redis.call('GET', K.storeEpoch)
if current == A.knownStoreEpoch then return REPLY.rebooked{epoch = current, rebooked = 0} end
if not current then
  current = A.candidateEpoch
  redis.call('SET', K.storeEpoch, current, 'PX', A.epochTtlMs)
end
local window, lease_ttl, key_ttl = tonumber(A.windowMs), tonumber(A.leaseTtlMs), tonumber(A.limiterKeyTtlMs)
local breaker_ttl, probe_ttl = tonumber(A.breakerKeyTtlMs), tonumber(A.probeTtlMs)
local scope_windowed, scope_leased = A.scopeWindowed == '1', A.scopeLeased == '1'

local function book_window(win, tok, sum, id, value, at)
  if redis.call('ZADD', win, 'NX', at, id) == 1 then
    redis.call('HSET', tok, id, value)
    add_sum(sum, charged(value))
  end
end

-- The limiter's books written to live on from now (the breaker states keep their own TTL).
local written = {}
local function written_to(...)
  for _, key in ipairs({...}) do written[key] = true end
end
written_to(K.globalWindow, K.globalTokens, K.globalTpm, K.globalLeases)

for i = 1, ITEMS do
  local K, A = item(i)
  local id, value, at = A.permitId, A.charged, tonumber(A.admittedAt)
  if at > now - window then
    book_window(K.sourceWindow, K.sourceTokens, K.sourceTpm, id, value, at)
    if scope_windowed then book_window(K.globalWindow, K.globalTokens, K.globalTpm, id, value, at) end
    if A.tenantWindowed == '1' then book_window(K.tenantWindow, K.tenantTokens, K.tenantTpm, id, value, at) end
    if A.batchWindowed == '1' then book_window(K.batchWindow, K.batchTokens, K.batchTpm, id, value, at) end
    if A.sourceBatchWindowed == '1' then book_window(K.sourceBatchWindow, K.sourceBatchTokens, K.sourceBatchTpm, id, value, at) end
    if A.keyWindowed == '1' then book_window(K.keyWindow, K.keyTokens, K.keyTpm, id, value, at) end
  end
  if A.leased == '1' and at + lease_ttl > now then
    redis.call('ZADD', K.sourceLeases, 'NX', at + lease_ttl, id)
    if scope_leased then redis.call('ZADD', K.globalLeases, 'NX', at + lease_ttl, id) end
    if A.tenantLeased == '1' then redis.call('ZADD', K.tenantLeases, 'NX', at + lease_ttl, id) end
    if A.batchLeased == '1' then redis.call('ZADD', K.batchLeases, 'NX', at + lease_ttl, id) end
    if A.sourceBatchLeased == '1' then redis.call('ZADD', K.sourceBatchLeases, 'NX', at + lease_ttl, id) end
    if A.keyLeased == '1' then redis.call('ZADD', K.keyLeases, 'NX', at + lease_ttl, id) end
  end
  -- A half-open breaker whose probe this worker holds: open since the admission, probe leased, its
  -- open→half_open already reported by the admission that took the probe (probed, see lua/breaker.ts).
  if A.probeToken ~= '' and redis.call('EXISTS', K.breakerState) == 0 then
    redis.call('HSET', K.breakerState, 'state', 'open', 'epoch', A.breakerEpoch, 'open_until', num(at), 'consecutive', 0, 'reopen', 0,
      'probe_token', A.probeToken, 'probe_until', num(at + probe_ttl), 'probed', 1)
    redis.call('PEXPIRE', K.breakerState, breaker_ttl)
  end
  written_to(K.sourceWindow, K.sourceTokens, K.sourceTpm, K.sourceLeases)
  if A.tenantWindowed == '1' or A.tenantLeased == '1' then written_to(K.tenantWindow, K.tenantTokens, K.tenantTpm, K.tenantLeases) end
  if A.batchWindowed == '1' or A.batchLeased == '1' then written_to(K.batchWindow, K.batchTokens, K.batchTpm, K.batchLeases) end
  if A.keyWindowed == '1' or A.keyLeased == '1' then written_to(K.keyWindow, K.keyTokens, K.keyTpm, K.keyLeases) end
  if A.sourceBatchWindowed == '1' or A.sourceBatchLeased == '1' then
    written_to(K.sourceBatchWindow, K.sourceBatchTokens, K.sourceBatchTpm, K.sourceBatchLeases)
  end
end
for key in pairs(written) do redis.call('PEXPIRE', key, key_ttl) end
return REPLY.rebooked{epoch = current, rebooked = 1}
`,
});
