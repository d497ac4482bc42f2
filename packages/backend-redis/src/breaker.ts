import type { RedisClient } from './connection.js';
import { randomUUID } from 'node:crypto';
import { BREAKER_TRANSITIONS, SourceNotConfiguredError, type BreakerChangeReason, type BreakerTransition, type BreakerPolicy, type BreakerSnapshot, type Clock, type Breaker, type BreakerVerdict, type BreakerRefusal, type BreakerTicket } from '@pgw/core';
import { assertBreakerPolicy, optionalPositiveMs } from '@pgw/core/internal';
import { DEFAULT_TIMEOUT_MS } from './connection.js';
import { failClosed } from './fail-closed.js';
import { breakerKeys, scopePrefix, type BreakerKeys } from './keys.js';
import { ACQUIRE_LUA, RECORD_LUA, RELEASE_PROBE_LUA, SNAPSHOT_LUA } from './lua/breaker.js';
import { clockArg, luaScript, numbers, runScript, type LuaScript } from './scripts.js';

const ACQUIRE = luaScript('breaker_acquire', ACQUIRE_LUA, 2);
const RECORD = luaScript('breaker_record', RECORD_LUA, 2);
const RELEASE_PROBE = luaScript('breaker_release_probe', RELEASE_PROBE_LUA, 1);
const SNAPSHOT = luaScript('breaker_snapshot', SNAPSHOT_LUA, 2);

/**
 * A breaker nobody touches forgets itself (closed, epoch 0) this long after its longest period
 * (window, cooldown cap, probe lease) — so keys never outlive their use, yet no live state is lost.
 */
const KEY_TTL_SLACK_MS = 3_600_000;

export interface RedisBreakerOptions {
  /** Not owned: the breaker never closes it. */
  redis: RedisClient;
  scope: string;
  sources: readonly string[];
  policy: BreakerPolicy;
  /** Test seam: replaces Redis `TIME` inside the scripts. Production leaves it unset. */
  now?: Clock;
  /** Bound on one breaker operation, including waiting for the connection. Default 2000. */
  commandTimeoutMs?: number;
}

/** The circuit breakers of docs/architecture.md#circuit-breaker shared by every worker on one Redis. Fails closed. */
export class RedisBreaker implements Breaker {
  readonly #redis: RedisClient;
  readonly #scope: string;
  readonly #prefix: string;
  readonly #sources: ReadonlySet<string>;
  readonly #policy: BreakerPolicy;
  readonly #keyTtlMs: number;
  readonly #now: Clock | undefined;
  readonly #timeoutMs: number;

  constructor(options: RedisBreakerOptions) {
    this.#redis = options.redis;
    this.#scope = options.scope;
    this.#prefix = scopePrefix(options.scope);
    this.#sources = new Set(options.sources);
    this.#policy = assertBreakerPolicy(options.policy);
    const { windowMs, maxCooldownMs, probeTtlMs } = this.#policy;
    this.#keyTtlMs = Math.max(windowMs, maxCooldownMs, probeTtlMs) + KEY_TTL_SLACK_MS;
    this.#now = options.now;
    this.#timeoutMs = optionalPositiveMs(options.commandTimeoutMs, 'commandTimeoutMs', DEFAULT_TIMEOUT_MS);
  }

  async tryAcquire(source: string): Promise<BreakerTicket | BreakerRefusal> {
    const keys = this.keysOf(source);
    const token = randomUUID();
    return failClosed(this.#scope, 'breaker tryAcquire', async () => {
      const reply = await this.#run(ACQUIRE, [keys.state, keys.samples], [token, this.#policy.probeTtlMs, this.#keyTtlMs]);
      return parseAcquireReply(reply, source, token);
    });
  }

  async record(ticket: BreakerTicket, verdict: BreakerVerdict): Promise<BreakerTransition | undefined> {
    const keys = this.keysOf(ticket.source);
    const reply = await failClosed(this.#scope, 'breaker record', () =>
      this.#run(RECORD, [keys.state, keys.samples], [ticket.epoch, probeTokenOf(ticket), verdict, ...this.policyArgs()]),
    );
    return transitionOf(Array.isArray(reply) ? reply[1] : undefined);
  }

  async releaseProbe(ticket: BreakerTicket): Promise<void> {
    const keys = this.keysOf(ticket.source);
    if (!ticket.probe) return;
    await failClosed(this.#scope, 'breaker releaseProbe', () =>
      runScript(this.#redis, RELEASE_PROBE, [keys.state], [ticket.epoch, probeTokenOf(ticket)], this.#timeoutMs),
    );
  }

  async snapshot(source: string): Promise<BreakerSnapshot> {
    const keys = this.keysOf(source);
    return failClosed(this.#scope, 'breaker snapshot', async () => {
      const reply = await this.#run(SNAPSHOT, [keys.state, keys.samples], [this.#policy.windowMs]);
      const state = Array.isArray(reply) ? reply[0] : undefined;
      if (state !== 'closed' && state !== 'open' && state !== 'half_open') {
        throw new Error(`unexpected breaker snapshot ${JSON.stringify(reply)}`);
      }
      const [epoch, openUntil, consecutiveFailures, reopenCount, windowSuccesses, windowFailures, probeHeld] =
        numbers((reply as unknown[]).slice(1), 7);
      return {
        source,
        state,
        epoch,
        openUntil,
        consecutiveFailures,
        reopenCount,
        windowSuccesses,
        windowFailures,
        probeHeld: probeHeld === 1,
      };
    });
  }

  /** The breaker policy as the record scripts read it (7 values). */
  policyArgs(): number[] {
    const p = this.#policy;
    return [p.failureThreshold, p.failureRate, p.windowMs, p.minSamples, p.cooldownMs, p.maxCooldownMs, this.#keyTtlMs];
  }

  /** The probe lease and key TTL the admission scripts need. */
  get probeArgs(): [probeTtlMs: number, keyTtlMs: number] {
    return [this.#policy.probeTtlMs, this.#keyTtlMs];
  }

  /** Throws SourceNotConfiguredError for a source this breaker does not know. */
  keysOf(source: string): BreakerKeys {
    if (!this.#sources.has(source)) throw new SourceNotConfiguredError({ scope: this.#scope, sourceName: source });
    return breakerKeys(this.#prefix, source);
  }

  #run(script: LuaScript, keys: readonly string[], args: readonly (string | number)[]): Promise<unknown> {
    return runScript(this.#redis, script, keys, [clockArg(this.#now), ...args], this.#timeoutMs);
  }
}

/** A tryAcquire reply (or the breaker part of a governor's admission) as a ticket or a refusal. */
export function parseAcquireReply(reply: unknown, source: string, token: string): BreakerTicket | BreakerRefusal {
  if (Array.isArray(reply) && reply[0] === 0 && (reply[1] === 'open' || reply[1] === 'half_open')) {
    return { ok: false, source, state: reply[1], retryAfterMs: Number(reply[2]) };
  }
  const [, epoch, probe] = numbers(reply, 3);
  if (probe !== 1) return { ok: true, source, epoch, probe: false };
  const ticket = { ok: true, source, epoch, probe: true, probeToken: token } as const;
  // The open period's first probe lease is the breaker's open→half_open.
  return (reply as unknown[])[3] === 1 ? { ...ticket, transition: BREAKER_TRANSITIONS.cooldown_elapsed } : ticket;
}

/** The transition a record script reports by its reason ('' or absent: none). */
export function transitionOf(reason: unknown): BreakerTransition | undefined {
  if (reason === '' || reason === undefined) return undefined;
  if (typeof reason === 'string' && Object.hasOwn(BREAKER_TRANSITIONS, reason)) return BREAKER_TRANSITIONS[reason as BreakerChangeReason];
  throw new Error(`unexpected breaker transition ${JSON.stringify(reason)}`);
}

export function probeTokenOf(ticket: BreakerTicket): string {
  return ticket.probe && ticket.probeToken !== undefined ? ticket.probeToken : '';
}
