/**
 * Ports: the small interfaces adapters implement and the middleware talks through.
 * Every adapter of a port passes the shared contract suite in @pgw/testkit.
 */
import type { BudgetCharge, BudgetRefusal, BudgetStatus } from './budget.js';
import type { KeyBounds, KeyGate, KeyStatus } from './keys.js';
import type { TelemetryRow } from './telemetry.js';
import type { BatchGate, Caller, TenantGate, TenantUse } from './tenants.js';

/** Wall-clock milliseconds (epoch). Injected so governance logic is testable. */
export type Clock = () => number;

/** Sleeps `ms`; rejects with the signal's abort error if `signal` aborts first. */
export type Sleep = (ms: number, signal?: AbortSignal) => Promise<void>;

/**
 * What a governance port method answers: a native `Promise` (a store round trip; what an `async`
 * method returns — wrap a foreign thenable in `Promise.resolve`), or the plain value when the adapter
 * computed it synchronously (the memory backends). A plain answer is final — and a failure of a
 * synchronous answer is thrown, not returned as a rejected promise — so callers that branch on it
 * (`isPromise`) continue at once on it (docs/decisions.md#lean-hot-path); `await` takes both.
 */
export type MaybePromise<T> = T | Promise<T>;

/** True when a port's answer is still to come (see MaybePromise): a native `Promise`, as an `async` method returns. */
export function isPromise<T>(value: MaybePromise<T>): value is Promise<T> {
  return value instanceof Promise;
}

// ── Limiter (docs/architecture.md#admission-the-six-gates) ───────────────────────────────────

/** The six gates, in the order a limiter checks them: the source's, then the scope's. */
export const LIMIT_GATES = [
  'source_rpm',
  'source_tpm',
  'source_concurrency',
  'global_rpm',
  'global_tpm',
  'global_concurrency',
] as const;

export type LimitGate = (typeof LIMIT_GATES)[number];

/**
 * Every gate an admission can be refused at: the six, then the tenant's three, the key's three and
 * the batch class's three (docs/architecture.md#tenants, #keys).
 */
export type AdmissionGate = LimitGate | TenantGate | KeyGate | BatchGate;

/** An admission ticket: concurrency + one RPM unit + estimated TPM, held as a lease. */
export interface Permit {
  readonly source: string;
  readonly estTokens: number;
  /** Applies `actual − est` to TPM in the window the reservation was made in. Only the first call counts. */
  settle(actualTokens: number): MaybePromise<void>;
  /** Frees the concurrency slot. Idempotent. */
  release(): MaybePromise<void>;
  /**
   * Optional: `settle(actualTokens)` then `release()` as one operation (one store round trip), with
   * the same effects and idempotence as the two calls; the release happens even when the settle
   * fails. Callers use it when present, else make the two calls.
   */
  settleAndRelease?(actualTokens: number): MaybePromise<void>;
}

export type LimitAdmission =
  | { readonly ok: true; readonly permit: Permit }
  | { readonly ok: false; readonly gate: AdmissionGate; readonly retryAfterMs: number };

/**
 * One source's books. Without an RPM or a TPM limit on the source nothing reads its window, so an
 * adapter may count `rpmUsed`/`tpmUsed` in per-second buckets: an entry then leaves up to 1 s early,
 * never late (docs/architecture.md#admission-the-six-gates).
 */
export interface SourceStats {
  inflight: number;
  rpmUsed: number;
  tpmUsed: number;
}

export interface SourceLimits {
  rpm: number;
  tpm: number;
  maxConcurrency: number;
}

/**
 * The six gates: the quota half of a Governor (each backend builds its own; see `governorOf`). A
 * denied tryEnter consumes nothing; unknown sources throw SourceNotConfiguredError.
 */
export interface Limiter {
  tryEnter(source: string, estTokens: number): MaybePromise<LimitAdmission>;
  sourceStats(source: string): MaybePromise<SourceStats>;
  close?(): Promise<void>;
}

// ── Breaker (docs/architecture.md#circuit-breaker) ───────────────────────────────────────────

export type BreakerState = 'closed' | 'open' | 'half_open';

/** Why a breaker changed state; each reason names one transition (see `BREAKER_TRANSITIONS`). */
export type BreakerChangeReason = 'failures' | 'source_dead' | 'probe_succeeded' | 'probe_failed' | 'cooldown_elapsed';

/** A change of a source's breaker state, reported by the backend whose operation made it. */
export interface BreakerTransition {
  readonly from: BreakerState;
  readonly to: BreakerState;
  readonly reason: BreakerChangeReason;
}

/** The one transition each reason stands for: a store can answer with the reason alone. */
export const BREAKER_TRANSITIONS: { readonly [R in BreakerChangeReason]: BreakerTransition } = Object.freeze({
  failures: Object.freeze({ from: 'closed', to: 'open', reason: 'failures' }),
  source_dead: Object.freeze({ from: 'closed', to: 'open', reason: 'source_dead' }),
  cooldown_elapsed: Object.freeze({ from: 'open', to: 'half_open', reason: 'cooldown_elapsed' }),
  probe_succeeded: Object.freeze({ from: 'half_open', to: 'closed', reason: 'probe_succeeded' }),
  probe_failed: Object.freeze({ from: 'half_open', to: 'open', reason: 'probe_failed' }),
});

/** Permission to send one attempt to a source. A probe ticket holds the single half-open lease. */
export interface BreakerTicket {
  readonly ok: true;
  readonly source: string;
  /** The state epoch the attempt was admitted under; write-backs carrying a stale epoch are ignored. */
  readonly epoch: number;
  readonly probe: boolean;
  /** Identifies the probe lease (present when `probe`). */
  readonly probeToken?: string;
  /** `open→half_open` when this ticket took the first probe lease of the open period. */
  readonly transition?: BreakerTransition;
}

export interface BreakerRefusal {
  readonly ok: false;
  readonly source: string;
  readonly state: 'open' | 'half_open';
  /** Until the cooldown ends (open) or the probe lease can be retaken (half_open). Always > 0. */
  readonly retryAfterMs: number;
}

/**
 * How an attempt ended, as the breaker sees it:
 * `success`; `failure` (transient); `dead` (SourceDeadError: forces open);
 * `invalid` (ResultInvalidError: the service worked — counts as success, but is no window sample and feeds no health).
 */
export type BreakerVerdict = 'success' | 'failure' | 'dead' | 'invalid';

export interface BreakerSnapshot {
  source: string;
  state: BreakerState;
  epoch: number;
  /** Epoch ms when the open period ends (0 when not open). */
  openUntil: number;
  consecutiveFailures: number;
  /** Consecutive re-opens (k in cooldown × 2^k). */
  reopenCount: number;
  windowSuccesses: number;
  windowFailures: number;
  probeHeld: boolean;
}

/** One scope's circuit breakers: the breaker half of a Governor (each backend builds its own; see `governorOf`). */
export interface Breaker {
  tryAcquire(source: string): MaybePromise<BreakerTicket | BreakerRefusal>;
  /** Applies the verdict (ignored for a stale epoch) and answers the transition it caused, if any. */
  record(ticket: BreakerTicket, verdict: BreakerVerdict): MaybePromise<BreakerTransition | undefined>;
  /** Frees a probe lease without a verdict (the probe was cancelled). No-op for non-probe tickets. */
  releaseProbe(ticket: BreakerTicket): MaybePromise<void>;
  snapshot(source: string): MaybePromise<BreakerSnapshot>;
  close?(): Promise<void>;
}

// ── Governor: the one governance port of the call path ───────────────────────────────────────

/** One admitted attempt at one source: its breaker ticket and its quota permit, held until `finish`. */
export interface Lease {
  readonly ok: true;
  readonly source: string;
  /** The tokens reserved for the attempt (its settlement starts from them). */
  readonly estTokens: number;
  /** The breaker transition this admission made: `open→half_open` when it took the first probe lease of the open period. */
  readonly transition?: BreakerTransition;
  /**
   * Ends the attempt: applies the breaker verdict — with none, the probe lease is just given back —
   * then settles the permit with `actualTokens` and releases it (even when the verdict's write
   * failed). `spentUsd`: what the attempt cost, replacing its budget reservation (default 0).
   * Answers the breaker transition the verdict caused. Only the first call counts, also when it
   * failed: a write-back that did not land is the governor's to replay, never the caller's to repeat.
   * Every governor's lease extends TicketLease, which holds this rule.
   */
  finish(
    verdict: BreakerVerdict | undefined,
    actualTokens: number,
    spentUsd?: number,
  ): MaybePromise<BreakerTransition | undefined>;
}

/** Why a governor refused an attempt; a refusal holds nothing (no permit, no probe lease). */
export type GovernorRefusal =
  | { readonly ok: false; readonly refusal: BreakerRefusal }
  | {
      readonly ok: false;
      readonly refusal?: undefined;
      readonly gate: AdmissionGate;
      readonly retryAfterMs: number;
      /** An `open→half_open` the breaker reported before the quota refused (see `governorOf`). */
      readonly transition?: BreakerTransition;
    }
  /** Others wait for room before this caller (a fleet-wide line): nothing was looked at or booked. */
  | { readonly ok: false; readonly refusal?: undefined; readonly queued: true; readonly retryAfterMs: number }
  /** The spend budget refused (after the breaker, before the six gates): nothing was booked. */
  | { readonly ok: false; readonly refusal?: undefined; readonly budget: BudgetRefusal };

/**
 * A scope's breaker and six gates, kept together by one backend (memory, Redis): the only governance
 * port the call path knows. `admit` asks the breaker, then the gates — a breaker refusal touches no
 * gate; a quota refusal consumes nothing and leaves no probe lease. Breaker transitions are reported
 * by the operation that made them (`Lease.transition`, `Lease.finish`), never inferred.
 */
export interface Governor {
  /**
   * `turn`: the caller's place in a fleet-wide line, when the governor keeps one — a caller that
   * waits for room passes the same id on every try; it is served when it is first in line (see
   * `onRoomFreed`). Without one, a caller is refused `queued` while anybody waits.
   * `charge`: the attempt's budget reservation, when the scope has a budget (see core `budget.ts`).
   * `caller`: who the attempt is for (default `DEFAULT_CALLER`): its tenant's gates and, for a batch
   * call, the batch class's are checked and booked with the six; in line, its tenant's weighted share
   * and its class decide its place (docs/architecture.md#tenants). With a `caller.key`, the key's
   * gates and its budget are checked and booked in the same operation (docs/architecture.md#keys); a
   * key budget without a `charge` reserves nothing but still settles what `finish` reports.
   */
  admit(source: string, estTokens: number, turn?: string, charge?: BudgetCharge, caller?: Caller): MaybePromise<Lease | GovernorRefusal>;
  /** The source's in-flight count and window usage (the health-aware selector ranks on them). */
  sourceStats(source: string): MaybePromise<SourceStats>;
  /** Optional: the source's breaker as the governor's books have it now (the console and status calls read it). */
  breakerSnapshot?(source: string): MaybePromise<BreakerSnapshot>;
  /** The budget a call of `tenantId` spends, now; undefined when the scope has no budget. */
  budgetStatus?(tenantId?: string): MaybePromise<BudgetStatus | undefined>;
  /** A tenant's use of the scope against its bound, now. */
  tenantStatus?(tenantId: string): MaybePromise<TenantUse>;
  /** Optional: a key's use of the scope now, and its budget's settled spend in the current window. */
  keyStatus?(bounds: KeyBounds): MaybePromise<KeyStatus>;
  /** Optional: calls `listener` whenever room was freed anywhere in the fleet; returns the unsubscribe. */
  onRoomFreed?(listener: () => void): () => void;
  /** Optional: gives up a place in line (a waiting call that ended); idempotent. */
  leaveLine?(turn: string): Promise<void>;
  close?(): Promise<void>;
}

// ── Cache (docs/architecture.md#cache) ───────────────────────────────────────────────────────

export interface Cache {
  get(key: string): Promise<string | undefined>;
  set(key: string, value: string, ttlMs: number): Promise<void>;
  close?(): Promise<void>;
}

// ── Record store (docs/architecture.md#record-store) ──────────────────────────────────────────

/**
 * Records a program on the clients keeps for a while and reads back by key (the server's stored
 * responses): unlike a cache entry, a record stays until it expires or is deleted.
 */
export interface RecordStore {
  get(key: string): Promise<string | undefined>;
  /** Writes or replaces the record, kept for `ttlMs`. */
  set(key: string, value: string, ttlMs: number): Promise<void>;
  /** True when a record was there to delete. */
  delete(key: string): Promise<boolean>;
  close?(): Promise<void>;
}

// ── Telemetry (docs/architecture.md#telemetry) ───────────────────────────────────────────────

export interface TelemetryRecorderStats {
  written: number;
  dropped: number;
  queued: number;
}

/** `record` enqueues and returns at once: a failing or slow store never fails or slows a call. */
export interface TelemetryRecorder {
  record(row: TelemetryRow): void;
  /** Writes what is queued; resolves within the recorder's bound even if the store hangs. */
  flush(): Promise<void>;
  stats(): TelemetryRecorderStats;
  close(): Promise<void>;
}
