/**
 * Liveness of a streamed answer: a limit on the time to the first token and on the gap between
 * tokens. (The third layer, the total, is the attempt's own timeout; an attempt enforces all three
 * with one timer, see `LivenessTimer`.) Reasoning tokens count: a model that is thinking is alive.
 */
import { MAX_TIMER_DELAY_MS } from '@pgw/core/internal';

export type LivenessPhase = 'first_token' | 'inter_token';

export interface LivenessLimits {
  firstTokenMs: number;
  interTokenMs: number;
}

/** Which bound of an attempt ran out: its total, or one of the liveness limits. */
export type AttemptLimit = 'total' | LivenessPhase;

/**
 * ONE timer for every time bound of an attempt: the total and, for a stream, the liveness limits.
 * Tokens come by the thousand, so a token only notes the time; the timer fires at the earliest bound it was set for and, when tokens moved that bound later,
 * is set again for the rest. The clock is `performance.now()`, the monotonic clock fake timers also drive.
 */
export abstract class LivenessTimer {
  private timer: ReturnType<typeof setTimeout> | undefined;
  /** When the timer is set to fire. */
  private firesAt = Number.POSITIVE_INFINITY;
  private totalAt = Number.POSITIVE_INFINITY;
  /** The liveness bound runs from here (the start, then the latest token) for `livenessMs`. */
  private livenessFrom = 0;
  /** Undefined: no liveness bound (not a stream, or the answer is complete). */
  private livenessMs: number | undefined;
  private phase: LivenessPhase = 'first_token';

  constructor(
    private readonly totalMs: number,
    private readonly liveness: LivenessLimits | undefined,
  ) {}

  /** A bound ran out; the timer is stopped. */
  protected abstract expired(limit: AttemptLimit, limitMs: number): void;

  /** Starts the total and, if any, the first-token limit. */
  protected startLimits(): void {
    const now = performance.now();
    this.totalAt = now + this.totalMs;
    this.phase = 'first_token';
    this.livenessFrom = now;
    this.livenessMs = this.liveness?.firstTokenMs;
    this.arm(now);
  }

  /** A content or reasoning token arrived: the gap clock starts again. */
  tokenSeen(): void {
    if (this.livenessMs === undefined || this.timer === undefined) return;
    const now = performance.now();
    this.livenessFrom = now;
    if (this.phase === 'inter_token') return;
    this.phase = 'inter_token';
    this.livenessMs = this.liveness!.interTokenMs;
    // Once per stream: the gap limit may end before the first-token limit the timer is set for.
    if (now + this.livenessMs < this.firesAt) this.arm(now);
  }

  /** The answer is complete: liveness no longer matters (the total still bounds the rest). */
  stopLiveness(): void {
    this.livenessMs = undefined;
  }

  stop(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    this.firesAt = Number.POSITIVE_INFINITY;
  }

  private nextBound(): number {
    return this.livenessMs === undefined ? this.totalAt : Math.min(this.totalAt, this.livenessFrom + this.livenessMs);
  }

  private arm(now: number): void {
    clearTimeout(this.timer);
    const at = this.nextBound();
    if (at === Number.POSITIVE_INFINITY) {
      this.timer = undefined;
      this.firesAt = at;
      return;
    }
    // Whole milliseconds (docs/decisions.md#lean-hot-path).
    const delay = Math.min(MAX_TIMER_DELAY_MS, Math.max(1, Math.ceil(at - now)));
    this.firesAt = now + delay;
    this.timer = setTimeout(this.fire, delay);
  }

  private readonly fire = (): void => {
    this.timer = undefined;
    const now = performance.now();
    // The total first: with equal bounds it ran out first (it was set first).
    if (now >= this.totalAt) this.expire('total', this.totalMs);
    else if (this.livenessMs !== undefined && now >= this.livenessFrom + this.livenessMs) this.expire(this.phase, this.livenessMs);
    else this.arm(now);
  };

  private expire(limit: AttemptLimit, limitMs: number): void {
    this.firesAt = Number.POSITIVE_INFINITY;
    this.livenessMs = undefined;
    this.expired(limit, limitMs);
  }
}
