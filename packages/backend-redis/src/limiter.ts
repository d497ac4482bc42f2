import type { RedisClient } from './connection.js';
import { randomUUID } from 'node:crypto';
import {
  LIMIT_GATES,
  SourceNotConfiguredError,
  type LimitAdmission,
  type Clock,
  type BreakerTransition,
  type BreakerVerdict,
  type GlobalLimits,
  type LimitGate,
  type Limiter,
  type Permit,
  type SourceLimits,
  type SourceStats,
} from '@pgw/core';
import { assertNonNegativeInteger, optionalPositiveMs, assertPositiveMs } from '@pgw/core/internal';
import { DEFAULT_TIMEOUT_MS } from './connection.js';
import { failClosed } from './fail-closed.js';
import { limiterKeys, scopePrefix, type LimiterKeys } from './keys.js';
import { ENTER, ENTRY_POLICY, GLOBAL_LIMITS, RELEASE, SOURCE_LIMITS, SETTLE, SETTLE_RELEASE, STATS } from './lua/limiter.js';
import { WriteBackReplay } from './replay.js';
import { clockArg } from './scripts.js';

/** RPM and TPM windows slide over one minute. */
export const LIMIT_WINDOW_MS = 60_000;
/**
 * Retry hint of a full concurrency gate. A slot frees when some holder releases, which no clock
 * predicts, so the caller is told to look again soon.
 */
export const CONCURRENCY_POLL_MS = 250;
/** Keys outlive the longest thing they hold (a window or a lease) by this much, then expire. */
const KEY_TTL_SLACK_MS = 60_000;

export interface RedisLimiterOptions {
  /** Not owned: the limiter never closes it. */
  redis: RedisClient;
  scope: string;
  sources: Record<string, SourceLimits>;
  global: GlobalLimits;
  /** A permit never released is reclaimed this long after it was granted (a crashed worker's slot). */
  leaseTtlMs: number;
  /** Test seam: replaces Redis `TIME` inside the scripts. Production leaves it unset. */
  now?: Clock;
  /** Bound on one limiter operation, including waiting for the connection. Default 2000. */
  commandTimeoutMs?: number;
}

/** The six admission gates of docs/architecture.md#admission-the-six-gates, shared by every worker on one Redis. Fails closed. */
export class RedisLimiter implements Limiter {
  readonly #redis: RedisClient;
  readonly #scope: string;
  readonly #prefix: string;
  /** Each source's keys and the six limits its entries are checked against. */
  readonly #entries: ReadonlyMap<string, { readonly keys: LimiterKeys; readonly limits: EntryLimits }>;
  readonly #leaseTtlMs: number;
  readonly #keyTtlMs: number;
  readonly #now: Clock | undefined;
  readonly #timeoutMs: number;

  constructor(options: RedisLimiterOptions) {
    this.#redis = options.redis;
    this.#scope = options.scope;
    this.#prefix = scopePrefix(options.scope);
    const g = checkedLimits(options.global, 'global');
    this.#entries = new Map(
      Object.entries(options.sources).map(([name, limits]) => {
        const own = checkedLimits(limits, `sources.${name}`);
        const sixLimits = { rpm: own.rpm, tpm: own.tpm, maxConcurrency: own.maxConcurrency, globalRpm: g.rpm, globalTpm: g.tpm, globalMaxConcurrency: g.maxConcurrency };
        return [name, { keys: limiterKeys(this.#prefix, name), limits: sixLimits }];
      }),
    );
    this.#leaseTtlMs = assertPositiveMs(options.leaseTtlMs, 'leaseTtlMs');
    this.#keyTtlMs = Math.max(LIMIT_WINDOW_MS, this.#leaseTtlMs) + KEY_TTL_SLACK_MS;
    this.#now = options.now;
    this.#timeoutMs = optionalPositiveMs(options.commandTimeoutMs, 'commandTimeoutMs', DEFAULT_TIMEOUT_MS);
  }

  /** How long its keys outlive their last write (a re-booking gives them the same). */
  get keyTtlMs(): number {
    return this.#keyTtlMs;
  }

  async tryEnter(source: string, estTokens: number): Promise<LimitAdmission> {
    const plan = this.planEntry(source, estTokens);
    const reply = await failClosed(this.#scope, 'tryEnter', () =>
      ENTER.run(this.#redis, { keys: plan.keys, args: { now: this.#clock(), permitId: plan.id, estTokens, ...plan.limits, ...this.entryPolicy } }, this.#timeoutMs),
    );
    if (reply.kind === 'refused') return denialOf(reply);
    return { ok: true, permit: this.permitOf(plan) };
  }

  async sourceStats(source: string): Promise<SourceStats> {
    const { keys } = this.#entryOf(source);
    return failClosed(this.#scope, 'sourceStats', async () => {
      const { inflight, rpmUsed, tpmUsed } = await STATS.run(this.#redis, { keys, args: { now: this.#clock(), windowMs: LIMIT_WINDOW_MS } }, this.#timeoutMs);
      return { inflight, rpmUsed, tpmUsed };
    });
  }

  /** How every entry is booked (the same for all sources): ENTRY_POLICY of lua/limiter.ts. */
  get entryPolicy(): EntryPolicy {
    return { leaseTtlMs: this.#leaseTtlMs, windowMs: LIMIT_WINDOW_MS, limiterKeyTtlMs: this.#keyTtlMs, concurrencyPollMs: CONCURRENCY_POLL_MS };
  }

  /** What one admission books, shared with the governor's combined scripts. */
  planEntry(source: string, estTokens: number): EntryPlan {
    const { keys, limits } = this.#entryOf(source);
    assertNonNegativeInteger(estTokens, 'estTokens');
    return { id: randomUUID(), source, estTokens, keys, limits };
  }

  /** The permit of a planned entry: its write-backs are made on first use (a governor's lease seldom needs them). */
  permitOf(plan: EntryPlan): RedisPermit {
    return new RedisPermit(plan.source, plan.estTokens, () => this.#booksOf(plan));
  }

  #booksOf({ id, keys, limits }: EntryPlan): PermitBooks {
    const settleCall = (actualTokens: number) => ({ keys, args: { now: this.#clock(), permitId: id, actualTokens, ...limits, windowMs: LIMIT_WINDOW_MS } });
    const settle = (actualTokens: number) => failClosed(this.#scope, 'settle', () => SETTLE.run(this.#redis, settleCall(actualTokens), this.#timeoutMs));
    const release = () => failClosed(this.#scope, 'release', () => RELEASE.run(this.#redis, { keys, args: { permitId: id } }, this.#timeoutMs));
    const settleAndRelease = (actualTokens: number) =>
      failClosed(this.#scope, 'settleAndRelease', () => SETTLE_RELEASE.run(this.#redis, settleCall(actualTokens), this.#timeoutMs));
    // A failed write-back is kept and replayed when Redis is back (the scripts are idempotent).
    const replay = WriteBackReplay.of(this.#redis);
    const kept =
      <A extends unknown[]>(step: string, write: (...args: A) => Promise<unknown>) =>
      (...args: A): Promise<unknown> =>
        replay.attempt(`${id}:${step}`, () => write(...args));
    return { settle: kept('settle', settle), release: kept('release', release), settleAndRelease: kept('settle-release', settleAndRelease) };
  }

  #entryOf(source: string) {
    const entry = this.#entries.get(source);
    if (entry === undefined) throw new SourceNotConfiguredError({ scope: this.#scope, sourceName: source });
    return entry;
  }

  #clock(): string {
    return clockArg(this.#now);
  }
}

/** The six limits of one source's entry, by the names of lua/limiter.ts. */
export type EntryLimits = Readonly<Record<(typeof SOURCE_LIMITS)[number] | (typeof GLOBAL_LIMITS)[number], number>>;
export type EntryPolicy = Readonly<Record<(typeof ENTRY_POLICY)[number], number>>;

export interface EntryPlan {
  readonly id: string;
  readonly source: string;
  readonly estTokens: number;
  readonly keys: LimiterKeys;
  readonly limits: EntryLimits;
}

interface PermitBooks {
  settle(actualTokens: number): Promise<unknown>;
  release(): Promise<unknown>;
  settleAndRelease(actualTokens: number): Promise<unknown>;
}

export class RedisPermit implements Permit {
  #settled = false;
  #released = false;
  #books: PermitBooks | undefined;

  constructor(
    readonly source: string,
    readonly estTokens: number,
    private readonly makeBooks: () => PermitBooks,
  ) {}

  private get books(): PermitBooks {
    return (this.#books ??= this.makeBooks());
  }

  /**
   * Only the first call counts. The flag is set once Redis confirmed, so a settle that failed may be
   * retried; the script is idempotent too, so a retry whose first attempt did land changes nothing.
   */
  async settle(actualTokens: number): Promise<void> {
    assertNonNegativeInteger(actualTokens, 'actualTokens');
    if (this.#settled) return;
    await this.books.settle(actualTokens);
    this.#settled = true;
  }

  async release(): Promise<void> {
    if (this.#released) return;
    await this.books.release();
    this.#released = true;
  }

  /** Both steps in one script; when one step is already confirmed, what is left, one by one. */
  async settleAndRelease(actualTokens: number): Promise<void> {
    if (this.#settled || this.#released) {
      try {
        await this.settle(actualTokens);
      } finally {
        await this.release();
      }
      return;
    }
    try {
      assertNonNegativeInteger(actualTokens, 'actualTokens');
    } catch (error) {
      await this.release(); // a refused amount still frees the slot, as settle-then-release would
      throw error;
    }
    await this.books.settleAndRelease(actualTokens);
    this.#settled = true;
    this.#released = true;
  }

}

/** A gate's refusal (1-based, in the order of `gates`: LIMIT_GATES for the limiter's own) and its hint. */
export function denialOf<G extends string = LimitGate>(
  { gate: gateIndex, retryAfterMs }: { readonly gate: number; readonly retryAfterMs: number },
  gates: readonly G[] = LIMIT_GATES as readonly string[] as readonly G[],
): { ok: false; gate: G; retryAfterMs: number } {
  const gate = gates[gateIndex - 1];
  if (gate === undefined) throw new Error(`unexpected limiter gate ${gateIndex}`);
  return { ok: false, gate, retryAfterMs };
}

function checkedLimits<T extends SourceLimits | GlobalLimits>(limits: T, name: string): T {
  if (typeof limits !== 'object' || limits === null) throw new RangeError(`${name} must be an object of limits`);
  for (const field of ['rpm', 'tpm', 'maxConcurrency'] as const) assertNonNegativeInteger(limits[field], `${name}.${field}`);
  return { ...limits };
}
