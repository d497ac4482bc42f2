import type { RedisClient } from './connection.js';
import { randomUUID } from 'node:crypto';
import {
  SourceNotConfiguredError,
  type BreakerPolicy,
  type BreakerSnapshot,
  type Clock,
  type Gate,
  type GateOutcome,
  type GateRefusal,
  type GateTicket,
} from '@pgw/core';
import { assertBreakerPolicy, optionalPositiveMs } from '@pgw/core/internal';
import { DEFAULT_TIMEOUT_MS } from './connection.js';
import { failClosed } from './fail-closed.js';
import { gateKeys, scopePrefix, type GateKeys } from './keys.js';
import { ACQUIRE_LUA, RECORD_LUA, RELEASE_PROBE_LUA, SNAPSHOT_LUA } from './lua/gate.js';
import { clockArg, luaScript, numbers, runScript, type LuaScript } from './scripts.js';

const ACQUIRE = luaScript('gate_acquire', ACQUIRE_LUA, 2);
const RECORD = luaScript('gate_record', RECORD_LUA, 2);
const RELEASE_PROBE = luaScript('gate_release_probe', RELEASE_PROBE_LUA, 1);
const SNAPSHOT = luaScript('gate_snapshot', SNAPSHOT_LUA, 2);

/**
 * A breaker nobody touches forgets itself (closed, epoch 0) this long after its longest period
 * (window, cooldown cap, probe lease) — so keys never outlive their use, yet no live state is lost.
 */
const KEY_TTL_SLACK_MS = 3_600_000;

export interface RedisGateOptions {
  /** Not owned: the gate never closes it. */
  redis: RedisClient;
  scope: string;
  sources: readonly string[];
  policy: BreakerPolicy;
  /** Test seam: replaces Redis `TIME` inside the scripts. Production leaves it unset. */
  now?: Clock;
  /** Bound on one gate operation, including waiting for the connection. Default 2000. */
  commandTimeoutMs?: number;
}

/** The circuit breakers of docs/architecture.md#circuit-breaker shared by every worker on one Redis. Fails closed. */
export class RedisGate implements Gate {
  readonly #redis: RedisClient;
  readonly #scope: string;
  readonly #prefix: string;
  readonly #sources: ReadonlySet<string>;
  readonly #policy: BreakerPolicy;
  readonly #keyTtlMs: number;
  readonly #now: Clock | undefined;
  readonly #timeoutMs: number;

  constructor(options: RedisGateOptions) {
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

  async tryAcquire(source: string): Promise<GateTicket | GateRefusal> {
    const keys = this.keysOf(source);
    const token = randomUUID();
    return failClosed(this.#scope, 'gate tryAcquire', async () => {
      const reply = await this.#run(ACQUIRE, [keys.state, keys.samples], [token, this.#policy.probeTtlMs, this.#keyTtlMs]);
      return parseAcquireReply(reply, source, token);
    });
  }

  async record(ticket: GateTicket, outcome: GateOutcome): Promise<void> {
    const keys = this.keysOf(ticket.source);
    await failClosed(this.#scope, 'gate record', () =>
      this.#run(RECORD, [keys.state, keys.samples], [ticket.epoch, probeTokenOf(ticket), outcome, ...this.policyArgs()]),
    );
  }

  async releaseProbe(ticket: GateTicket): Promise<void> {
    const keys = this.keysOf(ticket.source);
    if (!ticket.probe) return;
    await failClosed(this.#scope, 'gate releaseProbe', () =>
      runScript(this.#redis, RELEASE_PROBE, [keys.state], [ticket.epoch, probeTokenOf(ticket)], this.#timeoutMs),
    );
  }

  async snapshot(source: string): Promise<BreakerSnapshot> {
    const keys = this.keysOf(source);
    return failClosed(this.#scope, 'gate snapshot', async () => {
      const reply = await this.#run(SNAPSHOT, [keys.state, keys.samples], [this.#policy.windowMs]);
      const state = Array.isArray(reply) ? reply[0] : undefined;
      if (state !== 'closed' && state !== 'open' && state !== 'half_open') {
        throw new Error(`unexpected gate snapshot ${JSON.stringify(reply)}`);
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

  /** Throws SourceNotConfiguredError for a source this gate does not know. */
  keysOf(source: string): GateKeys {
    if (!this.#sources.has(source)) throw new SourceNotConfiguredError({ scope: this.#scope, sourceName: source });
    return gateKeys(this.#prefix, source);
  }

  #run(script: LuaScript, keys: readonly string[], args: readonly (string | number)[]): Promise<unknown> {
    return runScript(this.#redis, script, keys, [clockArg(this.#now), ...args], this.#timeoutMs);
  }
}

/** A tryAcquire reply (or the breaker part of a governor's admission) as a ticket or a refusal. */
export function parseAcquireReply(reply: unknown, source: string, token: string): GateTicket | GateRefusal {
  if (Array.isArray(reply) && reply[0] === 0 && (reply[1] === 'open' || reply[1] === 'half_open')) {
    return { ok: false, source, state: reply[1], retryAfterMs: Number(reply[2]) };
  }
  const [, epoch, probe] = numbers(reply, 3);
  return probe === 1 ? { ok: true, source, epoch, probe: true, probeToken: token } : { ok: true, source, epoch, probe: false };
}

export function probeTokenOf(ticket: GateTicket): string {
  return ticket.probe && ticket.probeToken !== undefined ? ticket.probeToken : '';
}
