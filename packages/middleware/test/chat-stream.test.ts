/** pipeline.stream(): deltas to the caller under the same governance; retry / failover only before the first content token. */
import { getEventListeners } from 'node:events';
import { InMemoryCache } from '@pgw/backend-memory';
import {
  abortError,
  AllSourcesExhausted,
  CallDeadlineExceeded,
  SourceDeadError,
  StreamInterruptedError,
  TransientError,
  type AttemptContext,
  type ChatDelta,
  type ChatRequest,
  type ChatResult,
} from '@pgw/core';
import { deferred } from '@pgw/testkit';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { assembleChatPipeline, type ChatStream } from './helpers/internals.js';
import { AccountingLimiter, chatResult, drain, HANG, ScriptedBreaker, type Step } from './helpers/fakes.js';
import { chatHarness, HI } from './helpers/harness.js';

/** A streaming transport step: forwards `deltas` through `ctx.onDelta` (awaiting any promise between them), then ends as `end` says. */
function streams(deltas: Array<ChatDelta | Promise<unknown>>, end: ChatResult | Error | typeof HANG): Step<ChatResult> {
  return async (ctx) => {
    for (const item of deltas) {
      if (item instanceof Promise) await item;
      else ctx.onDelta?.(item);
    }
    if (end === HANG) return untilAborted(ctx);
    if (end instanceof Error) throw end;
    return end;
  };
}

function untilAborted(ctx: AttemptContext): Promise<never> {
  return new Promise((_, reject) => {
    if (ctx.signal.aborted) reject(abortError(ctx.signal));
    ctx.signal.addEventListener('abort', () => reject(abortError(ctx.signal)), { once: true });
  });
}

/** Iterates to the end; returns what arrived and how the iteration ended. */
async function collect(stream: ChatStream): Promise<{ deltas: ChatDelta[]; error?: unknown }> {
  const deltas: ChatDelta[] = [];
  try {
    for await (const delta of stream) deltas.push(delta);
    return { deltas };
  } catch (error) {
    return { deltas, error };
  }
}

const content = (...words: string[]): ChatDelta[] => words.map((word) => ({ content: word }));
const truncated = () => new TransientError({ message: 'stream ended without [DONE]', sourceName: 'a', transientKind: 'truncated' });

describe('chat stream: delivery', () => {
  it('a model that cannot stream answers whole: its answer reaches the caller as one delta', async () => {
    const h = chatHarness([chatResult('all at once', { reasoningContent: 'thought' })]);
    const wholeOnly = h.settings.sources.map((s) => ({ ...s, model: Object.assign(Object.create(null), s.model, { generate: s.model.generate.bind(s.model) }) }));
    const pipeline = assembleChatPipeline({ ...h.parts, settings: { ...h.settings, sources: wholeOnly } });
    expect(wholeOnly[0]!.model.stream).toBeUndefined();
    const stream = pipeline.stream({ messages: HI, sampling: {} });
    const { deltas } = await collect(stream);
    expect(deltas).toEqual([{ content: 'all at once', reasoningContent: 'thought' }]);
    expect(await stream.response).toMatchObject({ content: 'all at once', source: 'a' });
  });

  it('yields content deltas in order while the attempt runs; response.content is their concatenation', async () => {
    const latch = deferred();
    const h = chatHarness([streams([...content('one ', 'two '), latch.promise, ...content('three')], chatResult('one two three'))]);
    const stream = h.stream();
    const iterator = stream[Symbol.asyncIterator]();
    expect(await iterator.next()).toEqual({ done: false, value: { content: 'one ' } });
    expect(await iterator.next()).toEqual({ done: false, value: { content: 'two ' } });
    latch.resolve(); // the first tokens reached the caller before the upstream finished
    expect(await iterator.next()).toEqual({ done: false, value: { content: 'three' } });
    expect(await iterator.next()).toEqual({ done: true, value: undefined });
    const response = await stream.response;
    expect(response).toMatchObject({ content: 'one two three', source: 'a', cached: false, callStats: { attempts: 1, sourcesTried: ['a'] } });
    expect(h.recorder.kind('attempt')).toEqual([expect.objectContaining({ status: 'ok', source: 'a' })]);
    expect(h.recorder.kind('terminal_failure')).toEqual([]);
  });

  it('serves next() calls made before any delta arrived in order, then the end to each later one', async () => {
    const latch = deferred();
    const h = chatHarness([streams([latch.promise, ...content('one ', 'two')], chatResult('one two'))]);
    const iterator = h.stream()[Symbol.asyncIterator]();
    const pulls = [iterator.next(), iterator.next(), iterator.next(), iterator.next()];
    latch.resolve();
    expect(await Promise.all(pulls)).toEqual([
      { done: false, value: { content: 'one ' } },
      { done: false, value: { content: 'two' } },
      { done: true, value: undefined },
      { done: true, value: undefined },
    ]);
  });

  it('an answer that arrived whole (no delta streamed) is yielded as one delta', async () => {
    const h = chatHarness([chatResult('all at once', { reasoningContent: 'pondered' })]);
    expect(await collect(h.stream())).toEqual({ deltas: [{ content: 'all at once', reasoningContent: 'pondered' }] });
  });

  it('serves a caller that only awaits response: deltas are buffered, nothing needs pulling', async () => {
    const h = chatHarness([streams(content('a', 'b'), chatResult('ab'))]);
    await expect(h.stream().response).resolves.toMatchObject({ content: 'ab' });
  });

  it('a caller that only iterates a failing stream gets the error there and no unhandled rejection', async () => {
    const unhandled: unknown[] = [];
    const onUnhandled = (reason: unknown) => unhandled.push(reason);
    process.on('unhandledRejection', onUnhandled);
    try {
      const h = chatHarness([streams(content('x'), truncated())]);
      const { error } = await collect(h.stream());
      expect(error).toBeInstanceOf(StreamInterruptedError);
      await drain();
      await new Promise((resolve) => setTimeout(resolve, 0));
      expect(unhandled).toEqual([]);
    } finally {
      process.off('unhandledRejection', onUnhandled);
    }
  });
});

describe('chat stream: retry and failover only before the first content token', () => {
  it('fails over when the first source fails before any token; its reasoning was forwarded but did not commit', async () => {
    const h = chatHarness([
      streams([{ reasoningContent: 'thinking on a' }], new TransientError({ message: '503', sourceName: 'a', statusCode: 503 })),
      streams([{ reasoningContent: 'thinking on b' }, ...content('from ', 'b')], chatResult('from b', { reasoningContent: 'thinking on b' })),
    ]);
    const stream = h.stream();
    expect(await collect(stream)).toEqual({
      deltas: [{ reasoningContent: 'thinking on a' }, { reasoningContent: 'thinking on b' }, ...content('from ', 'b')],
    });
    const response = await stream.response;
    expect(response).toMatchObject({ content: 'from b', reasoningContent: 'thinking on b', source: 'b' });
    expect(response.callStats).toMatchObject({ attempts: 2, sourcesTried: ['a', 'b'] });
    expect(h.script.sources()).toEqual(['a', 'b']);
  });

  it('after the first content token a transient failure ends the call: StreamInterruptedError, no second attempt', async () => {
    const h = chatHarness([streams(content('one ', 'two ', 'three '), truncated())], {}, chatResult('never sent'));
    const stream = h.stream();
    const { deltas, error } = await collect(stream);
    expect(deltas).toEqual(content('one ', 'two ', 'three '));
    expect(error).toBeInstanceOf(StreamInterruptedError);
    expect(error).toBeInstanceOf(AllSourcesExhausted); // in the caller-facing family: "retry the call later"
    expect(error).toMatchObject({ sourceName: 'a', partialContent: 'one two three ', reason: 'retry_exhausted' });
    expect(error).toMatchObject({ perSourceReasons: { a: 'transient:truncated' } });
    expect((error as Error).cause).toBeInstanceOf(TransientError);
    await expect(stream.response).rejects.toBe(error);
    expect(h.script.calls).toHaveLength(1);
    expect(h.sleep.calls).toEqual([]); // no backoff either
    expect((h.breaker as ScriptedBreaker).outcomes()).toEqual(['a:failure']);
    expect((h.limiter as AccountingLimiter).lastPermit()).toMatchObject({ settled: [100], releases: 1 }); // S5 transient → est
    expect(h.recorder.kind('attempt')).toEqual([expect.objectContaining({ status: 'error', errorType: 'TransientError' })]);
    expect(h.recorder.kind('terminal_failure')).toEqual([
      expect.objectContaining({ status: 'error', errorType: 'StreamInterruptedError', attempts: 1 }),
    ]);
  });

  it('a dead source after the first token also ends the call; its breaker still opens and the permit settles 0', async () => {
    const dead = new SourceDeadError({ message: 'quota gone', sourceName: 'a', statusCode: 429 });
    const h = chatHarness([streams(content('partial'), dead)], {}, chatResult('never sent'));
    const { error } = await collect(h.stream());
    expect(error).toMatchObject({ name: 'StreamInterruptedError', partialContent: 'partial', cause: dead });
    expect(h.script.calls).toHaveLength(1);
    expect((h.breaker as ScriptedBreaker).outcomes()).toEqual(['a:dead']);
    expect((h.limiter as AccountingLimiter).lastPermit()).toMatchObject({ settled: [0], releases: 1 });
  });

  it('drops deltas an ended attempt still emits (a transport ignoring its abort cannot write into the next attempt)', async () => {
    let staleSink: ((delta: ChatDelta) => void) | undefined;
    const h = chatHarness([
      (ctx) => {
        staleSink = ctx.onDelta;
        throw new TransientError({ message: '502', sourceName: 'a', statusCode: 502 });
      },
      (ctx) => {
        staleSink?.({ content: 'stale from a' });
        ctx.onDelta?.({ content: 'fresh from b' });
        return chatResult('fresh from b');
      },
    ]);
    expect((await collect(h.stream())).deltas).toEqual(content('fresh from b'));
  });
});

describe('chat stream: cancellation and the deadline', () => {
  it('break aborts the attempt; once the loop is left the permit is settled and released and the rows are written', async () => {
    const h = chatHarness([streams(content('first '), HANG)]);
    const stream = h.stream();
    for await (const delta of stream) {
      expect(delta).toEqual({ content: 'first ' });
      break;
    }
    // return() waited for the call's cleanup: nothing to drain.
    const limiter = h.limiter as AccountingLimiter;
    expect(limiter.lastPermit()).toMatchObject({ settled: [100], releases: 1 }); // S3: in flight, usage unknown → est
    expect(limiter.inflight.get('a')).toBe(0);
    expect(h.recorder.kind('attempt')).toEqual([expect.objectContaining({ status: 'cancelled', error: 'cancelled' })]);
    expect(h.recorder.kind('terminal_failure')).toEqual([expect.objectContaining({ status: 'cancelled' })]);
    const error = await stream.response.catch((e: unknown) => e);
    expect(error).toMatchObject({ name: 'AbortError', cause: { name: 'AbortError', message: expect.stringContaining('stopped reading') } });
    expect(await stream[Symbol.asyncIterator]().next()).toEqual({ done: true, value: undefined });
  });

  it('break after the answer completed cancels nothing: response stays resolved', async () => {
    const h = chatHarness([streams(content('a', 'b', 'c'), chatResult('abc'))]);
    const stream = h.stream();
    await stream.response;
    for await (const delta of stream) {
      expect(delta).toEqual({ content: 'a' });
      break;
    }
    await expect(stream.response).resolves.toMatchObject({ content: 'abc' });
    expect(h.recorder.kind('terminal_failure')).toEqual([]);
  });

  it('a caller abort mid-stream surfaces as AbortError with its reason and leaves no listener on the caller signal', async () => {
    const h = chatHarness([streams(content('first '), HANG)]);
    const controller = new AbortController();
    const stream = h.stream({}, { signal: controller.signal });
    const iterator = stream[Symbol.asyncIterator]();
    await iterator.next();
    const reason = new Error('user pressed stop');
    controller.abort(reason);
    await expect(iterator.next()).rejects.toMatchObject({ name: 'AbortError', cause: reason });
    expect((h.limiter as AccountingLimiter).lastPermit()).toMatchObject({ settled: [100], releases: 1 });

    const longLived = new AbortController();
    for (let i = 0; i < 3; i += 1) {
      const again = chatHarness([streams(content('x'), chatResult('x'))]);
      await collect(again.stream({}, { signal: longLived.signal }));
    }
    expect(getEventListeners(longLived.signal, 'abort')).toHaveLength(0);
  });

  it('deadline expiry mid-stream: the delivered tokens, then CallDeadlineExceeded; the attempt is cancelled and settled est', async () => {
    const h = chatHarness([streams(content('slow '), HANG)]);
    const stream = h.stream({}, { callDeadlineMs: 20 });
    const { deltas, error } = await collect(stream);
    expect(deltas).toEqual(content('slow '));
    expect(error).toBeInstanceOf(CallDeadlineExceeded);
    await expect(stream.response).rejects.toBe(error);
    expect((h.limiter as AccountingLimiter).lastPermit()).toMatchObject({ settled: [100], releases: 1 });
    expect(h.recorder.kind('attempt')).toEqual([expect.objectContaining({ status: 'cancelled' })]);
    expect(h.recorder.kind('terminal_failure')).toEqual([expect.objectContaining({ errorType: 'CallDeadlineExceeded' })]);
  });
});

describe('chat stream: cache and structured output', () => {
  it('a streamed success is stored; a hit streams it as one delta; cacheBypass skips read and write', async () => {
    const cache = new InMemoryCache();
    const h = chatHarness(
      [streams(content('cached ', 'answer'), chatResult('cached answer')), streams(content('fresh'), chatResult('fresh'))],
      { cache },
    );
    await collect(h.stream());
    const hit = h.stream();
    expect(await collect(hit)).toEqual({ deltas: content('cached answer') });
    await expect(hit.response).resolves.toMatchObject({ cached: true, costUsd: 0, callStats: { attempts: 0 } });
    expect(h.recorder.kind('cache_hit')).toHaveLength(1);

    const bypass = h.stream({}, { cacheBypass: true });
    expect(await collect(bypass)).toEqual({ deltas: content('fresh') });
    expect(h.script.calls).toHaveLength(2);
    expect((await h.stream().response).content).toBe('cached answer'); // the bypassing call wrote nothing
  });

  it('a truncated stream is never cached', async () => {
    const cache = new InMemoryCache();
    const h = chatHarness([streams(content('half'), truncated()), streams(content('whole'), chatResult('whole'))], { cache });
    expect((await collect(h.stream())).error).toBeInstanceOf(StreamInterruptedError);
    expect(await collect(h.stream())).toEqual({ deltas: content('whole') });
    expect(h.script.calls).toHaveLength(2);
  });

  it('structured output is refused at once with a TypeError: nothing is sent, no row is written', () => {
    const h = chatHarness([chatResult('{}')]);
    expect(() => h.stream({ structured: z.object({ n: z.number() }) })).toThrow(TypeError);
    expect(() => h.stream({ structured: z.object({ n: z.number() }) })).toThrow(/structured/);
    expect(h.script.calls).toHaveLength(0);
    expect(h.recorder.rows).toEqual([]);
  });
});
