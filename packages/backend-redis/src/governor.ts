import type { RedisClient } from './connection.js';
import { randomUUID } from 'node:crypto';
import { optionalPositiveMs, type Clock, type GateOutcome, type GateTicket, type GovernedAdmission, type Governor } from '@pgw/core';
import { Cluster } from 'ioredis';
import { DEFAULT_TIMEOUT_MS } from './connection.js';
import { failClosed } from './fail-closed.js';
import { parseAcquireReply, probeTokenOf, RedisGate, type RedisGateOptions } from './gate.js';
import { LIMIT_WINDOW_MS, parseDenial, RedisLimiter, type EntryPlan, type RedisLimiterOptions } from './limiter.js';
import { Holdings } from './holdings.js';
import { limiterKeys, lineKeys, scopePrefix, storeEpochKey } from './keys.js';
import { ADMIT_LUA, FINISH_LUA, LEAVE_LINE_LUA } from './lua/governor.js';
import { WriteBackReplay } from './replay.js';
import { clockArg, luaScript, numbers, runScript, type LuaScript } from './scripts.js';

const ADMIT = luaScript('governor_admit', ADMIT_LUA, 13);
const FINISH = luaScript('governor_finish', FINISH_LUA, 12);
const LEAVE_LINE = luaScript('governor_leave_line', LEAVE_LINE_LUA, 2);

/**
 * A turn in line lapses unless its holder tries again within this (a waiter tries at least every
 * QUEUED_RETRY_MS): short, so a turn whose holder is gone (its process died, its call failed while
 * Redis was unreachable) holds nobody back for long.
 */
const TURN_TTL_MS = 1_500;
/** How long a caller refused because others wait before it sleeps at most before trying again (a wake comes sooner). */
const QUEUED_RETRY_MS = 500;

const QUEUED = Object.freeze({ ok: false, queued: true, retryAfterMs: QUEUED_RETRY_MS } as const);

export type RedisGovernorOptions = RedisLimiterOptions & Pick<RedisGateOptions, 'policy'>;

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
  readonly #holdings: Holdings;
  readonly #scopeWindowed: boolean;
  #subscriber: RedisClient | undefined;

  constructor(options: RedisGovernorOptions) {
    this.limiter = new RedisLimiter(options);
    this.gate = new RedisGate({ ...options, sources: Object.keys(options.sources) });
    this.#redis = options.redis;
    this.#scope = options.scope;
    this.#now = options.now;
    this.#timeoutMs = optionalPositiveMs(options.commandTimeoutMs, 'commandTimeoutMs', DEFAULT_TIMEOUT_MS);
    const prefix = scopePrefix(options.scope);
    this.#line = lineKeys(prefix);
    const { global } = options;
    const scopeKeys = limiterKeys(prefix, '');
    this.#scopeWindowed = global.rpm > 0 || global.tpm > 0;
    const [probeTtlMs, breakerKeyTtlMs] = this.gate.probeArgs;
    this.#holdings = new Holdings({
      redis: options.redis,
      epochKey: storeEpochKey(prefix),
      scopeKeys: [scopeKeys.globalWindow, scopeKeys.globalTokens, scopeKeys.globalTpm, scopeKeys.globalLeases],
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
  }

  async admit(source: string, estTokens: number, turn?: string): Promise<GovernedAdmission> {
    const breaker = this.gate.keysOf(source);
    const plan = this.limiter.planEntry(source, estTokens);
    const token = randomUUID();
    const { line, alive, wake } = this.#line;
    const keys = [breaker.state, breaker.samples, ...plan.keys, line, alive];
    const args = [plan.id, token, ...this.gate.probeArgs, estTokens, ...plan.limits, ...plan.enterArgs, turn ?? '', TURN_TTL_MS, wake];
    const verdict = await failClosed(this.#scope, 'admit', async () => {
      const reply = await this.#admitIntoKnownBooks(keys, args);
      if (Array.isArray(reply) && reply[0] === 3) return QUEUED;
      if (Array.isArray(reply) && reply[0] === 2) return parseDenial(reply);
      const ticket = parseAcquireReply(reply, source, token);
      if (ticket.ok) this.#hold(plan, estTokens, breaker.state, ticket, Number((reply as unknown[])[3]));
      return ticket;
    }).catch((error: unknown) => {
      // A frozen server may still run the admission it never answered: settling it 0 and releasing
      // it, queued behind it on the same connection (and replayed if that fails), gives back a slot
      // nobody holds. Both are no-ops for an entry the script never made.
      void plan.permit().settleAndRelease(0).catch(() => undefined);
      throw error;
    });
    if ('queued' in verdict) return verdict;
    if (!verdict.ok) return 'gate' in verdict ? verdict : { ok: false, refusal: verdict };
    const ticket = verdict;
    const permit = plan.permit((actualTokens, verdict) => this.#finish(keys, ticket, plan, actualTokens, verdict));
    const finish = (verdict: GateOutcome | undefined, actualTokens: number): Promise<void> => {
      // A finished call holds no lease any more, whether or not its write-back lands now.
      this.#holdings.ended(plan.id, Number.isSafeInteger(actualTokens) && actualTokens >= 0 ? `=${actualTokens}` : String(estTokens));
      return permit.finish(actualTokens, verdict);
    };
    return { ok: true, ticket, permit, finish };
  }

  /**
   * issue 27: admits only into books that hold what this worker holds. The script refuses ({4})
   * while the store lacks the epoch this worker knows; the worker then re-books, and tries once more.
   */
  async #admitIntoKnownBooks(keys: readonly string[], args: readonly (string | number)[]): Promise<unknown> {
    for (let tries = 1; ; tries++) {
      const rebooking = this.#holdings.rebooking;
      if (rebooking !== undefined) await rebooking;
      const reply = await this.#run(ADMIT, [...keys, this.#holdings.epochKey], [...args, this.#holdings.knownEpoch]);
      if (!Array.isArray(reply) || reply[0] !== 4) return reply;
      if (tries === 2) throw new Error('the store forgot the books again right after they were re-booked');
      await this.#holdings.rebook();
    }
  }

  #hold(plan: EntryPlan, estTokens: number, breakerKey: string, ticket: GateTicket, at: number): void {
    const [rpm, tpm] = plan.limits;
    this.#holdings.admitted({
      id: plan.id,
      limiterKeys: plan.keys,
      breakerKey,
      at,
      windowed: this.#scopeWindowed || rpm! > 0 || tpm! > 0,
      ...(ticket.probe && { probe: { token: probeTokenOf(ticket), epoch: ticket.epoch } }),
      charged: String(estTokens),
      leased: true,
    });
  }

  async #finish(
    keys: readonly string[],
    ticket: GateTicket,
    plan: EntryPlan,
    actualTokens: number,
    verdict: GateOutcome | undefined,
  ): Promise<void> {
    const args = [ticket.epoch, probeTokenOf(ticket), verdict ?? '', ...this.gate.policyArgs(), ...plan.settleArgs(actualTokens), this.#line.wake];
    numbers(await failClosed(this.#scope, 'finish', () => this.#run(FINISH, keys, args)), 3);
  }

  async leaveLine(turn: string): Promise<void> {
    const { line, alive, wake } = this.#line;
    // issue 27: kept and replayed like settle and release, so a turn left during an outage or a
    // failover is gone from the line as soon as Redis answers again, not when it lapses.
    const leave = () => failClosed(this.#scope, 'leaveLine', () => this.#run(LEAVE_LINE, [line, alive], [turn, wake], false));
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
