/**
 * Ports: the small interfaces adapters implement and the middleware talks through.
 * Every adapter of a port passes the shared contract suite in @pgw/testkit.
 */
import type { BudgetCharge, BudgetRefusal, BudgetStatus } from './budget.js';
import type { TelemetryRow } from './telemetry.js';

/** Wall-clock milliseconds (epoch). Injected so governance logic is testable. */
export type Clock = () => number;

/** Sleeps `ms`; rejects with the signal's abort error if `signal` aborts first. */
export type Sleep = (ms: number, signal?: AbortSignal) => Promise<void>;

/**
 * What a governance port method answers: a promise (a store round trip), or the plain value when the
 * adapter computed it synchronously (the memory backends). A plain answer is final — and a failure of a
 * synchronous answer is thrown, not returned as a rejected promise — so callers that branch on it
 * (`isPromise`) spend no promise, no microtask and no abort listener on it; `await` takes both.
 */
export type MaybePromise<T> = T | Promise<T>;

/** True when a port's answer is still to come (see MaybePromise); any thenable counts. */
export function isPromise<T>(value: MaybePromise<T>): value is Promise<T> {
  return typeof (value as { then?: unknown } | null | undefined)?.then === 'function';
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

export type Admission =
  | { readonly ok: true; readonly permit: Permit }
  | { readonly ok: false; readonly gate: LimitGate; readonly retryAfterMs: number };

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

/** The six gates. A denied tryEnter consumes nothing; unknown sources throw SourceNotConfiguredError. */
export interface Limiter {
  tryEnter(source: string, estTokens: number): MaybePromise<Admission>;
  sourceStats(source: string): MaybePromise<SourceStats>;
  close?(): Promise<void>;
}

// ── Breaker gate (docs/architecture.md#circuit-breaker) ──────────────────────────────────────

export type BreakerState = 'closed' | 'open' | 'half_open';

/** Permission to send one attempt to a source. A probe ticket holds the single half-open lease. */
export interface GateTicket {
  readonly ok: true;
  readonly source: string;
  /** The state epoch the attempt was admitted under; write-backs carrying a stale epoch are ignored. */
  readonly epoch: number;
  readonly probe: boolean;
  /** Identifies the probe lease (present when `probe`). */
  readonly probeToken?: string;
}

export interface GateRefusal {
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
export type GateOutcome = 'success' | 'failure' | 'dead' | 'invalid';

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

export interface Gate {
  tryAcquire(source: string): MaybePromise<GateTicket | GateRefusal>;
  record(ticket: GateTicket, outcome: GateOutcome): MaybePromise<void>;
  /** Frees a probe lease without a verdict (the probe was cancelled). No-op for non-probe tickets. */
  releaseProbe(ticket: GateTicket): MaybePromise<void>;
  snapshot(source: string): MaybePromise<BreakerSnapshot>;
  close?(): Promise<void>;
}

// ── Combined governance (optional) ───────────────────────────────────────────────────────────

/** What a governor answers for one attempt at one source. */
export type GovernedAdmission =
  | {
      readonly ok: true;
      readonly ticket: GateTicket;
      readonly permit: Permit;
      /**
       * Ends the attempt in one store operation: `gate.record(ticket, verdict)` — or, with no verdict,
       * `gate.releaseProbe(ticket)` — then `permit.settleAndRelease(actualTokens)`. The permit's
       * write-back happens even when the verdict's fails. Idempotent; only the first call counts.
       * `spentUsd`: what the attempt cost, replacing its budget reservation (default 0).
       */
      finish(verdict: GateOutcome | undefined, actualTokens: number, spentUsd?: number): MaybePromise<void>;
    }
  | { readonly ok: false; readonly refusal: GateRefusal }
  | { readonly ok: false; readonly refusal?: undefined; readonly gate: LimitGate; readonly retryAfterMs: number }
  /** Others wait for room before this caller (a fleet-wide line): nothing was looked at or booked. */
  | { readonly ok: false; readonly refusal?: undefined; readonly queued: true; readonly retryAfterMs: number }
  /** The spend budget refused (after the breaker, before the six gates): nothing was booked. */
  | { readonly ok: false; readonly refusal?: undefined; readonly budget: BudgetRefusal };

/**
 * Optional capability of a backend that keeps a scope's breaker and limiter together: the breaker's
 * admission and all six gates in one store operation, and the attempt's write-backs in one more
 * (Redis: two round trips per attempt instead of four). Same effects as the Gate and Limiter calls it
 * replaces: a breaker refusal touches no gate; a quota refusal consumes nothing and leaves no probe
 * lease. The middleware uses it when the client supplies one, else the two ports.
 */
export interface Governor {
  /**
   * `turn`: the caller's place in a fleet-wide line, when the governor keeps one — a caller that
   * waits for room passes the same id on every try; it is served when it is first in line (see
   * `onRoomFreed`). Without one, a caller is refused `queued` while anybody waits.
   * `charge`: the attempt's budget reservation, when the scope has a budget (see core `budget.ts`).
   */
  admit(source: string, estTokens: number, turn?: string, charge?: BudgetCharge): MaybePromise<GovernedAdmission>;
  /** The budget a call of `tenantId` spends, now; undefined when the scope has no budget. */
  budgetStatus?(tenantId?: string): MaybePromise<BudgetStatus | undefined>;
  /** Optional: calls `listener` whenever room was freed anywhere in the fleet; returns the unsubscribe. */
  onRoomFreed?(listener: () => void): () => void;
  /** Optional: gives up a place in line (a waiting call that ended); idempotent. */
  leaveLine?(turn: string): Promise<void>;
}

// ── Cache (docs/architecture.md#cache) ───────────────────────────────────────────────────────

export interface Cache {
  get(key: string): Promise<string | undefined>;
  set(key: string, value: string, ttlMs: number): Promise<void>;
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
