import type { RedisClient } from './connection.js';
import { randomUUID } from 'node:crypto';
import type { Clock } from '@pgw/core';
import { REBOOK } from './lua/holdings.js';
import { clockArg } from './scripts.js';
import type { KeyKeys, LimiterKeys, SourceBatchKeys, TenantKeys } from './keys.js';

/**
 * The epoch key lives this long after the store last lost it; when it expires, every worker
 * re-books once (a no-op on books that were kept), so it never outlives its scope by more.
 */
const EPOCH_TTL_MS = 86_400_000;
/** Admissions re-booked per script (each an item of 13 keys and 10 arguments: a script's run stays short). */
const REBOOK_BATCH = 500;
/** A store that forgets again while a worker re-books: the worker starts over, this many times at most. */
const REBOOK_ROUNDS = 3;
/** Beyond this many admissions held, the oldest ones are no longer re-booked (memory stays bounded). */
export const MAX_HELD = 100_000;

/** One admission this worker holds: the keys it was booked under and what it charged. */
export interface HeldAdmission {
  readonly id: string;
  /** The source's window, tokens, token sum and leases (then the scope's four: the limiter's order). */
  readonly limiterKeys: LimiterKeys;
  /** Its tenant's books, its key's and the batch class's (on the scope and on the source), and which of them it was booked in (an unbounded gate keeps none). */
  readonly tenantKeys: TenantKeys & KeyKeys & SourceBatchKeys;
  readonly tenantBooks: TenantBooks;
  readonly breakerKey: string;
  /** Server time of the admission (its window entry's score; its lease ran from it). */
  readonly at: number;
  /** Whether its window entry counts for a limit (an RPM or TPM limit of the source or the scope). */
  readonly windowed: boolean;
  /** The probe lease it holds, if it was a half-open breaker's probe and has not finished. */
  probe?: { readonly token: string; readonly epoch: number } | undefined;
  /** The estimate it was admitted for, or '=' .. actual tokens once finished. */
  charged: string;
  /** Its lease is held: the call has not finished. */
  leased: boolean;
}

export interface TenantBooks {
  readonly tenantWindowed: boolean;
  readonly tenantLeased: boolean;
  readonly batchWindowed: boolean;
  readonly batchLeased: boolean;
  readonly sourceBatchWindowed: boolean;
  readonly sourceBatchLeased: boolean;
  readonly keyWindowed: boolean;
  readonly keyLeased: boolean;
}

export interface HoldingsOptions {
  redis: RedisClient;
  epochKey: string;
  /** The scope's window, tokens, token sum and leases (the limiter's global keys). */
  scopeKeys: Pick<LimiterKeys, 'globalWindow' | 'globalTokens' | 'globalTpm' | 'globalLeases'>;
  windowMs: number;
  leaseTtlMs: number;
  limiterKeyTtlMs: number;
  breakerKeyTtlMs: number;
  probeTtlMs: number;
  scopeWindowed: boolean;
  scopeLeased: boolean;
  now: Clock | undefined;
  timeoutMs: number;
}

const byConnection = new WeakMap<RedisClient, Set<Holdings>>();

/**
 * What one worker holds in a scope's books — leases of calls in flight, probe leases, and its
 * admissions still in the RPM/TPM windows — so that a store which forgot them (a Redis restarted
 * without persistence, docs/scaling.md#high-availability) gets them back before this worker admits
 * anything new. Admissions carry the epoch this worker knows; a store that lost it answers "forgotten"
 * (see governor.ts) and the worker re-books here first. A reconnection re-books at once too, so a
 * worker that only holds calls (admits nothing) is back in the books as soon as it is connected.
 */
export class Holdings {
  readonly #options: HoldingsOptions;
  readonly #held = new Map<string, HeldAdmission>();
  #known = '';
  #latestNow = 0;
  #rebooking: Promise<void> | undefined;
  #listening = false;

  constructor(options: HoldingsOptions) {
    this.#options = options;
  }

  get epochKey(): string {
    return this.#options.epochKey;
  }

  /** The epoch this worker knows ('' before its first admission): what an admission sends. */
  get knownEpoch(): string {
    return this.#known;
  }

  /** A re-booking under way, which an admission waits for rather than being told "forgotten". */
  get rebooking(): Promise<void> | undefined {
    return this.#rebooking;
  }

  get size(): number {
    return this.#held.size;
  }

  admitted(admission: HeldAdmission): void {
    this.#latestNow = Math.max(this.#latestNow, admission.at);
    this.#prune();
    this.#held.set(admission.id, admission);
    if (this.#held.size > MAX_HELD) this.#held.delete(this.#held.keys().next().value as string);
    if (!this.#listening) this.#listen();
  }

  /** The call finished (whether or not its write-back landed): its lease is no longer held. */
  ended(id: string, charged: string): void {
    const admission = this.#held.get(id);
    if (admission === undefined) return;
    if (!admission.windowed) {
      this.#held.delete(id);
      return;
    }
    admission.leased = false;
    admission.probe = undefined;
    admission.charged = charged;
  }

  /** Re-books what is held unless the store still has the known epoch; one at a time. */
  rebook(): Promise<void> {
    this.#rebooking ??= this.#rebookRounds().finally(() => {
      this.#rebooking = undefined;
    });
    return this.#rebooking;
  }

  close(): void {
    byConnection.get(this.#options.redis)?.delete(this);
    this.#listening = false;
  }

  async #rebookRounds(): Promise<void> {
    for (let round = 1; ; round++) {
      const epoch = await this.#rebookAll();
      if (epoch !== undefined) {
        this.#known = epoch;
        return;
      }
      if (round === REBOOK_ROUNDS) throw new Error(`the store forgot the books ${REBOOK_ROUNDS} times while they were re-booked`);
    }
  }

  /** The epoch in force after re-booking, or undefined when it changed midway (start over). */
  async #rebookAll(): Promise<string | undefined> {
    this.#prune();
    const held = [...this.#held.values()];
    const candidate = randomUUID();
    let epoch: string | undefined;
    for (let from = 0; from === 0 || from < held.length; from += REBOOK_BATCH) {
      const known = from === 0 ? this.#known : '';
      const [inForce, rebooked] = await this.#rebookBatch(held.slice(from, from + REBOOK_BATCH), known, candidate);
      if (epoch !== undefined && inForce !== epoch) return undefined;
      epoch = inForce;
      if (rebooked === 0) break; // the store kept the books
    }
    return epoch;
  }

  async #rebookBatch(batch: readonly HeldAdmission[], known: string, candidate: string): Promise<[string, number]> {
    const o = this.#options;
    const flag = (on: boolean) => (on ? 1 : 0);
    const items = batch.map(({ id, limiterKeys, tenantKeys, tenantBooks: b, breakerKey, charged, at, leased, probe }) => ({
      keys: {
        ...limiterKeys,
        ...tenantKeys,
        breakerState: breakerKey,
      },
      args: {
        permitId: id,
        charged,
        admittedAt: at,
        leased: flag(leased),
        probeToken: probe?.token ?? '',
        breakerEpoch: probe?.epoch ?? 0,
        tenantWindowed: flag(b.tenantWindowed),
        tenantLeased: flag(b.tenantLeased),
        batchWindowed: flag(b.batchWindowed),
        batchLeased: flag(b.batchLeased),
        sourceBatchWindowed: flag(b.sourceBatchWindowed),
        sourceBatchLeased: flag(b.sourceBatchLeased),
        keyWindowed: flag(b.keyWindowed),
        keyLeased: flag(b.keyLeased),
      },
    }));
    const call = {
      keys: { ...o.scopeKeys, storeEpoch: o.epochKey },
      args: {
        now: clockArg(o.now),
        knownStoreEpoch: known,
        candidateEpoch: candidate,
        epochTtlMs: EPOCH_TTL_MS,
        windowMs: o.windowMs,
        leaseTtlMs: o.leaseTtlMs,
        limiterKeyTtlMs: o.limiterKeyTtlMs,
        breakerKeyTtlMs: o.breakerKeyTtlMs,
        probeTtlMs: o.probeTtlMs,
        scopeWindowed: o.scopeWindowed ? 1 : 0,
        scopeLeased: o.scopeLeased ? 1 : 0,
      },
    };
    const { epoch, rebooked } = await REBOOK.run(o.redis, call, o.timeoutMs, items);
    return [epoch, rebooked];
  }

  /** Drops what no store would count any more: out of the window, and finished or past its lease. */
  #prune(): void {
    const { windowMs, leaseTtlMs } = this.#options;
    for (const [id, admission] of this.#held) {
      if (admission.at + windowMs > this.#latestNow) break;
      if (!admission.leased || admission.at + leaseTtlMs <= this.#latestNow) this.#held.delete(id);
    }
  }

  /** One 'ready' listener per connection for all its workers' holdings, while any holds something. */
  #listen(): void {
    const { redis } = this.#options;
    let holdings = byConnection.get(redis);
    if (holdings === undefined) {
      const all = new Set<Holdings>();
      holdings = all;
      byConnection.set(redis, all);
      redis.on('ready', () => {
        for (const one of all) if (one.#known !== '') void one.rebook().catch(() => undefined);
      });
    }
    holdings.add(this);
    this.#listening = true;
  }
}
