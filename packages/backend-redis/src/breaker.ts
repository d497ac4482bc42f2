import type { RedisClient } from './connection.js';
import { randomUUID } from 'node:crypto';
import { BREAKER_TRANSITIONS, SourceNotConfiguredError, type BreakerChangeReason, type BreakerTransition, type BreakerPolicy, type BreakerSnapshot, type Clock, type Breaker, type BreakerVerdict, type BreakerRefusal, type BreakerTicket } from '@pgw/core';
import { assertBreakerPolicy, optionalPositiveMs } from '@pgw/core/internal';
import { DEFAULT_TIMEOUT_MS } from './connection.js';
import { failClosed } from './fail-closed.js';
import { breakerKeys, scopePrefix, type BreakerKeys } from './keys.js';
import { ACQUIRE, ACQUIRE_REPLIES, BREAKER_POLICY, RECORD, RELEASE_PROBE, SNAPSHOT } from './lua/breaker.js';
import type { Reply } from './protocol.js';
import { clockArg } from './scripts.js';

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
      const [probeTtlMs, breakerKeyTtlMs] = this.probeArgs;
      const reply = await ACQUIRE.run(this.#redis, { keys, args: { now: clockArg(this.#now), probeToken: token, probeTtlMs, breakerKeyTtlMs } }, this.#timeoutMs);
      return ticketOf(reply, source, token);
    });
  }

  async record(ticket: BreakerTicket, verdict: BreakerVerdict): Promise<BreakerTransition | undefined> {
    const keys = this.keysOf(ticket.source);
    const args = { now: clockArg(this.#now), ticketEpoch: ticket.epoch, probeToken: probeTokenOf(ticket), outcome: verdict, ...this.policyArgs() };
    const reply = await failClosed(this.#scope, 'breaker record', () => RECORD.run(this.#redis, { keys, args }, this.#timeoutMs));
    return transitionOf(reply.transition);
  }

  async releaseProbe(ticket: BreakerTicket): Promise<void> {
    const keys = this.keysOf(ticket.source);
    if (!ticket.probe) return;
    await failClosed(this.#scope, 'breaker releaseProbe', () =>
      RELEASE_PROBE.run(this.#redis, { keys, args: { ticketEpoch: ticket.epoch, probeToken: probeTokenOf(ticket) } }, this.#timeoutMs),
    );
  }

  async snapshot(source: string): Promise<BreakerSnapshot> {
    const keys = this.keysOf(source);
    return failClosed(this.#scope, 'breaker snapshot', async () => {
      const { kind: _, state, probeHeld, ...counts } = await SNAPSHOT.run(
        this.#redis,
        { keys, args: { now: clockArg(this.#now), breakerWindowMs: this.#policy.windowMs } },
        this.#timeoutMs,
      );
      if (state !== 'closed' && state !== 'open' && state !== 'half_open') throw new Error(`unexpected breaker state ${JSON.stringify(state)}`);
      return { source, state, ...counts, probeHeld: probeHeld === 1 };
    });
  }

  /** The breaker policy as the record scripts read it (BREAKER_POLICY of lua/breaker.ts). */
  policyArgs(): Readonly<Record<(typeof BREAKER_POLICY)[number], number>> {
    const p = this.#policy;
    return {
      failureThreshold: p.failureThreshold,
      failureRate: p.failureRate,
      breakerWindowMs: p.windowMs,
      minSamples: p.minSamples,
      cooldownMs: p.cooldownMs,
      maxCooldownMs: p.maxCooldownMs,
      breakerKeyTtlMs: this.#keyTtlMs,
    };
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
}

/** A breaker admission's reply (tryAcquire's, or the breaker part of a governor's admission) as a ticket or a refusal. */
export function ticketOf(reply: Reply<typeof ACQUIRE_REPLIES>, source: string, token: string): BreakerTicket | BreakerRefusal {
  if (reply.kind === 'refused') {
    if (reply.state !== 'open' && reply.state !== 'half_open') throw new Error(`unexpected breaker refusal ${JSON.stringify(reply)}`);
    return { ok: false, source, state: reply.state, retryAfterMs: reply.retryAfterMs };
  }
  if (reply.kind === 'closed') return { ok: true, source, epoch: reply.epoch, probe: false };
  const ticket = { ok: true, source, epoch: reply.epoch, probe: true, probeToken: token } as const;
  // The open period's first probe lease is the breaker's open→half_open.
  return reply.first === 1 ? { ...ticket, transition: BREAKER_TRANSITIONS.cooldown_elapsed } : ticket;
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
