/** A bounded load: a few workers calling in a loop, every outcome kept with its real-time stamps. */

export interface Outcome {
  /** performance.now() when the call started and ended. */
  startedAt: number;
  endedAt: number;
  error?: unknown;
}

export interface LoadOptions {
  workers: number;
  /** A hard bound on the calls of the whole run, whatever happens. */
  maxCalls: number;
  /** Pause between one worker's calls (a failing call returns at once). */
  pauseMs?: number;
}

export class Load {
  readonly outcomes: Outcome[] = [];
  private stopped = false;
  private readonly running: Promise<void>;

  constructor(call: () => Promise<unknown>, options: LoadOptions) {
    const worker = async (): Promise<void> => {
      while (!this.stopped && this.outcomes.length < options.maxCalls) {
        const startedAt = performance.now();
        try {
          await call();
          this.outcomes.push({ startedAt, endedAt: performance.now() });
        } catch (error) {
          this.outcomes.push({ startedAt, endedAt: performance.now(), error });
        }
        await new Promise((resolve) => setTimeout(resolve, options.pauseMs ?? 5));
      }
    };
    this.running = Promise.all(Array.from({ length: options.workers }, worker)).then(() => {});
  }

  /** Outcomes of calls that started at or after `from` (performance.now() time). */
  since(from: number): Outcome[] {
    return this.outcomes.filter((o) => o.startedAt >= from);
  }

  successes(from = 0): number {
    return this.since(from).filter((o) => o.error === undefined).length;
  }

  /** Stops the workers and waits for their calls in flight. */
  async stop(): Promise<void> {
    this.stopped = true;
    await this.running;
  }
}
