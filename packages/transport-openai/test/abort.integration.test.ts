import { getEventListeners } from 'node:events';
import { TransientError } from '@pgw/core';
import { NEVER_ABORTED } from '@pgw/core/internal';
import { probeHandles, startMockUpstream } from '@pgw/mock-upstream';
import { describe, expect, it } from 'vitest';
import { attemptContext, harness, scriptedSource, thrown } from './helpers.js';

const messages = [{ role: 'user' as const, content: 'hi' }];

function expectCallerAbort(error: unknown, reason: unknown): void {
  expect(error).toBeInstanceOf(Error);
  expect(error).not.toBeInstanceOf(TransientError);
  expect(error).toMatchObject({ name: 'AbortError', code: 'ABORT_ERR' });
  expect((error as Error).cause).toBe(reason);
}

describe('cancellation', () => {
  it('aborts mid-request and mid-stream with the caller’s reason, frees every exchange, and leaves no handle open', async () => {
    const probe = probeHandles();
    const mock = await startMockUpstream({ script: { sources: {} } });
    const transport = harness();

    // Mid-request: the upstream never answers.
    const hanging = scriptedSource(mock, { otherwise: { kind: 'hang' } });
    const requestAbort = new AbortController();
    const pendingRequest = thrown(() => transport.chat(hanging, { messages, sampling: {} }, attemptContext(requestAbort.signal)));
    await expect.poll(() => mock.counters(hanging.name).inflight).toBe(1);
    const requestReason = new Error('caller gave up');
    requestAbort.abort(requestReason);
    expectCallerAbort(await pendingRequest, requestReason);
    await expect.poll(() => mock.counters(hanging.name).inflight).toBe(0);

    // Mid-stream: two tokens arrive, then silence; the deadline's own reason object comes back as the cause.
    const stalling = scriptedSource(mock, { content: 'one two three four', steps: [{ kind: 'stall', afterTokens: 2 }] });
    const streamAbort = new AbortController();
    const ctx = attemptContext(streamAbort.signal);
    const deadlineReason = { deadline: 'expired' };
    ctx.onDelta = (delta) => {
      ctx.deltas.push(delta);
      if (ctx.deltas.length === 2) streamAbort.abort(deadlineReason);
    };
    expectCallerAbort(await thrown(() => transport.chat(stalling, { messages, sampling: {}, stream: true }, ctx)), deadlineReason);
    await expect.poll(() => mock.counters(stalling.name).inflight).toBe(0);

    // Mid-embedding.
    const slowEmbed = scriptedSource(mock, { otherwise: { kind: 'latency', ms: 60_000 } });
    const embedAbort = new AbortController();
    const pendingEmbed = thrown(() => transport.embed(slowEmbed, { texts: ['a'] }, attemptContext(embedAbort.signal)));
    await expect.poll(() => mock.counters(slowEmbed.name).inflight).toBe(1);
    embedAbort.abort('stop');
    expectCallerAbort(await pendingEmbed, 'stop');
    await expect.poll(() => mock.counters(slowEmbed.name).inflight).toBe(0);

    // The transport still works after aborts.
    const fine = scriptedSource(mock, {});
    expect((await transport.chat(fine, { messages, sampling: {}, stream: true }, attemptContext())).content).toBe(`hello from ${fine.name}`);

    await transport.close();
    await mock.close();
    expect(await probe.leftovers()).toEqual([]);
  });

  it('an already-aborted signal fails at once without sending anything', async () => {
    const mock = await startMockUpstream({ script: { sources: {} } });
    const transport = harness();
    try {
      const source = scriptedSource(mock, {});
      const reason = new Error('too late');
      const error = await thrown(() => transport.chat(source, { messages, sampling: {} }, attemptContext(AbortSignal.abort(reason))));
      expectCallerAbort(error, reason);
      expect(mock.counters(source.name).total).toBe(0);
    } finally {
      await transport.close();
      await mock.close();
    }
  });
  it('listens to the caller’s signal once per attempt while it runs, and never to one that cannot abort', async () => {
    const mock = await startMockUpstream({ script: { sources: {} } });
    const transport = harness();
    const listeners = (signal: AbortSignal): number => getEventListeners(signal, 'abort').length;
    try {
      // The upstream never answers: the caller's attempts end by abort, the others by their timeout.
      const hanging = scriptedSource(mock, { otherwise: { kind: 'hang' } }, { timeoutMs: 1_500 });
      const shared = new AbortController();
      const calls = [1, 2, 3].map(() => thrown(() => transport.chat(hanging, { messages, sampling: {} }, attemptContext(shared.signal))));
      const never = Array.from({ length: 20 }, () =>
        thrown(() => transport.chat(hanging, { messages, sampling: {} }, attemptContext(NEVER_ABORTED))),
      );
      await expect.poll(() => mock.counters(hanging.name).inflight).toBe(23);
      expect(listeners(shared.signal)).toBe(3);
      expect(listeners(NEVER_ABORTED)).toBe(0);
      shared.abort('stop');
      for (const error of await Promise.all(calls)) expectCallerAbort(error, 'stop');
      expect(listeners(shared.signal)).toBe(0);
      for (const error of await Promise.all(never)) expect(error).toMatchObject({ transientKind: 'timeout' });
    } finally {
      await transport.close();
      await mock.close();
    }
  });
});
