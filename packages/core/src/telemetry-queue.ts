/**
 * The bounded, batching write queue behind every telemetry store (docs/architecture.md#telemetry). Pure logic: the store
 * supplies `write(batch)`. Whatever the store does — fail, hang, vanish — `push` returns at once and
 * the loss shows up as a dropped-row counter and a rate-limited warning, never as a failed or slowed call.
 */
import type { Clock, TelemetryRecorderStats } from './ports.js';

/** Tuning shared by the store adapters' options. Durations in milliseconds. */
export interface RecorderQueueOptions {
  /** Rows per write (default 500). */
  batchSize?: number;
  /** A partial batch is written at the latest this long after its first row arrived (default 1000). */
  flushIntervalMs?: number;
  /** Rows held in memory at most; beyond it the newest rows are dropped (default 10000). */
  maxQueue?: number;
  /** A write taking longer is abandoned and its rows counted as dropped (default 10000). */
  writeTimeoutMs?: number;
  /** Bound on `flush()` and on the flush inside `close()` (default 10000). */
  flushTimeoutMs?: number;
  /** At most one warning per this interval; it carries the rows dropped since the last one (default 60000). */
  warnIntervalMs?: number;
  /** Where warnings go (default `console.warn`). */
  warn?: (message: string) => void;
  /** Clock for the warning rate limit (default `Date.now`). */
  now?: Clock;
}

/** A write that persisted all but `rejected` rows of its batch, which the store refused for `reason`. */
export interface PartialWrite {
  rejected: number;
  reason: string;
}

export interface BatchingQueueOptions<T> extends RecorderQueueOptions {
  /**
   * Persists one batch; a rejection or a timeout drops the batch, later batches are tried again.
   * A store that kept part of the batch says how many rows it refused.
   */
  write: (batch: T[]) => Promise<PartialWrite | void>;
  /** Names the store in warnings, e.g. `telemetry-sqlite (/var/pgw/telemetry.sqlite)`. */
  label: string;
}

const DEFAULTS = {
  batchSize: 500,
  flushIntervalMs: 1_000,
  maxQueue: 10_000,
  writeTimeoutMs: 10_000,
  flushTimeoutMs: 10_000,
  warnIntervalMs: 60_000,
} as const;

type Tuning = { -readonly [K in keyof typeof DEFAULTS]: number };

function resolveTuning(options: RecorderQueueOptions): Tuning {
  const tuning = { ...DEFAULTS } as Tuning;
  for (const key of Object.keys(DEFAULTS) as Array<keyof Tuning>) {
    const value = options[key];
    if (value === undefined) continue;
    if (typeof value !== 'number' || !Number.isSafeInteger(value) || value <= 0) {
      throw new RangeError(`telemetry queue option ${key} must be a positive integer (milliseconds for …Ms), got ${String(value)}`);
    }
    tuning[key] = value;
  }
  return tuning;
}

/** Why a write ended without persisting: the sink's own error, or our timeout. */
class WriteTimedOut extends Error {
  override readonly name = 'WriteTimedOut';
}

function describe(reason: unknown): string {
  if (reason instanceof Error) return `${reason.name}: ${reason.message}`;
  return String(reason);
}

interface FlushWaiter {
  /** Resolved once this many accepted rows are settled (written or dropped). */
  target: number;
  resolve: () => void;
}

export class BatchingQueue<T> {
  private readonly tuning: Tuning;
  private readonly sink: (batch: T[]) => Promise<PartialWrite | void>;
  private readonly label: string;
  private readonly warnSink: (message: string) => void;
  private readonly now: Clock;

  private items: T[] = [];
  private accepted = 0;
  /** Rows taken out of `items` into batches (settled or in flight). */
  private taken = 0;
  private settled = 0;
  /** A partial batch is written while `taken` is below this (set by the interval timer and flush). */
  private flushThrough = 0;
  private written = 0;
  private dropped = 0;
  private droppedSinceWarning = 0;
  private lastWarningAt = Number.NEGATIVE_INFINITY;
  private waiters: FlushWaiter[] = [];
  private intervalTimer: ReturnType<typeof setTimeout> | undefined;
  private draining: Promise<void> | undefined;
  /** Ends the in-flight write early (as a timeout) when the queue closes. */
  private abandonInFlight: (() => void) | undefined;
  private state: 'open' | 'closing' | 'closed' = 'open';
  private closing: Promise<void> | undefined;

  constructor(options: BatchingQueueOptions<T>) {
    this.tuning = resolveTuning(options);
    this.sink = options.write;
    this.label = options.label;
    this.warnSink = options.warn ?? ((message) => console.warn(message));
    this.now = options.now ?? Date.now;
  }

  /** Enqueues one item; never throws, never waits. */
  push(item: T): void {
    if (this.state !== 'open') {
      this.drop(1, 'the recorder is closed');
      return;
    }
    if (this.items.length >= this.tuning.maxQueue) {
      this.drop(1, `the queue is full (${this.tuning.maxQueue} rows)`);
      return;
    }
    this.items.push(item);
    this.accepted += 1;
    if (this.draining) return;
    if (this.items.length >= this.tuning.batchSize) void this.drain();
    else this.armIntervalTimer();
  }

  /** Counts an item that never reached the queue (e.g. it could not be encoded). */
  discard(reason: unknown): void {
    this.drop(1, `a row could not be encoded: ${describe(reason)}`);
  }

  /** Warns through the same rate limit as the drop warnings (e.g. the store cannot be opened). */
  warn(message: string): void {
    if (this.warningDue()) this.warnSink(`${this.label}: ${message}`);
  }

  /** Settles every row accepted so far; resolves within `flushTimeoutMs` even if the store hangs. */
  async flush(): Promise<void> {
    const target = this.accepted;
    if (this.settled >= target) return;
    const waiter: FlushWaiter = { target, resolve: () => {} };
    const settledAll = new Promise<void>((resolve) => {
      waiter.resolve = resolve;
    });
    this.waiters.push(waiter);
    this.requestFlush();
    await this.within(settledAll, this.tuning.flushTimeoutMs);
    this.waiters = this.waiters.filter((w) => w !== waiter);
  }

  /** Flushes within the bound, then stops: what is still queued or in flight is dropped; no timer survives. */
  close(): Promise<void> {
    if (this.state === 'open') this.state = 'closing';
    this.closing ??= this.shutDown();
    return this.closing;
  }

  stats(): TelemetryRecorderStats {
    return { written: this.written, dropped: this.dropped, queued: this.accepted - this.settled };
  }

  private async shutDown(): Promise<void> {
    await this.flush();
    this.state = 'closed';
    this.clearIntervalTimer();
    this.abandonInFlight?.();
    await this.draining;
    const left = this.items.length;
    this.items = [];
    this.taken += left;
    if (left > 0) this.settle(left, 'the recorder closed before they were written');
    for (const waiter of this.waiters) waiter.resolve();
    this.waiters = [];
  }

  private armIntervalTimer(): void {
    if (this.intervalTimer !== undefined) return;
    this.intervalTimer = setTimeout(() => {
      this.intervalTimer = undefined;
      this.requestFlush();
    }, this.tuning.flushIntervalMs);
  }

  private clearIntervalTimer(): void {
    if (this.intervalTimer === undefined) return;
    clearTimeout(this.intervalTimer);
    this.intervalTimer = undefined;
  }

  private requestFlush(): void {
    this.flushThrough = this.accepted;
    void this.drain();
  }

  /** One writer at a time: full batches as they fill, partial ones only when a flush asks for them. */
  private drain(): Promise<void> {
    this.draining ??= this.writeQueued().finally(() => {
      this.draining = undefined;
      if (this.items.length > 0 && this.state !== 'closed') this.armIntervalTimer();
    });
    return this.draining;
  }

  private async writeQueued(): Promise<void> {
    this.clearIntervalTimer();
    while (this.state !== 'closed' && (this.items.length >= this.tuning.batchSize || this.taken < this.flushThrough)) {
      const batch = this.items.splice(0, this.tuning.batchSize);
      this.taken += batch.length;
      try {
        const partial = await this.writeBounded(batch);
        const rejected = Math.min(partial?.rejected ?? 0, batch.length);
        this.settle(batch.length - rejected);
        if (partial && rejected > 0) this.settle(rejected, `the store refused ${rejected} row(s): ${partial.reason}`);
      } catch (error) {
        this.settle(batch.length, `a write failed: ${describe(error)}`);
      }
    }
  }

  /** Races the sink against `writeTimeoutMs` (and close); an abandoned write may still land later. */
  private async writeBounded(batch: T[]): Promise<PartialWrite | void> {
    const write = (async () => this.sink(batch))();
    // The abandoned write's late outcome is deliberately ignored.
    write.catch(() => {});
    let timer: ReturnType<typeof setTimeout> | undefined;
    const timedOut = new Promise<never>((_, reject) => {
      const abandon = () => reject(new WriteTimedOut(`no answer within ${this.tuning.writeTimeoutMs} ms`));
      this.abandonInFlight = abandon;
      timer = setTimeout(abandon, this.tuning.writeTimeoutMs);
    });
    try {
      return await Promise.race([write, timedOut]);
    } finally {
      clearTimeout(timer);
      this.abandonInFlight = undefined;
    }
  }

  /** Accounts for rows that left the queue: written, or dropped with the reason (`dropReason`). */
  private settle(count: number, dropReason?: string): void {
    this.settled += count;
    if (dropReason === undefined) this.written += count;
    else this.drop(count, dropReason);
    for (const waiter of this.waiters) if (this.settled >= waiter.target) waiter.resolve();
  }

  private drop(count: number, reason: string): void {
    this.dropped += count;
    this.droppedSinceWarning += count;
    if (!this.warningDue()) return;
    const since = this.droppedSinceWarning;
    this.droppedSinceWarning = 0;
    this.warnSink(
      `${this.label}: dropped ${since} telemetry row(s) since the last warning (${this.dropped} in total); last cause: ${reason}`,
    );
  }

  private warningDue(): boolean {
    const at = this.now();
    if (at - this.lastWarningAt < this.tuning.warnIntervalMs) return false;
    this.lastWarningAt = at;
    return true;
  }

  private async within(promise: Promise<void>, ms: number): Promise<void> {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const bound = new Promise<void>((resolve) => {
      timer = setTimeout(resolve, ms);
    });
    try {
      await Promise.race([promise, bound]);
    } finally {
      clearTimeout(timer);
    }
  }
}
