import { BREAKER_TRANSITIONS, SourceNotConfiguredError } from '@pgw/core';
import { assertBreakerPolicy } from '@pgw/core/internal';
import { randomUUID } from 'node:crypto';
import type { BreakerPolicy, BreakerSnapshot, BreakerTransition, Clock, Breaker, BreakerVerdict, BreakerRefusal, BreakerTicket } from '@pgw/core';
import { SecondBuckets } from './second-buckets.js';

export interface InMemoryBreakerOptions {
  scope: string;
  sources: readonly string[];
  policy: BreakerPolicy;
  now?: Clock;
}

interface ProbeLease {
  readonly token: string;
  readonly expiresAt: number;
}

/**
 * One source's breaker. Only `closed` and `open` are stored: half-open is an open breaker whose
 * cooldown has passed. It is reached by time, not by an event, so it needs no epoch of its own
 * (no ticket is ever issued while open, so there is nothing to fence).
 */
interface SourceBreaker {
  state: 'closed' | 'open';
  epoch: number;
  openUntil: number;
  consecutiveFailures: number;
  reopenCount: number;
  /** Outcome samples of the last `windowMs` in per-second buckets, as in Redis: weight 1 = failure, 0 = success. */
  readonly samples: SecondBuckets;
  probe: ProbeLease | undefined;
  /** A probe lease was taken in this open period: its half-open state was reported. */
  probed: boolean;
  /** The closed state's ticket of the current epoch: the same for every attempt, so built once. */
  ticket: BreakerTicket | undefined;
}

/**
 * The circuit breakers of docs/architecture.md#circuit-breaker for one process, answering synchronously:
 * two trip channels, a leased probe, epoch fencing.
 */
export class InMemoryBreaker implements Breaker {
  private readonly scope: string;
  private readonly policy: BreakerPolicy;
  private readonly now: Clock;
  private readonly breakers = new Map<string, SourceBreaker>();

  constructor(options: InMemoryBreakerOptions) {
    this.policy = assertBreakerPolicy(options.policy);
    this.scope = options.scope;
    this.now = options.now ?? Date.now;
    for (const source of options.sources) {
      this.breakers.set(source, {
        state: 'closed',
        epoch: 0,
        openUntil: 0,
        consecutiveFailures: 0,
        reopenCount: 0,
        samples: new SecondBuckets(this.policy.windowMs),
        probe: undefined,
        probed: false,
        ticket: undefined,
      });
    }
  }

  tryAcquire(source: string): BreakerTicket | BreakerRefusal {
    return this.refusal(source) ?? this.acquire(source);
  }

  /** Why `source` is refused now, if it is; takes nothing (a governor asks its gates before the probe lease is taken). */
  refusal(source: string): BreakerRefusal | undefined {
    const breaker = this.breakerOf(source);
    if (breaker.state === 'closed') return undefined;
    const now = this.now();
    if (now < breaker.openUntil) return { ok: false, source, state: 'open', retryAfterMs: breaker.openUntil - now };
    if (breaker.probe !== undefined && now < breaker.probe.expiresAt) {
      return { ok: false, source, state: 'half_open', retryAfterMs: breaker.probe.expiresAt - now };
    }
    return undefined;
  }

  /** The ticket of a source `refusal` did not refuse: the closed state's, or the probe lease. */
  acquire(source: string): BreakerTicket {
    const breaker = this.breakerOf(source);
    if (breaker.state === 'closed') return (breaker.ticket ??= Object.freeze({ ok: true, source, epoch: breaker.epoch, probe: false }));
    const probe = { token: randomUUID(), expiresAt: this.now() + this.policy.probeTtlMs };
    breaker.probe = probe;
    const ticket = { ok: true, source, epoch: breaker.epoch, probe: true, probeToken: probe.token } as const;
    if (breaker.probed) return ticket;
    breaker.probed = true;
    return { ...ticket, transition: BREAKER_TRANSITIONS.cooldown_elapsed };
  }

  record(ticket: BreakerTicket, verdict: BreakerVerdict): BreakerTransition | undefined {
    const breaker = this.breakerOf(ticket.source);
    if (ticket.epoch !== breaker.epoch) return undefined;
    const now = this.now();
    const served = verdict === 'success' || verdict === 'invalid';
    if (breaker.state === 'open') {
      if (!holdsProbe(breaker, ticket)) return undefined;
      if (served) this.closeBreaker(breaker);
      else this.trip(breaker, now, breaker.reopenCount + 1);
      return BREAKER_TRANSITIONS[served ? 'probe_succeeded' : 'probe_failed'];
    }
    breaker.samples.evict(now);
    if (served) {
      // A usable answer or a bad result both prove the service works; only a real success is a sample.
      breaker.consecutiveFailures = 0;
      if (verdict === 'success') breaker.samples.add(now, 0);
      return undefined;
    }
    breaker.consecutiveFailures += 1;
    breaker.samples.add(now, 1);
    if (verdict !== 'dead' && !this.shouldTrip(breaker)) return undefined;
    this.trip(breaker, now, breaker.reopenCount);
    return BREAKER_TRANSITIONS[verdict === 'dead' ? 'source_dead' : 'failures'];
  }

  releaseProbe(ticket: BreakerTicket): void {
    const breaker = this.breakerOf(ticket.source);
    if (ticket.epoch === breaker.epoch && holdsProbe(breaker, ticket)) breaker.probe = undefined;
  }

  snapshot(source: string): BreakerSnapshot {
    const breaker = this.breakerOf(source);
    const now = this.now();
    breaker.samples.evict(now);
    const open = breaker.state === 'open';
    return {
      source,
      state: !open ? 'closed' : now < breaker.openUntil ? 'open' : 'half_open',
      epoch: breaker.epoch,
      openUntil: open ? breaker.openUntil : 0,
      consecutiveFailures: breaker.consecutiveFailures,
      reopenCount: breaker.reopenCount,
      windowSuccesses: breaker.samples.count - breaker.samples.weight,
      windowFailures: breaker.samples.weight,
      probeHeld: breaker.probe !== undefined && now < breaker.probe.expiresAt,
    };
  }

  /**
   * Rate channel: ≥ minSamples in the window and failure rate ≥ failureRate. Consecutive channel:
   * ≥ failureThreshold failures in a row, unless health evidence says the run is a blip — the
   * window holds ≥ minSamples at under half the trip rate and the run is shorter than twice the
   * threshold.
   */
  private shouldTrip(breaker: SourceBreaker): boolean {
    const { failureThreshold, failureRate, minSamples } = this.policy;
    const samples = breaker.samples.count;
    const rate = samples > 0 ? breaker.samples.weight / samples : 0;
    if (samples >= minSamples && rate >= failureRate) return true;
    if (breaker.consecutiveFailures < failureThreshold) return false;
    const healthy = samples >= minSamples && rate < failureRate / 2;
    return !healthy || breaker.consecutiveFailures >= 2 * failureThreshold;
  }

  /** Opens for cooldown × 2^k (capped); a new deadline never shortens one already set. */
  private trip(breaker: SourceBreaker, now: number, reopenCount: number): void {
    const { cooldownMs, maxCooldownMs } = this.policy;
    const openMs = Math.min(maxCooldownMs, cooldownMs * 2 ** reopenCount);
    breaker.state = 'open';
    breaker.epoch += 1;
    breaker.ticket = undefined;
    breaker.reopenCount = reopenCount;
    breaker.openUntil = Math.max(breaker.openUntil, now + openMs);
    breaker.probe = undefined;
    breaker.probed = false;
  }

  private closeBreaker(breaker: SourceBreaker): void {
    breaker.state = 'closed';
    breaker.epoch += 1;
    breaker.ticket = undefined;
    breaker.openUntil = 0;
    breaker.consecutiveFailures = 0;
    breaker.reopenCount = 0;
    breaker.samples.clear();
    breaker.probe = undefined;
    breaker.probed = false;
  }

  private breakerOf(source: string): SourceBreaker {
    const breaker = this.breakers.get(source);
    if (breaker === undefined) throw new SourceNotConfiguredError({ scope: this.scope, sourceName: source });
    return breaker;
  }
}

/** A probe result counts while its token is the lease on record, even past its TTL if nobody retook it. */
function holdsProbe(breaker: SourceBreaker, ticket: BreakerTicket): boolean {
  return ticket.probe && ticket.probeToken !== undefined && ticket.probeToken === breaker.probe?.token;
}
