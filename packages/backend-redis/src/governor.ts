import type { RedisClient } from './connection.js';
import { randomUUID } from 'node:crypto';
import {
  assertBudgetPolicy,
  budgetPeriodAt,
  budgetTenantOf,
  optionalPositiveMs,
  type BudgetCharge,
  type BudgetPolicy,
  type BudgetStatus,
  type Clock,
  type GateOutcome,
  type GateRefusal,
  type GateTicket,
  type GovernedAdmission,
  type Governor,
} from '@pgw/core';
import { Cluster } from 'ioredis';
import { DEFAULT_TIMEOUT_MS } from './connection.js';
import { failClosed } from './fail-closed.js';
import { parseAcquireReply, probeTokenOf, RedisGate, type RedisGateOptions } from './gate.js';
import { parseDenial, RedisLimiter, type EntryPlan, type RedisLimiterOptions } from './limiter.js';
import { BudgetKeys, type BudgetPart } from './budget-keys.js';
import { lineKeys, scopePrefix } from './keys.js';
import { BUDGET_STATUS_LUA } from './lua/budget.js';
import { ADMIT_LUA, FINISH_LUA, LEAVE_LINE_LUA } from './lua/governor.js';
import { clockArg, luaScript, numbers, runScript, type LuaScript } from './scripts.js';

const ADMIT = luaScript('governor_admit', ADMIT_LUA, 13);
const FINISH = luaScript('governor_finish', FINISH_LUA, 13);
const BUDGET_STATUS = luaScript('governor_budget_status', BUDGET_STATUS_LUA, 1);
const LEAVE_LINE = luaScript('governor_leave_line', LEAVE_LINE_LUA, 2);

/** A turn in line lapses unless its holder tries again within this (a waiter tries at least every second). */
const TURN_TTL_MS = 5_000;
/** How long a caller refused because others wait before it sleeps at most before trying again (a wake comes sooner). */
const QUEUED_RETRY_MS = 1_000;

const QUEUED = Object.freeze({ ok: false, queued: true, retryAfterMs: QUEUED_RETRY_MS } as const);

export type RedisGovernorOptions = RedisLimiterOptions & Pick<RedisGateOptions, 'policy'> & { budget?: BudgetPolicy };

type Refused = Exclude<GovernedAdmission, { ok: true } | { refusal: object }>;
/** The breaker's answer, and the period the budget reserved in (when charged). */
type Acquired = { readonly ticket: GateTicket | GateRefusal; readonly periodStart: string };

/** A ticket no admission answered (the reply was lost): its epoch fences off any breaker write. */
const UNANSWERED: GateTicket = Object.freeze({ ok: true, source: '', epoch: -1, probe: false });

/**
 * A scope's breaker and limiter on one Redis, with the combined `Governor` capability: one script
 * before an attempt (breaker admission + six gates), one after (breaker verdict + settle + release).
 * `limiter` and `gate` are the same books through the two ports (stats, snapshots, direct use).
 */
export class RedisGovernor implements Governor {
  readonly limiter: RedisLimiter;
  readonly gate: RedisGate;
  readonly #redis: RedisClient;
  readonly #scope: string;
  readonly #now: Clock | undefined;
  readonly #timeoutMs: number;
  readonly #line: ReturnType<typeof lineKeys>;
  readonly #roomListeners = new Set<() => void>();
  readonly #budget: BudgetKeys | undefined;
  #subscriber: RedisClient | undefined;

  constructor(options: RedisGovernorOptions) {
    this.limiter = new RedisLimiter(options);
    this.gate = new RedisGate({ ...options, sources: Object.keys(options.sources) });
    this.#redis = options.redis;
    this.#scope = options.scope;
    this.#now = options.now;
    this.#timeoutMs = optionalPositiveMs(options.commandTimeoutMs, 'commandTimeoutMs', DEFAULT_TIMEOUT_MS);
    this.#line = lineKeys(scopePrefix(options.scope));
    if (options.budget) assertBudgetPolicy(options.budget);
    this.#budget = options.budget && new BudgetKeys(options.scope, options.budget);
  }

  async admit(source: string, estTokens: number, turn?: string, charge?: BudgetCharge): Promise<GovernedAdmission> {
    const breaker = this.gate.keysOf(source);
    const plan = this.limiter.planEntry(source, estTokens);
    const token = randomUUID();
    const { line, alive, wake } = this.#line;
    const budget = charge && this.#budget?.charged(charge);
    const keys = [breaker.state, breaker.samples, ...plan.keys, line, alive, budget?.key ?? line];
    const args = [plan.id, token, ...this.gate.probeArgs, estTokens, ...plan.limits, ...plan.enterArgs, turn ?? '', TURN_TTL_MS, wake];
    const verdict = await failClosed(this.#scope, 'admit', async (): Promise<Refused | Acquired> => {
      const reply = await this.#run(ADMIT, keys, [...args, ...(budget?.admitArgs ?? ['', 0, 0])]);
      if (Array.isArray(reply) && reply[0] === 3) return QUEUED;
      if (Array.isArray(reply) && reply[0] === 4) return { ok: false as const, budget: this.#budget!.refusal(reply, budget!) };
      if (Array.isArray(reply) && reply[0] === 2) return parseDenial(reply);
      return { ticket: parseAcquireReply(reply, source, token), periodStart: Array.isArray(reply) ? String(reply[3] ?? '') : '' };
    }).catch((error: unknown) => {
      // A frozen server may still run the admission it never answered: settling it 0 and releasing
      // it (the budget's reservation too, in the period this worker's clock says), queued behind it
      // on the same connection (and replayed if that fails), gives back what nobody holds. All are
      // no-ops for an entry the script never made.
      const part = budget && { ...budget, periodStart: String(budgetPeriodAt(budget.period, (this.#now ?? Date.now)()).start) };
      void plan.permit(this.#finisher(keys, UNANSWERED, plan, part)).finish(0, undefined, 0).catch(() => undefined);
      throw error;
    });
    if (!('ticket' in verdict)) return verdict;
    const { ticket } = verdict;
    if (!ticket.ok) return { ok: false, refusal: ticket };
    const permit = plan.permit(this.#finisher(keys, ticket, plan, budget && { ...budget, periodStart: verdict.periodStart }));
    return { ok: true, ticket, permit, finish: (verdict, actualTokens, spentUsd = 0) => permit.finish(actualTokens, verdict, spentUsd) };
  }

  /** The permit's end: the breaker's verdict, the permit's write-back and the budget's settlement in one script. */
  #finisher(keys: readonly string[], ticket: GateTicket, plan: EntryPlan, budget: BudgetPart | undefined) {
    return async (actualTokens: number, verdict: GateOutcome | undefined, spentUsd: number): Promise<void> => {
      const args = [ticket.epoch, probeTokenOf(ticket), verdict ?? '', ...this.gate.policyArgs(), ...plan.settleArgs(actualTokens), this.#line.wake];
      const settleArgs = budget ? BudgetKeys.settleArgs(budget, spentUsd) : ['', 0];
      numbers(await failClosed(this.#scope, 'finish', () => this.#run(FINISH, keys, [...args, ...settleArgs])), 4);
    };
  }

  /** The budget a call of `tenantId` spends, read (lapsed reservations charged) in one script. */
  async budgetStatus(tenantId?: string): Promise<BudgetStatus | undefined> {
    const budget = this.#budget;
    if (budget === undefined) return undefined;
    const tenant = budgetTenantOf(budget.policy, tenantId);
    const reply = await failClosed(this.#scope, 'budgetStatus', () =>
      this.#run(BUDGET_STATUS, [budget.keyOf(tenant)], [budget.policy.period]),
    );
    return budget.status(tenant, numbers(reply, 3));
  }

  async leaveLine(turn: string): Promise<void> {
    const { line, alive, wake } = this.#line;
    await failClosed(this.#scope, 'leaveLine', () => this.#run(LEAVE_LINE, [line, alive], [turn, wake], false));
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
    if (subscriber) await subscriber.quit().catch(() => subscriber.disconnect());
  }

  #subscribe(): RedisClient {
    // Same options, own connection (a subscribed connection takes no other command).
    const subscriber: RedisClient = this.#redis instanceof Cluster ? this.#redis.duplicate() : this.#redis.duplicate();
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

  #run(script: LuaScript, keys: readonly string[], args: readonly (string | number)[], clocked = true): Promise<unknown> {
    return runScript(this.#redis, script, keys, clocked ? [clockArg(this.#now), ...args] : args, this.#timeoutMs);
  }
}
