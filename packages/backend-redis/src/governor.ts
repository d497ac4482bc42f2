import type { RedisClient } from './connection.js';
import { randomUUID } from 'node:crypto';
import type { Clock, GateOutcome, GateTicket, GovernedAdmission, Governor } from '@pgw/core';
import { optionalPositiveMs } from '@pgw/core/internal';
import { Cluster } from 'ioredis';
import { DEFAULT_TIMEOUT_MS } from './connection.js';
import { failClosed } from './fail-closed.js';
import { parseAcquireReply, probeTokenOf, RedisGate, type RedisGateOptions } from './gate.js';
import { parseDenial, RedisLimiter, type EntryPlan, type RedisLimiterOptions } from './limiter.js';
import { lineKeys, scopePrefix } from './keys.js';
import { ADMIT_LUA, FINISH_LUA, LEAVE_LINE_LUA } from './lua/governor.js';
import { clockArg, luaScript, numbers, runScript, type LuaScript } from './scripts.js';

const ADMIT = luaScript('governor_admit', ADMIT_LUA, 12);
const FINISH = luaScript('governor_finish', FINISH_LUA, 12);
const LEAVE_LINE = luaScript('governor_leave_line', LEAVE_LINE_LUA, 2);

/** A turn in line lapses unless its holder tries again within this (a waiter tries at least every second). */
const TURN_TTL_MS = 5_000;
/** How long a caller refused because others wait before it sleeps at most before trying again (a wake comes sooner). */
const QUEUED_RETRY_MS = 1_000;

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
  #subscriber: RedisClient | undefined;

  constructor(options: RedisGovernorOptions) {
    this.limiter = new RedisLimiter(options);
    this.gate = new RedisGate({ ...options, sources: Object.keys(options.sources) });
    this.#redis = options.redis;
    this.#scope = options.scope;
    this.#now = options.now;
    this.#timeoutMs = optionalPositiveMs(options.commandTimeoutMs, 'commandTimeoutMs', DEFAULT_TIMEOUT_MS);
    this.#line = lineKeys(scopePrefix(options.scope));
  }

  async admit(source: string, estTokens: number, turn?: string): Promise<GovernedAdmission> {
    const breaker = this.gate.keysOf(source);
    const plan = this.limiter.planEntry(source, estTokens);
    const token = randomUUID();
    const { line, alive, wake } = this.#line;
    const keys = [breaker.state, breaker.samples, ...plan.keys, line, alive];
    const args = [plan.id, token, ...this.gate.probeArgs, estTokens, ...plan.limits, ...plan.enterArgs, turn ?? '', TURN_TTL_MS, wake];
    const verdict = await failClosed(this.#scope, 'admit', async () => {
      const reply = await this.#run(ADMIT, keys, args);
      if (Array.isArray(reply) && reply[0] === 3) return QUEUED;
      return Array.isArray(reply) && reply[0] === 2 ? parseDenial(reply) : parseAcquireReply(reply, source, token);
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
    return { ok: true, ticket, permit, finish: (verdict, actualTokens) => permit.finish(actualTokens, verdict) };
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
