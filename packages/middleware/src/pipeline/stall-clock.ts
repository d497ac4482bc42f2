import { GatewayUnavailableError, type Clock } from '@pgw/core';

/** When the scope last made progress (a successful attempt). One per scope, shared by all its calls. */
export class ScopeProgress {
  private lastProgressAt: number;

  constructor(private readonly now: Clock) {
    this.lastProgressAt = now();
  }

  markProgress(): void {
    this.lastProgressAt = this.now();
  }

  msSinceProgress(): number {
    return this.now() - this.lastProgressAt;
  }
}

/**
 * One call's non-productive waiting (429 backoff, quota polling, breaker cooldown waits — never time
 * inside a live attempt). The call is stalled only when BOTH its own waiting reached the window AND
 * the scope made no progress for the window: one slow call never condemns a scope that is working.
 */
export class StallClock {
  private waitedMs = 0;

  constructor(
    private readonly progress: ScopeProgress,
    private readonly windowMs: number,
    private readonly scope: string,
  ) {}

  /** Checked before each further non-productive wait. */
  assertNotStalled(perSourceReasons: Record<string, string>): void {
    if (this.waitedMs >= this.windowMs && this.progress.msSinceProgress() >= this.windowMs) {
      throw new GatewayUnavailableError({
        scope: this.scope,
        reason: 'stalled',
        message: `scope ${this.scope} stalled: waited ${Math.round(this.waitedMs)} ms without progress anywhere in the scope`,
        retryAfterMs: this.windowMs,
        perSourceReasons,
      });
    }
  }

  addWaiting(ms: number): void {
    this.waitedMs += ms;
  }
}
