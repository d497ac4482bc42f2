/**
 * Liveness of a streamed answer: a limit on the time to the first token and on the gap between
 * tokens. (The third layer, the total, is the attempt's own timeout.) Reasoning tokens count:
 * a model that is thinking is alive.
 */

export type StallPhase = 'first_token' | 'inter_token';

export interface StreamWatchdogLimits {
  firstTokenMs: number;
  interTokenMs: number;
}

export class StreamWatchdog {
  private timer: ReturnType<typeof setTimeout> | undefined;
  private phase: StallPhase = 'first_token';

  constructor(
    private readonly limits: StreamWatchdogLimits,
    private readonly onStall: (phase: StallPhase, limitMs: number) => void,
  ) {}

  /** Arms the first-token limit. */
  start(): void {
    this.arm('first_token', this.limits.firstTokenMs);
  }

  /**
   * A content or reasoning token arrived: the gap clock starts again. Tokens come by the thousand,
   * so after the first one the same timer is refreshed instead of a new one created per token.
   */
  tokenSeen(): void {
    if (this.phase === 'inter_token' && this.timer !== undefined) this.timer.refresh();
    else this.arm('inter_token', this.limits.interTokenMs);
  }

  stop(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
  }

  private arm(phase: StallPhase, limitMs: number): void {
    clearTimeout(this.timer);
    this.phase = phase;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.onStall(phase, limitMs);
    }, limitMs);
  }
}
