import { getEventListeners } from 'node:events';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { combineSignals, followSignal, joinSharedSignal, leaveSharedSignal, MAX_TIMER_DELAY_MS, NEVER_ABORTED, sleep } from '../src/signals.js';

const listeners = (signal: AbortSignal): number => getEventListeners(signal, 'abort').length;
const activeTimeouts = (): number => process.getActiveResourcesInfo().filter((r) => r === 'Timeout').length;

describe('combineSignals', () => {
  it('aborts with the reason of the first input to abort, and only once', () => {
    const a = new AbortController();
    const b = new AbortController();
    const combined = combineSignals([a.signal, undefined, b.signal]);
    expect(combined.signal.aborted).toBe(false);
    b.abort('b first');
    a.abort('a later');
    expect(combined.signal.aborted).toBe(true);
    expect(combined.signal.reason).toBe('b first');
  });

  it('adds one listener per input and dispose removes them all', () => {
    const a = new AbortController();
    const b = new AbortController();
    const combined = combineSignals([a.signal, b.signal]);
    expect([listeners(a.signal), listeners(b.signal)]).toEqual([1, 1]);
    combined.dispose();
    combined.dispose();
    expect([listeners(a.signal), listeners(b.signal)]).toEqual([0, 0]);
    a.abort();
    expect(combined.signal.aborted).toBe(false);
  });

  it('leaves no listener on the other inputs once one aborts', () => {
    const a = new AbortController();
    const b = new AbortController();
    combineSignals([a.signal, b.signal]);
    a.abort();
    expect(listeners(b.signal)).toBe(0);
  });

  it('is aborted at once, without listening, when an input already is', () => {
    const live = new AbortController();
    const dead = new AbortController();
    const reason = new Error('already');
    dead.abort(reason);
    const combined = combineSignals([live.signal, dead.signal]);
    expect(combined.signal.aborted).toBe(true);
    expect(combined.signal.reason).toBe(reason);
    expect(listeners(live.signal)).toBe(0);
  });

  it('with no inputs never aborts', () => {
    const combined = combineSignals([undefined]);
    expect(combined.signal.aborted).toBe(false);
    combined.dispose();
  });
});

describe('followSignal', () => {
  it('aborts the target with the source reason through one listener, removed by the returned function', () => {
    const source = new AbortController();
    const target = new AbortController();
    const unfollow = followSignal(source.signal, target);
    expect(listeners(source.signal)).toBe(1);
    source.abort('stop');
    expect(target.signal.reason).toBe('stop');
    expect(listeners(source.signal)).toBe(0);
    unfollow();
  });

  it('once unfollowed, a later abort of the source reaches nothing', () => {
    const source = new AbortController();
    const target = new AbortController();
    const unfollow = followSignal(source.signal, target);
    unfollow();
    unfollow();
    expect(listeners(source.signal)).toBe(0);
    source.abort();
    expect(target.signal.aborted).toBe(false);
  });

  it('aborts the target at once, without listening, when the source already is', () => {
    const source = new AbortController();
    source.abort('early');
    const target = new AbortController();
    followSignal(source.signal, target);
    expect(target.signal.reason).toBe('early');
    expect(listeners(source.signal)).toBe(0);
  });

  it('adds no listener for an absent or never-aborting source', () => {
    const target = new AbortController();
    followSignal(undefined, target)();
    followSignal(NEVER_ABORTED, target)();
    expect(listeners(NEVER_ABORTED)).toBe(0);
    expect(target.signal.aborted).toBe(false);
  });
});

describe('joinSharedSignal / leaveSharedSignal', () => {
  it('reaches any number of followers through one listener on the source, removed when the last leaves', () => {
    const source = new AbortController();
    const targets = Array.from({ length: 1000 }, () => new AbortController());
    for (const target of targets) joinSharedSignal(source.signal, target);
    expect(listeners(source.signal)).toBe(1);
    leaveSharedSignal(source.signal, targets[0]!);
    leaveSharedSignal(source.signal, targets[0]!);
    expect(listeners(source.signal)).toBe(1);
    source.abort('all');
    expect(targets[0]!.signal.aborted).toBe(false);
    expect(targets.slice(1).every((target) => target.signal.reason === 'all')).toBe(true);
    expect(listeners(source.signal)).toBe(0);
    for (const target of targets) leaveSharedSignal(source.signal, target);
  });

  it('listens again after the last follower left', () => {
    const source = new AbortController();
    const first = new AbortController();
    joinSharedSignal(source.signal, first);
    leaveSharedSignal(source.signal, first);
    expect(listeners(source.signal)).toBe(0);
    const target = new AbortController();
    joinSharedSignal(source.signal, target);
    expect(listeners(source.signal)).toBe(1);
    source.abort('again');
    expect(target.signal.reason).toBe('again');
  });

  it('aborts a target at once on an aborted source, and adds no listener for an absent or never-aborting one', () => {
    const aborted = new AbortController();
    aborted.abort('before');
    const target = new AbortController();
    joinSharedSignal(aborted.signal, target);
    expect(target.signal.reason).toBe('before');
    expect(listeners(aborted.signal)).toBe(0);
    joinSharedSignal(NEVER_ABORTED, new AbortController());
    joinSharedSignal(undefined, new AbortController());
    expect(listeners(NEVER_ABORTED)).toBe(0);
    leaveSharedSignal(undefined, target);
    leaveSharedSignal(aborted.signal, target);
  });
});

describe('NEVER_ABORTED', () => {
  it('is never aborted and collects no listener from combineSignals, however many combine it', () => {
    const combined = Array.from({ length: 50 }, () => combineSignals([NEVER_ABORTED, new AbortController().signal]));
    expect(NEVER_ABORTED.aborted).toBe(false);
    expect(listeners(NEVER_ABORTED)).toBe(0);
    for (const c of combined) c.dispose();
  });
});

describe('sleep', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('waits in real time', async () => {
    const started = performance.now();
    await sleep(40);
    expect(performance.now() - started).toBeGreaterThanOrEqual(38);
  });

  it('rejects with an AbortError whose cause is the signal reason, and clears its timer', async () => {
    const controller = new AbortController();
    const reason = new Error('stop');
    const before = activeTimeouts();
    const slept = sleep(10_000, controller.signal);
    expect(activeTimeouts()).toBe(before + 1);
    controller.abort(reason);
    const error = await slept.catch((e: unknown) => e);
    expect(error).toMatchObject({ name: 'AbortError', code: 'ABORT_ERR' });
    expect((error as Error).cause).toBe(reason);
    expect(activeTimeouts()).toBe(before);
    expect(listeners(controller.signal)).toBe(0);
  });

  it('puts no listener on the never-aborting signal, however many sleep on it', async () => {
    const sleeps = Array.from({ length: 50 }, () => sleep(1, NEVER_ABORTED));
    expect(listeners(NEVER_ABORTED)).toBe(0);
    await Promise.all(sleeps);
  });

  it('rejects at once when the signal is already aborted, taking no timer', async () => {
    const controller = new AbortController();
    controller.abort('gone');
    const spy = vi.spyOn(globalThis, 'setTimeout');
    const error = await sleep(10_000, controller.signal).catch((e: unknown) => e);
    expect(spy).not.toHaveBeenCalled();
    spy.mockRestore();
    expect((error as Error).cause).toBe('gone');
  });

  it('leaves no listener on the signal after a normal wake', async () => {
    const controller = new AbortController();
    await sleep(1, controller.signal);
    expect(listeners(controller.signal)).toBe(0);
  });

  it.each([Number.NaN, Number.POSITIVE_INFINITY])('refuses %s ms', async (ms) => {
    await expect(sleep(ms)).rejects.toThrow(RangeError);
  });

  it('sleeps delays beyond the timer limit in full, in chunks', async () => {
    vi.useFakeTimers();
    let woke = false;
    const slept = sleep(MAX_TIMER_DELAY_MS + 1000).then(() => {
      woke = true;
    });
    await vi.advanceTimersByTimeAsync(MAX_TIMER_DELAY_MS);
    expect(woke).toBe(false);
    await vi.advanceTimersByTimeAsync(1000);
    await slept;
    expect(woke).toBe(true);
  });
});
