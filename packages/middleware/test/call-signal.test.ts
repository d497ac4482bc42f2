/** How calls listen to signals: one listener on a caller's signal however many calls share it, none on a signal that cannot abort. */
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
  it('shared by 10,000 calls in a row: one listener while a call runs, none once it returned', async () => {
    const shared = new AbortController();
    let during = -1;
    const h = chatHarness([], { recorder: new NoopRecorder() }, () => {
      during = listeners(shared.signal);
      return chatResult();
    });
    for (let i = 0; i < 10_000; i += 1) await h.run({}, { signal: shared.signal });
    expect(during).toBe(1);
    expect(listeners(shared.signal)).toBe(0);
  });

  it.each([
    ['calls', (h: ChatHarness, signal: AbortSignal) => h.run({}, { signal })],
    ['streams', (h: ChatHarness, signal: AbortSignal) => h.stream({}, { signal }).response],
  ] as const)('shared by concurrent %s: one listener for all of them, its abort reaches each, none left after', async (_, start) => {
    const shared = new AbortController();
    const reached = deferred();
    const entered = { count: 0, all: 300, reached: reached.resolve };
    const limiter = new AccountingLimiter();
    const h = chatHarness([], { recorder: new NoopRecorder(), limiter }, waitForAbort(entered));
    const calls = Array.from({ length: entered.all }, () => start(h, shared.signal).catch((error: unknown) => error));
    await reached.promise;
    expect(listeners(shared.signal)).toBe(1);
    shared.abort(new Error('shutdown'));
    const outcomes = await Promise.all(calls);
    expect(outcomes.every((error) => error instanceof Error && error.name === 'AbortError')).toBe(true);
    expect(listeners(shared.signal)).toBe(0);
    expect(limiter.inflight.get('a')).toBe(0);
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
