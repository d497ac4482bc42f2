/**
 * How calls listen to signals: a call alone on its caller's signal listens to it directly; calls
 * beside it follow it through one listener however many they are; none listen to a signal that cannot abort.
 */
import { getEventListeners } from 'node:events';
import { abortError, NoopRecorder, type AttemptContext, type ChatResult } from '@pgw/core';
import { NEVER_ABORTED } from '@pgw/core/internal';
import { deferred } from '@pgw/testkit';
import { afterEach, describe, expect, it } from 'vitest';
import { AccountingLimiter, chatResult } from './helpers/fakes.js';
import { chatHarness } from './helpers/harness.js';

type ChatHarness = ReturnType<typeof chatHarness>;

const listeners = (signal: AbortSignal): number => getEventListeners(signal, 'abort').length;

/** A transport step that counts its entries and waits for its attempt's signal to abort. */
function waitForAbort(entered: { count: number; all: number; reached: () => void }) {
  return (ctx: AttemptContext): Promise<ChatResult> => {
    entered.count += 1;
    if (entered.count === entered.all) entered.reached();
    return new Promise<ChatResult>((_, reject) => {
      ctx.signal.addEventListener('abort', () => reject(abortError(ctx.signal)), { once: true });
    });
  };
}

describe('the caller signal', () => {
  it('held by one call at a time: the call listens to it as its own; a call beside it gets a signal of its own', async () => {
    const caller = new AbortController();
    const seen: AbortSignal[] = [];
    const release = deferred();
    const h = chatHarness([], { recorder: new NoopRecorder() }, async (ctx) => {
      seen.push(ctx.signal);
      if (seen.length === 2) release.resolve();
      await release.promise;
      return chatResult();
    });
    await Promise.all([h.run({}, { signal: caller.signal }), h.run({}, { signal: caller.signal })]);
    await h.run({}, { signal: caller.signal });
    expect(seen[0]).toBe(caller.signal);
    expect(seen[1]).not.toBe(caller.signal);
    expect(seen[2]).toBe(caller.signal);
    expect(listeners(caller.signal)).toBe(0);
  });

  it('shared by 10,000 calls in a row: as many listeners in the last call as in the first, none once it returned', async () => {
    const shared = new AbortController();
    const during: number[] = [];
    const h = chatHarness([], { recorder: new NoopRecorder() }, () => {
      during.push(listeners(shared.signal));
      return chatResult();
    });
    for (let i = 0; i < 10_000; i += 1) await h.run({}, { signal: shared.signal });
    expect(new Set(during)).toEqual(new Set([during[0]]));
    expect(listeners(shared.signal)).toBe(0);
  });

  // Calls: the first call's own two (its attempt's race with the transport, the transport's) and
  // the followers' one. Streams: a stream always follows through the one listener.
  it.each([
    ['calls', (h: ChatHarness, signal: AbortSignal) => h.run({}, { signal }), 3],
    ['streams', (h: ChatHarness, signal: AbortSignal) => h.stream({}, { signal }).response, 1],
  ] as const)('shared by 300 concurrent %s: as many listeners as with 2, its abort reaches each, none left after', async (_, start, expected) => {
    for (const all of [2, 300]) {
      const shared = new AbortController();
      const reached = deferred();
      const entered = { count: 0, all, reached: reached.resolve };
      const limiter = new AccountingLimiter();
      const h = chatHarness([], { recorder: new NoopRecorder(), limiter }, waitForAbort(entered));
      const calls = Array.from({ length: all }, () => start(h, shared.signal).catch((error: unknown) => error));
      await reached.promise;
      expect(listeners(shared.signal)).toBe(expected);
      shared.abort(new Error('shutdown'));
      const outcomes = await Promise.all(calls);
      expect(outcomes.every((error) => error instanceof Error && error.name === 'AbortError')).toBe(true);
      expect(listeners(shared.signal)).toBe(0);
      expect(limiter.inflight.get('a')).toBe(0);
    }
  });
});

describe('a call without a signal', () => {
  const warnings: Error[] = [];
  const onWarning = (warning: Error): void => {
    warnings.push(warning);
  };
  afterEach(() => {
    process.off('warning', onWarning);
    warnings.length = 0;
  });

  it('puts no listener on any shared signal, however many run at once (no MaxListenersExceededWarning)', async () => {
    process.on('warning', onWarning);
    const release = deferred();
    const reached = deferred();
    let entered = 0;
    let seen = -1;
    const h = chatHarness([], { recorder: new NoopRecorder() }, async (ctx) => {
      entered += 1;
      if (entered === 50) {
        seen = listeners(ctx.signal);
        reached.resolve();
      }
      await release.promise;
      return chatResult();
    });
    const calls = Array.from({ length: 50 }, () => h.run());
    await reached.promise;
    expect(seen).toBe(0);
    expect(listeners(NEVER_ABORTED)).toBe(0);
    release.resolve();
    await Promise.all(calls);
    await new Promise((resolve) => setImmediate(resolve)); // process warnings are emitted on a later tick
    expect(warnings.filter((w) => w.name === 'MaxListenersExceededWarning')).toEqual([]);
  });
});
