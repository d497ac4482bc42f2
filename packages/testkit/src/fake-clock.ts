/** A settable clock and a sleep that moves it, for governance logic tested without real time. */
import { abortError, type Clock, type Sleep } from '@pgw/core';

export class FakeClock {
  private ms: number;

  constructor(startMs = 1_700_000_000_000) {
    this.ms = startMs;
  }

  readonly now: Clock = () => this.ms;

  advance(ms: number): void {
    if (!Number.isFinite(ms) || ms < 0) throw new RangeError(`FakeClock.advance(ms) must be finite and ≥ 0, got ${ms}`);
    this.ms += ms;
  }

  set(ms: number): void {
    this.ms = ms;
  }
}

interface PendingSleep {
  wakeAt: number;
  wake(): void;
}

/**
 * Records every requested delay in `delays`. Auto mode (default): each sleep advances the clock
 * by its own `ms` and resolves on a microtask (concurrent sleeps add up; use manual mode when
 * that matters). Manual mode: sleeps stay pending until `advance(ms)` reaches their wake time or
 * `flush()` wakes them all. Either way an aborted signal rejects with `abortError(signal)`.
 */
export class FakeSleep {
  readonly delays: number[] = [];
  private readonly manual: boolean;
  private readonly pendingSleeps = new Set<PendingSleep>();
  private readonly sleepWaiters: Array<(ms: number) => void> = [];

  constructor(
    private readonly clock: FakeClock,
    options: { manual?: boolean } = {},
  ) {
    this.manual = options.manual ?? false;
  }

  readonly sleep: Sleep = async (ms, signal) => {
    this.delays.push(ms);
    for (const notify of this.sleepWaiters.splice(0)) notify(ms);
    if (signal?.aborted) throw abortError(signal);
    if (!this.manual) {
      await Promise.resolve();
      if (signal?.aborted) throw abortError(signal);
      this.clock.advance(ms);
      return;
    }
    await new Promise<void>((resolve, reject) => {
      const onAbort = (): void => {
        this.pendingSleeps.delete(pending);
        reject(abortError(signal!));
      };
      const pending: PendingSleep = {
        wakeAt: this.clock.now() + ms,
        wake: () => {
          signal?.removeEventListener('abort', onAbort);
          resolve();
        },
      };
      this.pendingSleeps.add(pending);
      signal?.addEventListener('abort', onAbort, { once: true });
    });
  };

  /** Sleeps requested and not yet woken or aborted (manual mode). */
  get pending(): number {
    return this.pendingSleeps.size;
  }

  /** Resolves with the delay of the next sleep requested: pins "the code under test is now waiting". */
  nextSleep(): Promise<number> {
    return new Promise((resolve) => this.sleepWaiters.push(resolve));
  }

  /** Moves the clock and wakes, in wake order, every pending sleep that is due. */
  advance(ms: number): void {
    this.clock.advance(ms);
    const due = [...this.pendingSleeps].filter((p) => p.wakeAt <= this.clock.now()).sort((a, b) => a.wakeAt - b.wakeAt);
    for (const pending of due) {
      this.pendingSleeps.delete(pending);
      pending.wake();
    }
  }

  /** Moves the clock to the latest pending wake time and wakes every pending sleep. */
  flush(): void {
    const last = Math.max(this.clock.now(), ...[...this.pendingSleeps].map((p) => p.wakeAt));
    this.advance(last - this.clock.now());
  }
}
