import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { StreamWatchdog, type StallPhase } from '../src/stream-watchdog.js';

describe('StreamWatchdog', () => {
  let stalls: Array<[StallPhase, number]>;
  let watchdog: StreamWatchdog;

  beforeEach(() => {
    vi.useFakeTimers();
    stalls = [];
    watchdog = new StreamWatchdog({ firstTokenMs: 1000, interTokenMs: 200 }, (phase, ms) => stalls.push([phase, ms]));
  });

  afterEach(() => {
    watchdog.stop();
    expect(vi.getTimerCount()).toBe(0);
    vi.useRealTimers();
  });

  it('fires the first-token limit when no token arrives', () => {
    watchdog.start();
    vi.advanceTimersByTime(999);
    expect(stalls).toEqual([]);
    vi.advanceTimersByTime(1);
    expect(stalls).toEqual([['first_token', 1000]]);
  });

  it('switches to the inter-token limit after the first token and restarts it on each token', () => {
    watchdog.start();
    vi.advanceTimersByTime(900);
    watchdog.tokenSeen();
    for (let i = 0; i < 10; i++) {
      vi.advanceTimersByTime(150);
      watchdog.tokenSeen();
    }
    expect(stalls).toEqual([]);
    vi.advanceTimersByTime(200);
    expect(stalls).toEqual([['inter_token', 200]]);
  });

  it('fires nothing after stop', () => {
    watchdog.start();
    watchdog.tokenSeen();
    watchdog.stop();
    vi.advanceTimersByTime(10_000);
    expect(stalls).toEqual([]);
  });
});

describe('StreamWatchdog timers', () => {
  it('keeps one timer however many tokens arrive', () => {
    vi.useFakeTimers();
    try {
      const watchdog = new StreamWatchdog({ firstTokenMs: 1000, interTokenMs: 200 }, () => {});
      watchdog.start();
      for (let i = 0; i < 100; i++) {
        watchdog.tokenSeen();
        expect(vi.getTimerCount()).toBe(1);
      }
      watchdog.stop();
      expect(vi.getTimerCount()).toBe(0);
    } finally {
      vi.useRealTimers();
    }
  });
});
