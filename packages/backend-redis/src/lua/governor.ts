import { BUDGET_FUNCTIONS_LUA, BUDGET_SETTLEMENT_LUA } from './budget.js';
import { PRELUDE_LUA } from './clock.js';
import { BREAKER_ADMISSION_LUA, BREAKER_FUNCTIONS_LUA, BREAKER_KEYS, BREAKER_POLICY, BREAKER_RECORD_LUA } from './breaker.js';
import { STORE_FORGOTTEN_LUA } from './holdings.js';
import { KEY_BOOKS, KEY_LIMITS, TENANT_BOOKS } from './tenants.js';
import { ENTRY_POLICY, GLOBAL_LIMITS, LIMITER_ENTRY_LUA, LIMITER_FUNCTIONS_LUA, LIMITER_SETTLEMENT_LUA, SOURCE_LIMITS } from './limiter.js';
import { KEY_GATES, LIMIT_GATES, TENANT_GATES } from '@pgw/core';
import { scriptProtocol } from '../protocol.js';

/**
 * One attempt's governance in two scripts: the breaker's admission and the six gates before it, the
 * breaker's verdict and the permit's write-back after it. Both touch one scope, hence one hash slot,
 * and both take any number of attempts in one call (an item each, run in order): what a process
 * issues within one event-loop turn (coalesce.ts). The call's fields are the scope's (its books,
 * line, policies); an item's are its source's and its own.
 */
const ADMISSION_LUA = `
${PRELUDE_LUA}
${BREAKER_FUNCTIONS_LUA}
${BREAKER_ADMISSION_LUA}
${LIMITER_FUNCTIONS_LUA}
${LIMITER_ENTRY_LUA}
${BUDGET_FUNCTIONS_LUA}
`;

const SETTLEMENT_LUA = `
${PRELUDE_LUA}
${BREAKER_FUNCTIONS_LUA}
${BREAKER_RECORD_LUA}
${LIMITER_FUNCTIONS_LUA}
${LIMITER_SETTLEMENT_LUA}
${BUDGET_SETTLEMENT_LUA}
`;

/**
 * The fleet-wide line of callers waiting for room in a scope, served fairly between tenants
 * (start-time fair queuing, docs/decisions.md): `line` a zset of interactive turns and `lineBatch` one
 * of batch turns, each turn scored by its tag; `alive` a zset (turn → when it lapses unless its
 * holder tries again); `lineTags` a hash of each class's virtual time (`v:<class>`) and each
 * tenant's last tag in it (`l:<class>:<tenant>`). Two zsets rather than one with a score offset:
 * tags grow without bound, so no offset stays above them, and the batch line is read only when the
 * interactive one is empty. A turn that lapsed is dropped by the next admission. Room freed while
 * anyone waits is announced on the scope's wake channel.
 */
const LINE_LUA = `
local function prune_line(K, now)
  local lapsed = redis.call('ZRANGEBYSCORE', K.alive, '-inf', now)
  if #lapsed > 0 then
    redis.call('ZREM', K.line, unpack(lapsed))
    redis.call('ZREM', K.lineBatch, unpack(lapsed))
    redis.call('ZREM', K.alive, unpack(lapsed))
  end
end

-- An empty zset does not exist: one read answers for both lines.
local function anyone_waits(K)
  return redis.call('EXISTS', K.line, K.lineBatch) > 0
end

local function announce_room(K, channel)
  if anyone_waits(K) then redis.call('PUBLISH', channel, '1') end
end
`;

/**
 * An admission's six gate triples: the source's and the scope's, then its tenant's, its key's and
 * (for a batch call) the batch class's on the scope and on the source. The last four come with
 * limits of 0 when unbounded, so they are neither windowed nor leased: no book of theirs is read or
 * written — save a key's, kept whenever the call has a key (its status reads them). Built once per
 * shared set of a call.
 */
const GOVERNED_TRIPLES_LUA = `
local governed_of = {}
local function governed_triples(K, A)
  local t = governed_of[K]
  if not t then
    local six = triples(K, A)
    t = {six[1], six[2],
      triple(K.tenantWindow, K.tenantTokens, K.tenantTpm, K.tenantLeases, A.tenantRpm, A.tenantTpm, A.tenantMaxConcurrency, false),
      triple(K.keyWindow, K.keyTokens, K.keyTpm, K.keyLeases, A.keyRpm, A.keyTpm, A.keyMaxConcurrency, A.keyKept == '1'),
      triple(K.batchWindow, K.batchTokens, K.batchTpm, K.batchLeases, A.batchRpm, A.batchTpm, A.batchMaxConcurrency, false),
      triple(K.sourceBatchWindow, K.sourceBatchTokens, K.sourceBatchTpm, K.sourceBatchLeases, A.sourceBatchRpm, A.sourceBatchTpm, A.sourceBatchMaxConcurrency, false)}
    governed_of[K] = t
  end
  return t
end
`;

const SCOPE_BOOKS = ['globalWindow', 'globalTokens', 'globalTpm', 'globalLeases'] as const;
/** A tenant's three limits, then the batch class's on the scope and on the source (0 = unlimited, or no batch call). */
export const TENANT_LIMITS = [
  'tenantRpm',
  'tenantTpm',
  'tenantMaxConcurrency',
  'batchRpm',
  'batchTpm',
  'batchMaxConcurrency',
  'sourceBatchRpm',
  'sourceBatchTpm',
  'sourceBatchMaxConcurrency',
] as const;
/**
 * What an attempt shares with the others of its source (and budget) in a call: its source's breaker
 * and books, and the base of the spend budget it charges (any key of the scope without a charge),
 * with the source's limits.
 */
const ATTEMPT_KEYS = [...BREAKER_KEYS, 'sourceWindow', 'sourceTokens', 'sourceTpm', 'sourceLeases', ...TENANT_BOOKS, ...KEY_BOOKS, 'budget'] as const;
const ATTEMPT_LIMITS = [...SOURCE_LIMITS, ...TENANT_LIMITS, ...KEY_LIMITS] as const;
/** Where an attempt's turn stands in line: its tenant, the tenant's weight, its class ('i' | 'b'). */
const LINE_PLACE = ['lineTenant', 'lineWeight', 'lineClass'] as const;


/**
 * admit. The call: the scope's books, line and store epoch (`knownStoreEpoch` the epoch this worker
 * knows), the breaker's probe lease, the scope's limits, how entries are booked, how long a turn in
 * line lasts and the wake channel. An item: its permit and probe token, its estimate, its source's
 * limits with its tenant's, its key's and its class's, its turn in line ('' = none), its budget charge (`budgetPeriod` '' = none; the
 * reservation and the budget in nano-dollars), and its key's budget charge (`keyBudgetPeriod` '' = none, likewise).
 * Replies, per item: `admitted` (a probe lease is taken only then: `probe` 1, `first` 1 for the open
 * period's first lease; the item's turn is over; `now` the script's clock, `periodStart` the budget
 * account's, `keyPeriodStart` the key budget's), `breakerRefused` (nothing else looked at), `budgetRefused` (`key` 1: the key's
 * own budget) and `gateRefused` (nothing booked, no probe taken; `gate` 1-based in the order LIMIT_GATES, TENANT_GATES,
 * KEY_GATES, BATCH_GATES twice: the scope's share, the source's), `queued` (others are before it in
 * line: an item with a turn joins the line at its back and keeps its place while it tries again
 * within turnTtlMs), `storeForgotten` (every item: the store lacks the epoch the worker knows, nothing
 * done; the worker re-books what it holds first).
 */
export const ADMIT = scriptProtocol({
  label: 'governor_admit',
  keys: [...SCOPE_BOOKS, 'line', 'lineBatch', 'alive', 'lineTags', 'storeEpoch'],
  args: ['now', 'knownStoreEpoch', 'probeTtlMs', 'breakerKeyTtlMs', ...GLOBAL_LIMITS, ...ENTRY_POLICY, 'turnTtlMs', 'wakeChannel'],
  item: {
    keys: [],
    args: ['permitId', 'estTokens', 'turn', 'budgetPeriod', 'reservation', 'budgetNano', 'keyBudgetPeriod', 'keyReservation', 'keyBudgetNano'],
    shared: { keys: ATTEMPT_KEYS, args: [...ATTEMPT_LIMITS, ...LINE_PLACE] },
  },
  replies: {
    admitted: { code: 1, fields: { epoch: 'number', probe: 'number', first: 'number', now: 'number', periodStart: 'string', keyPeriodStart: 'string' } },
    breakerRefused: { code: 0, fields: { state: 'string', retryAfterMs: 'number' } },
    gateRefused: { code: 2, fields: { gate: 'number', retryAfterMs: 'number' } },
    queued: { code: 3, fields: {} },
    budgetRefused: { code: 4, fields: { exceeded: 'number', spent: 'number', reserved: 'number', resetAt: 'number', key: 'number' } },
    storeForgotten: { code: 5, fields: {} },
  },
  lua: `
${ADMISSION_LUA}
${GOVERNED_TRIPLES_LUA}
${LINE_LUA}
${STORE_FORGOTTEN_LUA}
local TENANT_GATE_FIRST = ${LIMIT_GATES.length + 1}
-- The caller's own gates: its tenant's three, then its key's.
local OWN_GATES = ${TENANT_GATES.length + KEY_GATES.length}
local replies = {}
-- a store that forgot the caller's books admits nothing until the caller re-booked them.
if store_forgotten(K.storeEpoch, A.knownStoreEpoch) then
  for i = 1, ITEMS do replies[i] = REPLY.storeForgotten{} end
  return replies
end
local now = clock(A.now)
local now_text, turn_ttl = num(now), tonumber(A.turnTtlMs)
-- Which lines were seen empty since the last item with a turn.
local seen_empty = {}

-- Whether the line of a call without a turn holds anyone before it: its own class or a more urgent one.
local function waits_before(K, class)
  local lines = {K.line}
  if class == 'b' then lines[2] = K.lineBatch end
  local pruned = false
  for _, key in ipairs(lines) do
    if not seen_empty[key] then
      local held = redis.call('EXISTS', key) == 1
      -- Lapsed turns hold nobody back: a line that holds any is read again once they are dropped.
      if held and not pruned then
        prune_line(K, now)
        pruned = true
        held = redis.call('EXISTS', key) == 1
      end
      if held then return true end
      seen_empty[key] = true
    end
  end
  return false
end

-- A turn joins its class's line with tag max(the class's virtual time, its tenant's last tag) + 1/weight.
local function join_line(K, A, own, turn)
  if redis.call('ZSCORE', own, turn) then return end
  local last_field = 'l:' .. A.lineClass .. ':' .. A.lineTenant
  local seen = redis.call('HMGET', K.lineTags, 'v:' .. A.lineClass, last_field)
  local tag = math.max(tonumber(seen[1] or '0'), tonumber(seen[2] or '0')) + 1 / tonumber(A.lineWeight)
  local text = string.format('%.17g', tag)
  redis.call('HSET', K.lineTags, last_field, text)
  redis.call('ZADD', own, text, turn)
end

local function leave_line(K, own, turn)
  redis.call('ZREM', own, turn)
  redis.call('ZREM', K.alive, turn)
  announce_room(K, A.wakeChannel)
end

local function admit(K, A)
  local turn = A.turn
  local own = K.line
  if A.lineClass == 'b' then own = K.lineBatch end
  if turn ~= '' then
    seen_empty = {}
    prune_line(K, now)
    join_line(K, A, own, turn)
    redis.call('ZADD', K.alive, now + turn_ttl, turn)
    for _, key in ipairs({K.line, K.lineBatch, K.alive, K.lineTags}) do redis.call('PEXPIRE', key, 2 * turn_ttl) end
    if redis.call('ZRANGE', own, 0, 0)[1] ~= turn then return REPLY.queued{} end
    if own == K.lineBatch and redis.call('ZCARD', K.line) > 0 then return REPLY.queued{} end
  elseif waits_before(K, A.lineClass) then
    return REPLY.queued{}
  end
  local b = breaker_of(K.breakerState)
  local admits, probe_or_state, wait = breaker_admits(b, now)
  if not admits then return REPLY.breakerRefused{state = probe_or_state, retryAfterMs = wait} end
  local probe = probe_or_state
  local charged, acct, period_start, reset_at = A.budgetPeriod ~= '', nil, 0, -1
  if charged then
    period_start, reset_at = period_bounds(A.budgetPeriod, now)
    acct = K.budget .. '@' .. int(period_start)
    local refusal = budget_refusal(acct, now, tonumber(A.reservation), tonumber(A.budgetNano))
    if refusal then
      refusal.resetAt = int(reset_at)
      refusal.key = 0
      return REPLY.budgetRefused(refusal)
    end
  end
  local key_charged, key_acct, key_start, key_reset = A.keyBudgetPeriod ~= '', nil, 0, -1
  if key_charged then
    key_start, key_reset = period_bounds(A.keyBudgetPeriod, now)
    key_acct = K.keyBudget .. '@' .. int(key_start)
    local refusal = budget_refusal(key_acct, now, tonumber(A.keyReservation), tonumber(A.keyBudgetNano))
    if refusal then
      refusal.resetAt = int(key_reset)
      refusal.key = 1
      return REPLY.budgetRefused(refusal)
    end
  end
  local lease_ttl = tonumber(A.leaseTtlMs)
  local gate, hint = enter(now, A.permitId, tonumber(A.estTokens), governed_triples(K, A),
    lease_ttl, tonumber(A.windowMs), tonumber(A.limiterKeyTtlMs), A.concurrencyPollMs)
  if gate then
    -- Refused at its own tenant's or key's gates, a turn waits for itself, not for room: it must not hold the others back.
    if turn ~= '' and gate >= TENANT_GATE_FIRST and gate < TENANT_GATE_FIRST + OWN_GATES then leave_line(K, own, turn) end
    return REPLY.gateRefused{gate = gate, retryAfterMs = hint}
  end
  if charged then budget_reserve(acct, A.permitId, tonumber(A.reservation), now, lease_ttl, reset_at) end
  if key_charged then budget_reserve(key_acct, A.permitId, tonumber(A.keyReservation), now, lease_ttl, key_reset) end
  if turn ~= '' then
    -- The class's virtual time advances to the tag of the turn it serves.
    local tag = redis.call('ZSCORE', own, turn)
    local clock_field = 'v:' .. A.lineClass
    if tonumber(tag) > tonumber(redis.call('HGET', K.lineTags, clock_field) or '0') then redis.call('HSET', K.lineTags, clock_field, tag) end
    leave_line(K, own, turn)
  end
  local first = 0
  if probe then
    forget_breaker(K.breakerState)
    first = take_probe(K.breakerState, A.permitId, now, tonumber(A.probeTtlMs))
    refresh_ttl({K.breakerState, K.breakerSamples}, tonumber(A.breakerKeyTtlMs))
  end
  return REPLY.admitted{epoch = b.epoch, probe = probe and 1 or 0, first = first, now = now_text, periodStart = int(period_start), keyPeriodStart = int(key_start)}
end

for i = 1, ITEMS do replies[i] = admit(item(i)) end
write_bookings(tonumber(A.limiterKeyTtlMs))
return replies
`,
});

/** leaveLine: gives up a turn; the next in line is woken if the turn was first. */
export const LEAVE_LINE = scriptProtocol({
  label: 'governor_leave_line',
  keys: ['line', 'lineBatch', 'alive'],
  args: ['turn', 'wakeChannel'],
  replies: { left: { code: 1, fields: {} } },
  lua: `
${LINE_LUA}
local first = redis.call('ZRANGE', K.line, 0, 0)[1] == A.turn or redis.call('ZRANGE', K.lineBatch, 0, 0)[1] == A.turn
redis.call('ZREM', K.line, A.turn)
redis.call('ZREM', K.lineBatch, A.turn)
redis.call('ZREM', K.alive, A.turn)
if first then announce_room(K, A.wakeChannel) end
return REPLY.left{}
`,
});

/**
 * finish. The call: the scope's books and line, the breaker policy, the scope's limits, the window
 * and the wake channel. Shared as in admit. An item: its ticket's epoch and whether it holds the probe
 * lease (0|1, under its permit's id), the verdict ('' = none: the probe lease is released), its
 * permit and actual tokens, and the budget account's and the key budget's period starts ('' = no charge) with the cost in
 * nano-dollars.
 * Reply per item: whether the verdict, the settle and the budget's settlement applied (0|1), and the
 * verdict's transition as its reason ('' = none). Room freed is announced once per call while
 * anyone waits in line.
 */
export const FINISH = scriptProtocol({
  label: 'governor_finish',
  keys: [...SCOPE_BOOKS, 'line', 'lineBatch'],
  args: ['now', ...BREAKER_POLICY, ...GLOBAL_LIMITS, 'windowMs', 'wakeChannel'],
  item: {
    keys: [],
    args: ['ticketEpoch', 'probe', 'verdict', 'permitId', 'actualTokens', 'budgetPeriodStart', 'keyBudgetPeriodStart', 'costNano'],
    shared: { keys: ATTEMPT_KEYS, args: ATTEMPT_LIMITS },
  },
  replies: {
    finished: { code: 1, fields: { verdictApplied: 'number', settled: 'number', budgetSettled: 'number', transition: 'string' } },
  },
  lua: `
${SETTLEMENT_LUA}
${GOVERNED_TRIPLES_LUA}
${LINE_LUA}
local now = clock(A.now)
local p = policy(A)
local window = tonumber(A.windowMs)

local function finish(K, A)
  local epoch, verdict = tonumber(A.ticketEpoch), A.verdict
  local token = ''
  if A.probe == '1' then token = A.permitId end
  local b = breaker_of(K.breakerState)
  local applied, reason
  if verdict == '' then
    applied = release_probe(K.breakerState, b, epoch, token)
  else
    applied, reason = record(K.breakerState, K.breakerSamples, b, now, epoch, token, verdict, p)
  end
  -- A closed breaker's record keeps its copy true; a transition, an open breaker or a probe release does not.
  if verdict == '' or b.open or reason then
    write_counts(K.breakerState)
    forget_breaker(K.breakerState)
  end
  local t = governed_triples(K, A)
  local settled = settle(now, A.permitId, tonumber(A.actualTokens), t, window)
  release(A.permitId, t)
  local spent = 0
  if A.budgetPeriodStart ~= '' then spent = budget_settle(K.budget .. '@' .. A.budgetPeriodStart, A.permitId, tonumber(A.costNano)) end
  if A.keyBudgetPeriodStart ~= '' then spent = math.max(spent, budget_settle(K.keyBudget .. '@' .. A.keyBudgetPeriodStart, A.permitId, tonumber(A.costNano))) end
  return REPLY.finished{verdictApplied = applied, settled = settled, budgetSettled = spent, transition = reason or ''}
end

local replies = {}
for i = 1, ITEMS do replies[i] = finish(item(i)) end
write_all_counts()
write_settlements()
announce_room(K, A.wakeChannel)
return replies
`,
});
