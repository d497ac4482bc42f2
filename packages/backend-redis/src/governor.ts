import type { RedisClient } from './connection.js';
import { BATCH_GATES, DEFAULT_CALLER, KEY_GATES, LIMIT_GATES, TENANT_GATES, type AdmissionGate, type BreakerRefusal, type BreakerSnapshot, type BreakerTicket, type BreakerTransition, type BreakerVerdict, type BudgetCharge, type BudgetPolicy, type BudgetStatus, type Caller, type Clock, type GlobalLimits, type Governor, type GovernorRefusal, type KeyBounds, type KeyStatus, type Lease, type Permit, type SourceStats, type TenantPolicy, type TenantUse } from '@pgw/core';
import { assertBudgetPolicy, assertNonNegativeInteger, assertTenantPolicy, batchLimitsOf, batchShareBinds, budgetPeriodAt, budgetTenantOf, NO_TENANT_POLICY, optionalPositiveMs, tenantShareOf, tenantsBounded, TicketLease } from '@pgw/core/internal';
import { DEFAULT_TIMEOUT_MS, duplicateConnection } from './connection.js';
import { failClosed } from './fail-closed.js';
import { probeTokenOf, RedisBreaker, ticketOf, transitionOf, type RedisBreakerOptions } from './breaker.js';
import { denialOf, LIMIT_WINDOW_MS, RedisLimiter, type EntryPlan, type RedisLimiterOptions } from './limiter.js';
import { BudgetKeys, keyBudgetPart, keyBudgetRefusal, keyBudgetStatus, type BudgetPart, type KeyBudgetPart } from './budget-keys.js';
import { Coalescer } from './coalesce.js';
import { Holdings } from './holdings.js';
import { keyKeys, limiterKeys, lineKeys, scopePrefix, sourceBatchKeys, storeEpochKey, tenantKeys } from './keys.js';
import { BUDGET_STATUS } from './lua/budget.js';
import { ADMIT, FINISH, LEAVE_LINE } from './lua/governor.js';
import { STATS } from './lua/limiter.js';
import type { ItemOf, ReplyOf, SharedOf } from './protocol.js';
import { WriteBackReplay } from './replay.js';
import { clockArg } from './scripts.js';

/**
 * A turn in line lapses unless its holder tries again within this (a waiter tries at least every
 * QUEUED_RETRY_MS): short, so a turn whose holder is gone (its process died, its call failed while
 * Redis was unreachable) holds nobody back for long.
 */
const TURN_TTL_MS = 1_500;
/** How long a caller refused because others wait before it sleeps at most before trying again (a wake comes sooner). */
const QUEUED_RETRY_MS = 500;

const QUEUED = Object.freeze({ ok: false, queued: true, retryAfterMs: QUEUED_RETRY_MS } as const);

export type RedisGovernorOptions = RedisLimiterOptions &
  Pick<RedisBreakerOptions, 'policy'> & {
    budget?: BudgetPolicy;
    /** The scope's tenants: their bounds, weights and the batch share (default: none bounded). */
    tenants?: TenantPolicy;
  };

/** Every gate an admission can be refused at, in the scripts' order (1-based there). */
const ADMISSION_GATES: readonly AdmissionGate[] = [...LIMIT_GATES, ...TENANT_GATES, ...KEY_GATES, ...BATCH_GATES, ...BATCH_GATES];
/** The limits of a triple no admission is booked under: neither windowed nor leased. */
const UNBOUNDED: GlobalLimits = Object.freeze({ rpm: 0, tpm: 0, maxConcurrency: 0 });

type Refused = Exclude<GovernorRefusal, { refusal: object }>;
/** The breaker's answer, and the periods the budgets reserved in (when charged). */
type Acquired = { readonly ticket: BreakerTicket | BreakerRefusal; readonly periodStart: string; readonly keyPeriodStart: string };

type AdmitItem = ItemOf<typeof ADMIT>;
type AdmitReply = ReplyOf<typeof ADMIT>;
type FinishItem = ItemOf<typeof FINISH>;
type FinishReply = ReplyOf<typeof FINISH>;
/**
 * What an attempt shares in each script with the others of its source, budget, tenant and class:
 * the finish's set is the admission's without the attempt's place in line.
 */
type AttemptSets = { readonly admit: SharedOf<typeof ADMIT>; readonly finish: SharedOf<typeof FINISH> };
const NO_KEYS = Object.freeze({});
/** Sets of source and budget kept at most (a scope's sources times its tenants seen lately). */
const MAX_ATTEMPT_SETS = 10_000;

/** A lease's end: the breaker's verdict, the permit's settle-and-release, the budget's settlement. */
type LeaseEnd = (verdict: BreakerVerdict | undefined, actualTokens: number, spentUsd: number) => Promise<BreakerTransition | undefined>;

/** A Redis governor's lease: the once-only rule is TicketLease's, the write-back the governor's. */
class RedisLease extends TicketLease {
  readonly #end: LeaseEnd;

  constructor(ticket: BreakerTicket, permit: Permit, end: LeaseEnd) {
    super(ticket, permit);
    this.#end = end;
  }

  finish(verdict: BreakerVerdict | undefined, actualTokens: number, spentUsd = 0): Promise<BreakerTransition | undefined> {
    return this.firstFinish() ? this.#end(verdict, actualTokens, spentUsd) : Promise.resolve(undefined);
  }
}

/** A ticket no admission answered (the reply was lost): its epoch fences off any breaker write. */
const UNANSWERED: BreakerTicket = Object.freeze({ ok: true, source: '', epoch: -1, probe: false });

/**
 * A scope's breakers and six gates on one Redis behind the `Governor` port: one script before an
 * attempt (breaker admission + six gates), one after (breaker verdict + settle + release), each
 * answering the breaker transition it made. The admissions and the ends this process issues within
 * one event-loop turn share one script call each way (coalesce.ts). `limiter` and `breaker` are the
 * same books seen whole (stats, snapshots, tests).
 */
export class RedisGovernor implements Governor {
  readonly limiter: RedisLimiter;
  readonly breaker: RedisBreaker;
  readonly #redis: RedisClient;
  readonly #scope: string;
  readonly #now: Clock | undefined;
  readonly #timeoutMs: number;
  readonly #line: ReturnType<typeof lineKeys>;
  readonly #roomListeners = new Set<() => void>();
  readonly #budget: BudgetKeys | undefined;
  readonly #holdings: Holdings;
  readonly #scopeWindowed: boolean;
  readonly #admissions: Coalescer<AdmitItem, AdmitReply>;
  readonly #ends: Coalescer<FinishItem, FinishReply>;
  readonly #sets = new Map<string, AttemptSets>();
  readonly #tenants: TenantPolicy;
  readonly #tenantsBounded: boolean;
  /** The batch class's limits, when its share binds any of the scope's. */
  readonly #batchLimits: GlobalLimits | undefined;
  #subscriber: RedisClient | undefined;

  constructor(options: RedisGovernorOptions) {
    this.limiter = new RedisLimiter(options);
    this.breaker = new RedisBreaker({ ...options, sources: Object.keys(options.sources) });
    this.#redis = options.redis;
    this.#scope = options.scope;
    this.#now = options.now;
    this.#timeoutMs = optionalPositiveMs(options.commandTimeoutMs, 'commandTimeoutMs', DEFAULT_TIMEOUT_MS);
    const prefix = scopePrefix(options.scope);
    this.#line = lineKeys(prefix);
    if (options.budget) assertBudgetPolicy(options.budget);
    this.#budget = options.budget && new BudgetKeys(options.scope, options.budget);
    const { global } = options;
    this.#tenants = options.tenants ?? NO_TENANT_POLICY;
    assertTenantPolicy(this.#tenants);
    this.#tenantsBounded = tenantsBounded(this.#tenants);
    this.#batchLimits = batchShareBinds(global, this.#tenants.batchShare) ? batchLimitsOf(global, this.#tenants.batchShare) : undefined;
    const scopeKeys = limiterKeys(prefix, '');
    this.#scopeWindowed = global.rpm > 0 || global.tpm > 0;
    const [probeTtlMs, breakerKeyTtlMs] = this.breaker.probeArgs;
    this.#holdings = new Holdings({
      redis: options.redis,
      epochKey: storeEpochKey(prefix),
      scopeKeys,
      windowMs: LIMIT_WINDOW_MS,
      leaseTtlMs: options.leaseTtlMs,
      limiterKeyTtlMs: this.limiter.keyTtlMs,
      breakerKeyTtlMs,
      probeTtlMs,
      scopeWindowed: this.#scopeWindowed,
      scopeLeased: global.maxConcurrency > 0,
      now: options.now,
      timeoutMs: this.#timeoutMs,
    });
    // What every call of the two scripts sends besides its items: the scope's books, line and policies.
    const globalLimits = { globalRpm: global.rpm, globalTpm: global.tpm, globalMaxConcurrency: global.maxConcurrency };
    const { line, lineBatch, alive, lineTags, wake: wakeChannel } = this.#line;
    const admitKeys = { ...scopeKeys, line, lineBatch, alive, lineTags, storeEpoch: this.#holdings.epochKey };
    const admitArgs = { probeTtlMs, breakerKeyTtlMs, ...globalLimits, ...this.limiter.entryPolicy, turnTtlMs: TURN_TTL_MS, wakeChannel };
    this.#admissions = new Coalescer((items) =>
      ADMIT.runItems(this.#redis, { keys: admitKeys, args: { ...admitArgs, now: this.#clock(), knownStoreEpoch: this.#holdings.knownEpoch } }, items, this.#timeoutMs),
    );
    const finishArgs = { ...this.breaker.policyArgs(), ...globalLimits, windowMs: LIMIT_WINDOW_MS, wakeChannel };
    const finishKeys = { ...scopeKeys, line, lineBatch };
    this.#ends = new Coalescer((items) => FINISH.runItems(this.#redis, { keys: finishKeys, args: { ...finishArgs, now: this.#clock() } }, items, this.#timeoutMs));
  }

  async admit(source: string, estTokens: number, turn?: string, charge?: BudgetCharge, caller: Caller = DEFAULT_CALLER): Promise<Lease | GovernorRefusal> {
    const plan = this.limiter.planEntry(source, estTokens);
    // The permit's id is unique per admission, so it doubles as the probe lease's token.
    const token = plan.id;
    const budget = charge && this.#budget?.charged(charge);
    const keyBudget = keyBudgetPart(this.#scope, caller.key, charge);
    const shared = this.#sharedOf(plan, budget?.key, caller, keyBudget?.key);
    const item: AdmitItem = {
      keys: NO_KEYS,
      shared: shared.admit,
      args: {
        permitId: plan.id,
        estTokens,
        turn: turn ?? '',
        budgetPeriod: budget?.period ?? '',
        reservation: budget?.reservationNano ?? 0,
        budgetNano: budget?.budgetNano ?? 0,
        keyBudgetPeriod: keyBudget?.period ?? '',
        keyReservation: keyBudget?.reservationNano ?? 0,
        keyBudgetNano: keyBudget?.budgetNano ?? 0,
      },
    };
    const verdict = await failClosed(this.#scope, 'admit', async (): Promise<Refused | Acquired> => {
      const reply = await this.#admitIntoKnownBooks(item);
      switch (reply.kind) {
        case 'queued':
          return QUEUED;
        case 'budgetRefused':
          return { ok: false as const, budget: reply.key === 1 ? keyBudgetRefusal(this.#scope, reply, keyBudget!) : this.#budget!.refusal(reply, budget!) };
        case 'gateRefused':
          return denialOf(reply, ADMISSION_GATES);
        case 'breakerRefused':
          return { ticket: ticketOf({ ...reply, kind: 'refused' }, source, token), periodStart: '', keyPeriodStart: '' };
        case 'storeForgotten':
          throw new Error('the store forgot the books again right after they were re-booked');
        case 'admitted': {
          const ticket = ticketOf(reply.probe === 1 ? { ...reply, kind: 'probe' } : { ...reply, kind: 'closed' }, source, token);
          if (ticket.ok) this.#hold(plan, shared.admit, ticket, reply.now);
          return { ticket, periodStart: reply.periodStart, keyPeriodStart: reply.keyPeriodStart };
        }
      }
    }).catch((error: unknown) => {
      // A frozen server may still run the admission it never answered: settling it 0 and releasing
      // it (the budget's reservation too, in the period this worker's clock says), queued behind it
      // on the same connection (and replayed if that fails), gives back what nobody holds. All are
      // no-ops for an entry the script never made.
      const startOf = (period: BudgetPart['period']) => String(budgetPeriodAt(period, (this.#now ?? Date.now)()).start);
      const part = budget && { ...budget, periodStart: startOf(budget.period) };
      const keyPart = keyBudget && { ...keyBudget, periodStart: startOf(keyBudget.period) };
      void this.#finished(plan, this.#finisher(shared, UNANSWERED, plan, part, keyPart), undefined, 0, 0).catch(() => undefined);
      throw error;
    });
    if (!('ticket' in verdict)) return verdict;
    const { ticket } = verdict;
    if (!ticket.ok) return { ok: false, refusal: ticket };
    const finisher = this.#finisher(
      shared,
      ticket,
      plan,
      budget && { ...budget, periodStart: verdict.periodStart },
      keyBudget && { ...keyBudget, periodStart: verdict.keyPeriodStart },
    );
    const permit = this.limiter.permitOf(plan);
    return new RedisLease(ticket, permit, async (breakerVerdict, actualTokens, spentUsd) => {
      // A finished call holds no lease any more, whether or not its write-back lands now.
      const valid = Number.isSafeInteger(actualTokens) && actualTokens >= 0;
      this.#holdings.ended(plan.id, valid ? `=${actualTokens}` : String(plan.estTokens));
      if (!valid) {
        await permit.release(); // a refused amount still frees the slot
        assertNonNegativeInteger(actualTokens, 'actualTokens');
      }
      return this.#finished(plan, finisher, breakerVerdict, actualTokens, spentUsd);
    });
  }

  /**
   * Runs a permit's end (verdict, settle-and-release, budget settlement) in one script; what is
   * replayed if it fails, or re-sent after a failover, is that script without the verdict, which a
   * second application would count twice.
   */
  #finished(plan: EntryPlan, finisher: LeaseEnd, verdict: BreakerVerdict | undefined, actualTokens: number, spentUsd: number): Promise<BreakerTransition | undefined> {
    return WriteBackReplay.of(this.#redis).attempt(
      `${plan.id}:settle-release`,
      () => finisher(verdict, actualTokens, spentUsd),
      () => finisher(undefined, actualTokens, spentUsd),
    );
  }

  sourceStats(source: string): Promise<SourceStats> {
    return this.limiter.sourceStats(source);
  }

  breakerSnapshot(source: string): Promise<BreakerSnapshot> {
    return this.breaker.snapshot(source);
  }

  /**
   * Admits only into books that hold what this worker holds. The script refuses (storeForgotten)
   * while the store lacks the epoch this worker knows; the worker then re-books, and tries once more.
   */
  async #admitIntoKnownBooks(item: AdmitItem): Promise<AdmitReply> {
    for (let tries = 1; ; tries++) {
      const rebooking = this.#holdings.rebooking;
      if (rebooking !== undefined) await rebooking;
      const reply = await this.#admissions.add(item);
      if (reply.kind !== 'storeForgotten' || tries === 2) return reply;
      await this.#holdings.rebook();
    }
  }

  #hold(plan: EntryPlan, { keys, args }: AttemptSets['admit'], ticket: BreakerTicket, at: number): void {
    const { rpm, tpm } = plan.limits;
    this.#holdings.admitted({
      id: plan.id,
      limiterKeys: plan.keys,
      tenantKeys: keys,
      // The books the scripts kept for it: a triple is windowed or leased only where a limit is set.
      tenantBooks: {
        tenantWindowed: Number(args.tenantRpm) > 0 || Number(args.tenantTpm) > 0,
        tenantLeased: Number(args.tenantMaxConcurrency) > 0,
        batchWindowed: Number(args.batchRpm) > 0 || Number(args.batchTpm) > 0,
        batchLeased: Number(args.batchMaxConcurrency) > 0,
        sourceBatchWindowed: Number(args.sourceBatchRpm) > 0 || Number(args.sourceBatchTpm) > 0,
        sourceBatchLeased: Number(args.sourceBatchMaxConcurrency) > 0,
        keyWindowed: Number(args.keyKept) === 1,
        keyLeased: Number(args.keyKept) === 1,
      },
      breakerKey: keys.breakerState,
      at,
      windowed: this.#scopeWindowed || rpm > 0 || tpm > 0,
      ...(ticket.probe && { probe: { token: probeTokenOf(ticket), epoch: ticket.epoch } }),
      charged: String(plan.estTokens),
      leased: true,
    });
  }

  /**
   * The permit's end: the breaker's verdict, the permit's write-back and the budget's settlement in
   * one script, which answers the verdict's breaker transition.
   */
  #finisher(shared: AttemptSets, ticket: BreakerTicket, plan: EntryPlan, budget: BudgetPart | undefined, keyBudget: KeyBudgetPart | undefined): LeaseEnd {
    return async (verdict, actualTokens, spentUsd) => {
      const args = {
        ticketEpoch: ticket.epoch,
        probe: ticket.probe ? 1 : 0,
        verdict: verdict ?? '',
        permitId: plan.id,
        actualTokens,
        ...BudgetKeys.settlement(budget, keyBudget, spentUsd),
      };
      const reply = await failClosed(this.#scope, 'finish', () => this.#ends.add({ keys: NO_KEYS, shared: shared.finish, args }));
      return transitionOf(reply.transition);
    };
  }

  /** The budget a call of `tenantId` spends, read (lapsed reservations charged) in one script. */
  async budgetStatus(tenantId?: string): Promise<BudgetStatus | undefined> {
    const budget = this.#budget;
    if (budget === undefined) return undefined;
    const tenant = budgetTenantOf(budget.policy, tenantId);
    const books = await failClosed(this.#scope, 'budgetStatus', () =>
      BUDGET_STATUS.run(this.#redis, { keys: { budget: budget.keyOf(tenant) }, args: { now: this.#clock(), budgetPeriod: budget.policy.period } }, this.#timeoutMs),
    );
    return budget.status(tenant, books);
  }

  /** A tenant's use of the scope against its bound, after trimming its window and reclaiming its leases, in one script. */
  async tenantStatus(tenantId: string): Promise<TenantUse> {
    const { rpm, tpm, maxConcurrency, weight } = tenantShareOf(this.#tenants, tenantId);
    const { tenantWindow, tenantTokens, tenantTpm, tenantLeases } = tenantKeys(scopePrefix(this.#scope), tenantId);
    // A tenant's books are a source's books under other names: the same script reads them.
    const keys = { sourceWindow: tenantWindow, sourceTokens: tenantTokens, sourceTpm: tenantTpm, sourceLeases: tenantLeases };
    const use = await failClosed(this.#scope, 'tenantStatus', () =>
      STATS.run(this.#redis, { keys, args: { now: this.#clock(), windowMs: LIMIT_WINDOW_MS } }, this.#timeoutMs),
    );
    return {
      tenantId,
      rpm: { used: use.rpmUsed, bound: rpm },
      tpm: { used: use.tpmUsed, bound: tpm },
      concurrency: { used: use.inflight, bound: maxConcurrency },
      weight,
    };
  }

  /** A key's use of the scope (window trimmed, leases reclaimed) and its budget's settled spend now, in one script each. */
  async keyStatus(bounds: KeyBounds): Promise<KeyStatus> {
    const { keyWindow, keyTokens, keyTpm, keyLeases } = keyKeys(scopePrefix(this.#scope), bounds.id);
    const keys = { sourceWindow: keyWindow, sourceTokens: keyTokens, sourceTpm: keyTpm, sourceLeases: keyLeases };
    const part = keyBudgetPart(this.#scope, bounds, undefined);
    const [use, books] = await failClosed(this.#scope, 'keyStatus', () =>
      Promise.all([
        STATS.run(this.#redis, { keys, args: { now: this.#clock(), windowMs: LIMIT_WINDOW_MS } }, this.#timeoutMs),
        part && BUDGET_STATUS.run(this.#redis, { keys: { budget: part.key }, args: { now: this.#clock(), budgetPeriod: part.period } }, this.#timeoutMs),
      ]),
    );
    const { rpmUsed, tpmUsed, inflight } = use;
    if (part === undefined || books === undefined) return { rpmUsed, tpmUsed, inflight, spentUsd: 0 };
    const { spentUsd, resetAt } = keyBudgetStatus(this.#scope, part, books);
    return { rpmUsed, tpmUsed, inflight, spentUsd, ...(resetAt !== undefined && { resetAt }) };
  }

  async leaveLine(turn: string): Promise<void> {
    const { line, lineBatch, alive, wake } = this.#line;
    // Kept and replayed like settle and release, so a turn left during an outage or a failover is
    // gone from the line as soon as Redis answers again, not when it lapses.
    const leave = () =>
      failClosed(this.#scope, 'leaveLine', () => LEAVE_LINE.run(this.#redis, { keys: { line, lineBatch, alive }, args: { turn, wakeChannel: wake } }, this.#timeoutMs));
    await WriteBackReplay.of(this.#redis).attempt(`${line}:${turn}`, leave);
  }

  /** Room freed anywhere in the fleet, through one subscriber connection opened on first use. */
  onRoomFreed(listener: () => void): () => void {
    this.#roomListeners.add(listener);
    this.#subscriber ??= this.#subscribe();
    return () => this.#roomListeners.delete(listener);
  }

  /** Closes the subscriber connection, if one was opened (the main connection is not owned). */
  async close(): Promise<void> {
    const subscriber = this.#subscriber;
    this.#subscriber = undefined;
    this.#roomListeners.clear();
    this.#holdings.close();
    if (subscriber) await subscriber.quit().catch(() => subscriber.disconnect());
  }

  #subscribe(): RedisClient {
    // Same options, own connection (a subscribed connection takes no other command).
    const subscriber = duplicateConnection(this.#redis);
    const channel = this.#line.wake;
    const subscribe = (): void => void subscriber.subscribe(channel).catch(() => undefined);
    subscriber.on('error', () => undefined);
    subscriber.on('ready', subscribe);
    subscriber.on('message', (from: string) => {
      if (from === channel) for (const listener of this.#roomListeners) listener();
    });
    if (subscriber.status === 'ready') subscribe();
    return subscriber;
  }

  /**
   * What an attempt shares in both scripts with the others of its source, budget, tenant and class:
   * its source's breaker, books and limits, its tenant's and its class's books and limits (a batch
   * call's share of the scope's and of the source's), its key's books and limits as its record says
   * now, and the budgets it charges. One object per such set, so a call sends each once. Without
   * bounded tenants (or a binding batch share) every tenant (or class) shares one set: their triples
   * are unbounded.
   */
  #sharedOf({ source, keys, limits }: EntryPlan, budgetKey: string | undefined, caller: Caller, keyBudget: string | undefined): AttemptSets {
    const { tenantId, priority, key } = caller;
    const isBatch = priority === 'batch';
    const batch = isBatch ? this.#batchLimits : undefined;
    const lineClass = isBatch ? 'b' : 'i';
    const keyPart = key === undefined ? '' : `${key.id}\n${key.rpm}/${key.tpm}/${key.maxConcurrency}\n${keyBudget ?? ''}`;
    const id = `${source}\n${budgetKey ?? ''}\n${lineClass}${tenantId}\n${keyPart}`;
    let set = this.#sets.get(id);
    if (set === undefined) {
      const { sourceWindow, sourceTokens, sourceTpm, sourceLeases } = keys;
      const { rpm, tpm, maxConcurrency } = limits;
      const share = tenantShareOf(this.#tenants, tenantId);
      const bound = this.#tenantsBounded ? share : UNBOUNDED;
      const classLimits = batch ?? UNBOUNDED;
      const sourceShare = isBatch && batchShareBinds(limits, this.#tenants.batchShare) ? batchLimitsOf(limits, this.#tenants.batchShare) : UNBOUNDED;
      const finish = Object.freeze({
        keys: {
          ...this.breaker.keysOf(source),
          sourceWindow,
          sourceTokens,
          sourceTpm,
          sourceLeases,
          ...tenantKeys(scopePrefix(this.#scope), tenantId),
          ...sourceBatchKeys(scopePrefix(this.#scope), source),
          // Without a key, its books are the scope's unused names: no triple of 0 limits reads them.
          ...keyKeys(scopePrefix(this.#scope), key?.id ?? ''),
          keyBudget: keyBudget ?? this.#line.line,
          budget: budgetKey ?? this.#line.line,
        },
        args: {
          rpm,
          tpm,
          maxConcurrency,
          tenantRpm: bound.rpm,
          tenantTpm: bound.tpm,
          tenantMaxConcurrency: bound.maxConcurrency,
          batchRpm: classLimits.rpm,
          batchTpm: classLimits.tpm,
          batchMaxConcurrency: classLimits.maxConcurrency,
          sourceBatchRpm: sourceShare.rpm,
          sourceBatchTpm: sourceShare.tpm,
          sourceBatchMaxConcurrency: sourceShare.maxConcurrency,
          keyRpm: key?.rpm ?? 0,
          keyTpm: key?.tpm ?? 0,
          keyMaxConcurrency: key?.maxConcurrency ?? 0,
          keyKept: key === undefined ? 0 : 1,
        },
      });
      set = Object.freeze({ finish, admit: Object.freeze({ keys: finish.keys, args: { ...finish.args, lineTenant: tenantId, lineWeight: share.weight, lineClass } }) });
      // Tenants are many: the sets are a cache, bounded (a set made anew is equal, only not shared).
      if (this.#sets.size >= MAX_ATTEMPT_SETS) this.#sets.clear();
      this.#sets.set(id, set);
    }
    return set;
  }

  #clock(): string {
    return clockArg(this.#now);
  }
}

