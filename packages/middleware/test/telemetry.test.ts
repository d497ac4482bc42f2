import { GatewayUnavailableError, NoopRecorder, TransientError, type ChatMessage, type TelemetryRecorder } from '@pgw/core';
import { describe, expect, it } from 'vitest';
import { callEventsMiddleware, compose, createCallContext, EventHub, TelemetryEmitter, WarnOnce } from './helpers/internals.js';
import { ArrayRecorder, chatResult, HANG, ManualClock, source, usage } from './helpers/fakes.js';
import { chatHarness } from './helpers/harness.js';

describe('telemetry emitter', () => {
  it('writes one attempt row per attempt with the call dimensions, cost and latency', async () => {
    const h = chatHarness(
      [
        new TransientError({ message: `upstream said ${'x'.repeat(5000)}`, statusCode: 503 }),
        () => {
          h.clock.advance(250);
          return chatResult('the answer', { model: 'gpt-4o', usage: usage(1000, 500), ttftMs: 40, thinkingObservation: 'absent' });
        },
      ],
      { pricing: { 'gpt-4o': { inputPerMTok: 2, outputPerMTok: 8 } } },
    );
    const response = await h.run({}, { sessionId: 'sess', parentCallId: 'parent', tenantId: 'acme', meta: { job: 7 }, reasoningEffort: 'low' });
    const [failed, ok] = h.recorder.kind('attempt');
    expect(h.recorder.rows).toHaveLength(2);
    expect(failed).toMatchObject({
      scope: 'LLM',
      operation: 'chat',
      source: 'a',
      status: 'error',
      errorType: 'TransientError',
      attempts: 1,
      logicalCallId: response.callStats.logicalCallId,
      tenantId: 'acme',
    });
    expect(failed!.error!.length).toBeLessThanOrEqual(2048); // folded, head and tail kept
    expect(ok).toMatchObject({
      source: 'b',
      model: 'gpt-4o',
      status: 'ok',
      promptTokens: 1000,
      completionTokens: 500,
      usageSource: 'measured',
      costUsd: (1000 * 2 + 500 * 8) / 1_000_000,
      latencyMs: 250,
      ttftMs: 40,
      attempts: 2,
      sessionId: 'sess',
      parentCallId: 'parent',
      meta: { job: 7 },
      reasoningEffort: 'low',
      thinkingObservation: 'absent',
      responseText: 'the answer',
    });
    expect(ok!.callId).not.toBe(failed!.callId);
    expect(response.costUsd).toBe(ok!.costUsd);
    // effort 'low' but reasoning absent: one thinking-contradiction warning
    expect(h.warnings.filter((w) => w.startsWith('thinking_contradiction'))).toHaveLength(1);
  });

  it('caps request and response text', async () => {
    const h = chatHarness([chatResult('r'.repeat(100))], { settings: { telemetryTextCap: 10 } });
    await h.run({ messages: [{ role: 'user', content: 'q'.repeat(100) }] });
    const [row] = h.recorder.kind('attempt');
    expect(row!.requestText).toBe('user: qqqq');
    expect(row!.responseText).toBe('r'.repeat(10));
  });

  it('records a cancelled attempt and exactly one cancelled terminal row', async () => {
    const h = chatHarness([HANG]);
    const controller = new AbortController();
    const call = h.run({}, { signal: controller.signal });
    await h.script.nextEntry();
    controller.abort();
    await expect(call).rejects.toMatchObject({ name: 'AbortError' });
    expect(h.recorder.kind('attempt')).toEqual([expect.objectContaining({ status: 'cancelled', error: 'cancelled', errorType: 'AbortError' })]);
    expect(h.recorder.kind('terminal_failure')).toEqual([
      expect.objectContaining({ status: 'cancelled', error: 'cancelled', attempts: 1, source: 'a' }),
    ]);
  });

  it('a failed call gets exactly one terminal row, even through nested call-events layers; a success gets none', async () => {
    const clock = new ManualClock();
    const recorder = new ArrayRecorder();
    const emitter = new TelemetryEmitter({ recorder, textCap: 100, now: clock.now, warnings: new WarnOnce(() => undefined) });
    const events = new EventHub([emitter], new WarnOnce(() => undefined));
    const failure = new GatewayUnavailableError({ scope: 'LLM', reason: 'stalled' });
    const layer = () => callEventsMiddleware({ events, now: clock.now, models: [], summarize: () => ({ cached: false }) });
    const onion = compose([layer(), layer()], async () => {
      clock.advance(30);
      throw failure;
    });
    const ctx = createCallContext({ scope: 'LLM', operation: 'chat', now: clock.now, tenantId: 't1' });
    await expect(onion({ request: {}, ctx })).rejects.toBe(failure);
    expect(recorder.rows).toEqual([
      expect.objectContaining({
        eventKind: 'terminal_failure',
        status: 'error',
        errorType: 'GatewayUnavailableError',
        logicalCallId: ctx.logicalCallId,
        totalLatencyMs: 30,
        tenantId: 't1',
      }),
    ]);

    const h = chatHarness([chatResult()]);
    await h.run();
    expect(h.recorder.kind('terminal_failure')).toHaveLength(0);
  });

  it('without listeners the call-events layer still stamps the final stats and passes an error through unchanged', async () => {
    const clock = new ManualClock();
    const events = new EventHub([], new WarnOnce(() => undefined));
    const layer = callEventsMiddleware<object, { stats?: unknown }>({
      events,
      now: clock.now,
      models: [],
      summarize: () => ({ cached: false }),
      finalize: (response, stats) => ({ ...response, stats }),
    });
    const ctx = createCallContext({ scope: 'LLM', operation: 'chat', now: clock.now });
    const answered = compose([layer], async () => {
      clock.advance(12);
      return {};
    });
    await expect(answered({ request: {}, ctx })).resolves.toEqual({ stats: expect.objectContaining({ totalLatencyMs: 12, attempts: 0 }) });
    const failure = new GatewayUnavailableError({ scope: 'LLM', reason: 'stalled' });
    const failing = compose([layer], async () => {
      throw failure;
    });
    await expect(failing({ request: {}, ctx })).rejects.toBe(failure);
  });

  it('a recorder that throws degrades to one warning and a dropped counter, never a failed call', async () => {
    const throwing: TelemetryRecorder = {
      record: () => {
        throw new Error('disk full');
      },
      flush: async () => undefined,
      stats: () => ({ written: 0, dropped: 0, queued: 0 }),
      close: async () => undefined,
    };
    const h = chatHarness([new TransientError({ message: '503' }), chatResult(), chatResult()], { recorder: throwing });
    await expect(h.run()).resolves.toMatchObject({ content: 'ok' });
    await expect(h.run()).resolves.toMatchObject({ content: 'ok' });
    expect(h.pipeline.droppedTelemetryRows).toBe(3);
    expect(h.warnings.filter((w) => w.includes('telemetry recorder failed'))).toHaveLength(1);
  });

  it('stamps the final call stats on the response', async () => {
    const h = chatHarness([chatResult()], { sources: [source('solo')] });
    const response = await h.run({}, { logicalCallId: 'fixed-id' });
    expect(response.callStats).toEqual({ logicalCallId: 'fixed-id', attempts: 1, totalLatencyMs: 0, sourcesTried: ['solo'] });
  });
  it('without a recorder that stores (none, or the NoopRecorder) builds no row, while call stats stay exact', async () => {
    for (const recorder of [undefined, new NoopRecorder()]) {
      expect(new TelemetryEmitter({ recorder, textCap: 100, now: () => 0, warnings: new WarnOnce(() => {}) }).recording).toBe(false);
    }
    let textReads = 0;
    // The attempt row's request text is the only reader of the message content here.
    const messages: ChatMessage[] = [
      {
        role: 'user',
        get content() {
          textReads += 1;
          return 'hi';
        },
      },
    ];
    const silent = chatHarness([new TransientError({ message: '503' }), chatResult()], { recorder: new NoopRecorder() });
    const response = await silent.run({ messages });
    expect(response.callStats).toMatchObject({ attempts: 2, sourcesTried: ['a', 'b'] });
    expect(textReads).toBe(0);
    const recorded = chatHarness([new TransientError({ message: '503' }), chatResult()]);
    await recorded.run({ messages });
    expect(textReads).toBeGreaterThan(0);
    expect(recorded.recorder.kind('attempt')).toHaveLength(2);
  });
});
