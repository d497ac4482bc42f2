import { describe, expect, it } from 'vitest';
import { TransientError } from '@pgw/core';
import { probeHandles, startMockUpstream } from '@pgw/mock-upstream';
import { monkeyOcr } from '../src/index.js';
import { PNG, attemptContext, harness, ocrSource, rejectionOf } from './support.js';

describe('timeouts, aborts and cleanup', () => {
  it('a hanging route is a TransientError(timeout), the socket is closed, nothing is left open', async () => {
    const probe = probeHandles();
    const mock = await startMockUpstream({ script: { sources: { stuck: { otherwise: { kind: 'hang' } } } } });
    const transport = harness();
    try {
      const error = (await rejectionOf(
        transport.recognizeText(ocrSource(mock, 'stuck', { timeoutMs: 150 }), PNG, {}, attemptContext()),
      )) as TransientError;
      expect(error).toBeInstanceOf(TransientError);
      expect(error.transientKind).toBe('timeout');
      expect(error.sourceName).toBe('stuck');
      await expect.poll(() => mock.counters('stuck').inflight).toBe(0);
    } finally {
      await transport.close();
      await mock.close();
    }
    expect(await probe.leftovers()).toEqual([]);
  });

  it('a body that stalls half-way is a timeout too (the timer covers the whole body)', async () => {
    const mock = await startMockUpstream({ script: { sources: { slow: { otherwise: { kind: 'stall' } } } } });
    const transport = harness();
    try {
      const error = (await rejectionOf(
        transport.parseLayout(ocrSource(mock, 'slow', { timeoutMs: 150 }), PNG, {}, attemptContext()),
      )) as TransientError;
      expect(error).toBeInstanceOf(TransientError);
      expect(error.transientKind).toBe('timeout');
    } finally {
      await transport.close();
      await mock.close();
    }
  });

  it("the caller's abort mid-request rejects with that abort (not a TransientError) and closes the socket", async () => {
    const probe = probeHandles();
    const mock = await startMockUpstream({ script: { sources: { stuck: { otherwise: { kind: 'hang' } } } } });
    const transport = harness();
    try {
      const controller = new AbortController();
      const pending = rejectionOf(transport.parseLayout(ocrSource(mock, 'stuck'), PNG, {}, attemptContext(controller.signal)));
      await expect.poll(() => mock.counters('stuck').inflight).toBe(1);
      const reason = new Error('caller gave up');
      controller.abort(reason);
      const error = await pending;
      expect(error).not.toBeInstanceOf(TransientError);
      expect(error.name).toBe('AbortError');
      expect(error.cause).toBe(reason);
      await expect.poll(() => mock.counters('stuck').inflight).toBe(0);
    } finally {
      await transport.close();
      await mock.close();
    }
    expect(await probe.leftovers()).toEqual([]);
  });

  it('an already-aborted signal sends nothing', async () => {
    const mock = await startMockUpstream({ script: { sources: { ocr: {} } } });
    const transport = harness();
    try {
      const controller = new AbortController();
      controller.abort(new Error('too late'));
      const error = await rejectionOf(transport.recognizeText(ocrSource(mock, 'ocr'), PNG, {}, attemptContext(controller.signal)));
      expect(error.name).toBe('AbortError');
      expect(error.cause).toBe(controller.signal.reason);
      expect(mock.counters('ocr').total).toBe(0);
    } finally {
      await transport.close();
      await mock.close();
    }
  });

  it('bounds connections per origin and reuses them', async () => {
    const mock = await startMockUpstream({ script: { sources: { ocr: { latencyMs: 50 } } } });
    const transport = harness({}, { connections: 2 });
    try {
      let peak = 0;
      const sampler = setInterval(() => (peak = Math.max(peak, mock.counters('ocr').inflight)), 5);
      const calls = Array.from({ length: 6 }, () => transport.recognizeText(ocrSource(mock, 'ocr'), PNG, {}, attemptContext()));
      try {
        await expect.poll(() => mock.counters('ocr').inflight).toBe(2);
        await Promise.all(calls);
      } finally {
        clearInterval(sampler);
      }
      expect(peak).toBe(2);
      expect(mock.counters('ocr').ocrText).toBe(6);
      expect(new Set(mock.requests('ocr').map((r) => r.clientPort)).size).toBe(2);
    } finally {
      await transport.close();
      await mock.close();
    }
  });

  it('close() closes the idle keep-alive sockets and clears every timer', async () => {
    const mock = await startMockUpstream({ script: { sources: { ocr: {} } } });
    try {
      const probe = probeHandles();
      const transport = harness({}, { keepAliveTimeoutMs: 60_000 });
      await transport.recognizeText(ocrSource(mock, 'ocr'), PNG, {}, attemptContext());
      await transport.parseLayout(ocrSource(mock, 'ocr'), PNG, {}, attemptContext());
      await transport.close();
      // The mock's server was started before the probe: only the transport's sockets and timers are watched.
      expect(await probe.leftovers()).toEqual([]);
    } finally {
      await mock.close();
    }
  });

  it('a model that made its own Agent closes it; close() is idempotent and final', async () => {
    const mock = await startMockUpstream({ script: { sources: { ocr: {} } } });
    try {
      const probe = probeHandles();
      const model = monkeyOcr(ocrSource(mock, 'ocr').options);
      const attempt = { ...attemptContext(), sourceName: 'ocr' };
      expect(await model.recognizeText(PNG, {}, attempt)).toEqual({ text: expect.any(String) });
      expect(await model.checkHealth({ timeoutMs: 5000 })).toBe(true);
      await model.close();
      await model.close();
      expect(await probe.leftovers()).toEqual([]);
      const error = await rejectionOf(model.recognizeText(PNG, {}, attempt));
      expect(error.message).toContain('closed');
    } finally {
      await mock.close();
    }
  });
});
