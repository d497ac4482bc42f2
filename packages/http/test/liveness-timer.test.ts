import { getEventListeners } from 'node:events';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { AttemptScope } from '../src/attempt-scope.js';
import { LivenessTimer, type AttemptLimit, type LivenessLimits, type LivenessPhase } from '../src/liveness-timer.js';

/** The liveness limits alone, without a total: what a stream's attempt runs besides its timeout. */
class StreamLiveness extends LivenessTimer {
  constructor(
    limits: LivenessLimits,
    private readonly onExpired: (phase: LivenessPhase, limitMs: number) => void,
  ) {
    super(Number.POSITIVE_INFINITY, limits);
  }

  start(): void {
    this.startLimits();
  }

  protected expired(limit: AttemptLimit, limitMs: number): void {
    this.onExpired(limit as LivenessPhase, limitMs);
  }
}

describe('LivenessTimer: the liveness limits', () => {
  let expiries: Array<[LivenessPhase, number]>;
  let liveness: StreamLiveness;

  beforeEach(() => {
    vi.useFakeTimers();
    expiries = [];
    liveness = new StreamLiveness({ firstTokenMs: 1000, interTokenMs: 200 }, (phase, ms) => expiries.push([phase, ms]));
  });

  afterEach(() => {
    liveness.stop();
    expect(vi.getTimerCount()).toBe(0);
    vi.useRealTimers();
  });

  it('fires the first-token limit when no token arrives', () => {
    liveness.start();
    vi.advanceTimersByTime(999);
    expect(expiries).toEqual([]);
    vi.advanceTimersByTime(1);
    expect(expiries).toEqual([['first_token', 1000]]);
  });

  it('switches to the inter-token limit after the first token and restarts it on each token', () => {
    liveness.start();
    vi.advanceTimersByTime(900);
    liveness.tokenSeen();
    for (let i = 0; i < 10; i++) {
      vi.advanceTimersByTime(150);
      liveness.tokenSeen();
    }
    expect(expiries).toEqual([]);
    vi.advanceTimersByTime(200);
    expect(expiries).toEqual([['inter_token', 200]]);
  });

  it('fires nothing after stop', () => {
    liveness.start();
    liveness.tokenSeen();
    liveness.stop();
    vi.advanceTimersByTime(10_000);
    expect(expiries).toEqual([]);
  });
});

describe('StreamLiveness timers', () => {
  it('keeps one timer however many tokens arrive', () => {
    vi.useFakeTimers();
    try {
      const liveness = new StreamLiveness({ firstTokenMs: 1000, interTokenMs: 200 }, () => {});
      liveness.start();
      for (let i = 0; i < 100; i++) {
        liveness.tokenSeen();
        expect(vi.getTimerCount()).toBe(1);
      }
      liveness.stop();
      expect(vi.getTimerCount()).toBe(0);
    } finally {
      vi.useRealTimers();
    }
  });
});

describe('AttemptScope: one timer for the total and the liveness limits', () => {
  const limits = { firstTokenMs: 300, interTokenMs: 100 };
  const scopeOf = (callerSignal: AbortSignal = new AbortController().signal) =>
    new AttemptScope({ callerSignal, sourceName: 'a', route: 'chat/completions', totalMs: 1000, liveness: limits });

  beforeEach(() => {
    vi.useFakeTimers();
  });

  afterEach(() => {
    expect(vi.getTimerCount()).toBe(0);
    vi.useRealTimers();
  });

  it('holds one timer from the start to the end of a stream, however many tokens arrive', () => {
    const scope = scopeOf();
    expect(vi.getTimerCount()).toBe(1);
    for (let i = 0; i < 20; i++) {
      vi.advanceTimersByTime(40);
      scope.tokenSeen();
      expect(vi.getTimerCount()).toBe(1);
    }
    scope.dispose();
  });

  it('ends a stream whose tokens keep coming at the total', () => {
    const scope = scopeOf();
    for (let i = 0; i < 24; i++) {
      vi.advanceTimersByTime(40);
      scope.tokenSeen();
    }
    expect(scope.cancel.aborted).toBe(false);
    vi.advanceTimersByTime(40);
    expect(scope.cancel.reason).toMatchObject({ transientKind: 'timeout', message: 'a chat/completions: no complete answer within 1000 ms' });
    scope.dispose();
  });

  it('fails the first token, then the gap, each at its own limit', () => {
    const first = scopeOf();
    vi.advanceTimersByTime(299);
    expect(first.cancel.aborted).toBe(false);
    vi.advanceTimersByTime(1);
    expect(first.cancel.reason).toMatchObject({ transientKind: 'stalled_stream', message: 'a chat/completions: no first token within 300 ms' });
    first.dispose();

    const gap = scopeOf();
    vi.advanceTimersByTime(250);
    gap.tokenSeen();
    vi.advanceTimersByTime(99);
    expect(gap.cancel.aborted).toBe(false);
    vi.advanceTimersByTime(1);
    expect(gap.cancel.reason).toMatchObject({ transientKind: 'stalled_stream', message: 'a chat/completions: no token for 100 ms' });
    gap.dispose();
  });

  it('after stopLiveness only the total bounds the rest', () => {
    const scope = scopeOf();
    scope.tokenSeen();
    scope.stopLiveness();
    vi.advanceTimersByTime(999);
    expect(scope.cancel.aborted).toBe(false);
    vi.advanceTimersByTime(1);
    expect(scope.cancel.reason).toMatchObject({ transientKind: 'timeout' });
    scope.dispose();
  });

  it("cancels with the caller's reason, and leaves no listener on the caller's signal once disposed", () => {
    const caller = new AbortController();
    const scope = scopeOf(caller.signal);
    expect(getEventListeners(caller.signal, 'abort')).toHaveLength(1);
    const reason = new Error('stop');
    caller.abort(reason);
    expect(scope.cancel.reason).toBe(reason);
    expect(scope.outcome(new Error('socket closed'))).toMatchObject({ name: 'AbortError', cause: reason });
    scope.dispose();
    expect(getEventListeners(caller.signal, 'abort')).toHaveLength(0);

    const other = new AbortController();
    scopeOf(other.signal).dispose();
    expect(getEventListeners(other.signal, 'abort')).toHaveLength(0);
  });
});
