import { getEventListeners } from 'node:events';
import { describe, expect, it, vi } from 'vitest';
import { ensureCallDeadline, withCallDeadline } from '../src/deadline.js';
import { AllSourcesExhausted, CallDeadlineExceeded } from '../src/errors.js';
import { sleep } from '../src/signals.js';

/** Real timers with wide margins: deadlines of tens of ms against bodies of seconds. */
const DEADLINE_MS = 40;
const LONG_MS = 5_000;

const activeTimeouts = (): number => process.getActiveResourcesInfo().filter((r) => r === 'Timeout').length;

/** Resolves when `signal` aborts (without a timer of its own). */
function aborted(signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve) => signal?.addEventListener('abort', () => resolve(), { once: true }));
}

function deferred(): { promise: Promise<void>; resolve: () => void } {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => (resolve = r));
  return { promise, resolve };
}

async function settle<T>(promise: Promise<T>): Promise<unknown> {
  return promise.then(
    () => {
      throw new Error('expected a rejection');
    },
    (error: unknown) => error,
  );
}

/** What `run` rejects with under a call deadline of `deadlineMs` (scope LLM). */
function deadlineFailure(run: (signal: AbortSignal | undefined) => Promise<unknown>, deadlineMs = DEADLINE_MS): Promise<unknown> {
  return settle(withCallDeadline(run, { deadlineMs, scope: 'LLM' }));
}

describe('withCallDeadline: expiry', () => {
  it('aborts the run and throws CallDeadlineExceeded carrying scope and deadline', async () => {
    const started = performance.now();
    const error = await deadlineFailure((signal) => sleep(LONG_MS, signal));
    expect(error).toBeInstanceOf(CallDeadlineExceeded);
    expect(error).toMatchObject({ scope: 'LLM', deadlineMs: DEADLINE_MS });
    expect(performance.now() - started).toBeGreaterThanOrEqual(DEADLINE_MS - 2);
  });

  it('recognises a run that rejects with the abort reason itself (fetch style)', async () => {
    const error = await deadlineFailure(async (signal) => {
      await aborted(signal);
      throw signal!.reason;
    });
    expect(error).toBeInstanceOf(CallDeadlineExceeded);
    expect((error as Error).cause).toMatchObject({ name: 'TimeoutError' });
  });

  it('gives each call its own abort reason', async () => {
    const reasons: unknown[] = [];
    const run = async (signal: AbortSignal | undefined): Promise<never> => {
      await aborted(signal);
      reasons.push(signal!.reason);
      throw signal!.reason;
    };
    await Promise.all([deadlineFailure(run), deadlineFailure(run)]);
    expect(reasons).toHaveLength(2);
    expect(reasons[0]).not.toBe(reasons[1]);
  });

  it('awaits the run’s cleanup: return time = deadline + cleanup', async () => {
    const CLEANUP_MS = 200;
    let cleanedUp = false;
    const started = performance.now();
    const error = await deadlineFailure(async (signal) => {
      try {
        await sleep(LONG_MS, signal);
      } finally {
        await sleep(CLEANUP_MS);
        cleanedUp = true;
      }
    });
    expect(error).toBeInstanceOf(CallDeadlineExceeded);
    expect(cleanedUp).toBe(true);
    expect(performance.now() - started).toBeGreaterThanOrEqual(DEADLINE_MS + CLEANUP_MS - 4);
  });
});

describe('withCallDeadline: other timeouts propagate unchanged', () => {
  it('an inner timeout before expiry', async () => {
    const inner = new DOMException('upstream read timed out', 'TimeoutError');
    const error = await deadlineFailure(
      async () => {
        await sleep(10);
        throw inner;
      },
      LONG_MS,
    );
    expect(error).toBe(inner);
  });

  it('an inner abort by a timeout signal of the body’s own', async () => {
    let thrown: unknown;
    const error = await deadlineFailure(
      async () => {
        try {
          await sleep(LONG_MS, AbortSignal.timeout(10));
        } catch (e) {
          thrown = e;
          throw e;
        }
      },
      LONG_MS,
    );
    expect(thrown).toBeDefined();
    expect(error).toBe(thrown);
    expect(error).not.toBeInstanceOf(CallDeadlineExceeded);
  });

  it('a timeout raised in cleanup after expiry is not relabelled', async () => {
    const cleanupTimeout = new DOMException('permit release timed out', 'TimeoutError');
    let expired = false;
    const error = await deadlineFailure(async (signal) => {
      try {
        await sleep(LONG_MS, signal);
      } catch {
        expired = signal?.reason instanceof DOMException && signal.reason.name === 'TimeoutError';
        throw cleanupTimeout;
      }
    });
    expect(expired).toBe(true);
    expect(error).toBe(cleanupTimeout);
  });

  it('a cleanup timeout that wraps the deadline’s abort is the body’s own verdict', async () => {
    let wrapped: unknown;
    const error = await deadlineFailure(async (signal) => {
      try {
        await sleep(LONG_MS, signal);
      } catch (abort) {
        wrapped = new Error('cleanup gave up', { cause: abort });
        throw wrapped;
      }
    });
    expect(error).toBe(wrapped);
  });

  it('a cleanup step timing out on its own timer after expiry', async () => {
    const error = await deadlineFailure(async (signal) => {
      try {
        await sleep(LONG_MS, signal);
      } finally {
        await sleep(LONG_MS, AbortSignal.timeout(10));
      }
    });
    expect(error).toMatchObject({ name: 'AbortError' });
    expect((error as Error).cause).toMatchObject({ name: 'TimeoutError' });
    expect(error).not.toBeInstanceOf(CallDeadlineExceeded);
  });
});

describe('withCallDeadline: caller cancellation wins', () => {
  it('caller abort before expiry → AbortError carrying the caller’s reason', async () => {
    const caller = new AbortController();
    const reason = new Error('user navigated away');
    const entered = deferred();
    const call = withCallDeadline(
      (signal) => {
        entered.resolve();
        return sleep(LONG_MS, signal);
      },
      { deadlineMs: LONG_MS, scope: 'LLM', signal: caller.signal },
    );
    await entered.promise;
    caller.abort(reason);
    const error = await settle(call);
    expect(error).toMatchObject({ name: 'AbortError', code: 'ABORT_ERR' });
    expect((error as Error).cause).toBe(reason);
    expect(error).not.toBeInstanceOf(CallDeadlineExceeded);
  });

  it('caller abort after expiry, during cleanup → AbortError, not CallDeadlineExceeded', async () => {
    const caller = new AbortController();
    const reason = new Error('shutdown');
    const expired = deferred();
    const finishCleanup = deferred();
    const call = withCallDeadline(
      async (signal) => {
        try {
          await sleep(LONG_MS, signal);
        } catch (e) {
          expired.resolve();
          await finishCleanup.promise;
          throw e;
        }
      },
      { deadlineMs: DEADLINE_MS, scope: 'LLM', signal: caller.signal },
    );
    await expired.promise;
    caller.abort(reason);
    finishCleanup.resolve();
    const error = await settle(call);
    expect(error).toMatchObject({ name: 'AbortError' });
    expect((error as Error).cause).toBe(reason);
  });

  it('an already-aborted caller signal reaches the run aborted', async () => {
    const caller = new AbortController();
    caller.abort('before start');
    const error = await settle(
      withCallDeadline((signal) => sleep(LONG_MS, signal), {
        deadlineMs: LONG_MS,
        scope: 'LLM',
        signal: caller.signal,
      }),
    );
    expect((error as Error).cause).toBe('before start');
  });
});

describe('withCallDeadline: the expiry window', () => {
  it('a domain error thrown after expiry propagates as itself', async () => {
    const domain = new AllSourcesExhausted({ scope: 'LLM', message: 'budget spent' });
    const error = await deadlineFailure(async (signal) => {
      await aborted(signal);
      throw domain;
    });
    expect(error).toBe(domain);
  });

  it('a success after expiry returns its value', async () => {
    let sawExpiry = false;
    const value = await withCallDeadline(
      async (signal) => {
        await aborted(signal);
        sawExpiry = signal?.aborted ?? false;
        return 'answer';
      },
      { deadlineMs: DEADLINE_MS, scope: 'LLM' },
    );
    expect(sawExpiry).toBe(true);
    expect(value).toBe('answer');
  });

  it('a narrow success before expiry leaves no pending timer and no listener', async () => {
    const caller = new AbortController();
    const before = activeTimeouts();
    let inside = -1;
    const value = await withCallDeadline(
      async () => {
        inside = activeTimeouts();
        return 42;
      },
      { deadlineMs: 10 * DEADLINE_MS, scope: 'LLM', signal: caller.signal },
    );
    expect(value).toBe(42);
    expect(inside).toBe(before + 1);
    expect(activeTimeouts()).toBe(before);
    expect(getEventListeners(caller.signal, 'abort')).toHaveLength(0);
  });

  it('clears the timer after a failure too', async () => {
    const before = activeTimeouts();
    await deadlineFailure(
      async () => {
        throw new Error('boom');
      },
      LONG_MS,
    );
    expect(activeTimeouts()).toBe(before);
  });
});

describe('withCallDeadline: off', () => {
  it('takes no timer and hands the run the caller’s own signal', async () => {
    const caller = new AbortController();
    const spy = vi.spyOn(globalThis, 'setTimeout');
    try {
      const seen: Array<AbortSignal | undefined> = [];
      await withCallDeadline(async (signal) => seen.push(signal), { scope: 'LLM', signal: caller.signal });
      await withCallDeadline(async (signal) => seen.push(signal), { scope: 'LLM' });
      expect(spy).not.toHaveBeenCalled();
      expect(seen).toEqual([caller.signal, undefined]);
      expect(seen[0]).toBe(caller.signal);
    } finally {
      spy.mockRestore();
    }
  });

  it('lets every error through untouched', async () => {
    const inner = new DOMException('x', 'TimeoutError');
    await expect(
      withCallDeadline(
        async () => {
          throw inner;
        },
        { scope: 'LLM' },
      ),
    ).rejects.toBe(inner);
  });
});

describe('withCallDeadline: a long-lived caller signal', () => {
  it('keeps no listener across 10,000 calls', async () => {
    const caller = new AbortController();
    let during = -1;
    for (let i = 0; i < 10_000; i += 1) {
      await withCallDeadline(
        async () => {
          during = getEventListeners(caller.signal, 'abort').length;
        },
        { deadlineMs: 60_000, scope: 'LLM', signal: caller.signal },
      );
    }
    expect(during).toBe(1);
    expect(getEventListeners(caller.signal, 'abort')).toHaveLength(0);
  });
});

describe('ensureCallDeadline', () => {
  const REFUSED = [0, -1, Number.NaN, Number.POSITIVE_INFINITY, -Infinity, true, '5', 2 ** 31, 1e308, null, undefined];
  it.each(REFUSED)(
    'refuses %s with a RangeError naming the origin',
    (value) => {
      expect(() => ensureCallDeadline(value, 'chat(callDeadlineMs)')).toThrow(RangeError);
      expect(() => ensureCallDeadline(value, 'chat(callDeadlineMs)')).toThrow(/^chat\(callDeadlineMs\) must be/);
    },
  );

  it.each([1, 1500.5, 2 ** 31 - 1])('accepts %s', (value) => {
    expect(ensureCallDeadline(value, 'x')).toBe(value);
  });

  it('withCallDeadline validates too, before running anything', async () => {
    const run = vi.fn(async () => 1);
    await expect(withCallDeadline(run, { deadlineMs: 0, scope: 'LLM' })).rejects.toThrow(RangeError);
    expect(run).not.toHaveBeenCalled();
  });
});
