import { CallDeadlineExceeded, governorOf, ResultInvalidError, TransientError, type EmbedRequest } from '@pgw/core';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { assembleChatPipeline, compose, createCallContext, type Middleware } from './helpers/internals.js';
import { AccountingLimiter, chatResult, embedResult, HANG, Script, ScriptedBreaker, ScriptedModel, source, usage } from './helpers/fakes.js';
import { chatHarness, embedHarness, ocrHarness, testSettings } from './helpers/harness.js';

describe('compose', () => {
  it('runs middlewares outer to inner and shares the call context', async () => {
    const trail: string[] = [];
    const layer = (name: string): Middleware<string, string> => async (call, next) => {
      trail.push(`${name}>`);
      const result = await next({ ...call, request: `${call.request}${name}` });
      trail.push(`<${name}`);
      return result;
    };
    const ctx = createCallContext({ scope: 'S', operation: 'chat', now: () => 0 });
    const onion = compose([layer('a'), layer('b')], async (call) => {
      expect(call.ctx).toBe(ctx);
      return call.request;
    });
    expect(await onion({ request: '', ctx })).toBe('ab');
    expect(trail).toEqual(['a>', 'b>', '<b', '<a']);
  });
});

describe('embedding pipeline', () => {
  it('runs batches in order inside one logical call and merges them', async () => {
    const h = embedHarness([embedResult(2, 3, { usage: usage(8, 0) }), embedResult(1, 3, { usage: usage(4, 0) })], { batchSize: 2 });
    const response = await h.pipeline.run(['a', 'b', 'c']);
    expect(h.script.calls.map((c) => (c.request as EmbedRequest).texts)).toEqual([['a', 'b'], ['c']]);
    expect(response.vectors).toHaveLength(3);
    expect(response.sources).toEqual(['a', 'a']);
    expect(response.usage).toEqual({ promptTokens: 12, completionTokens: 0, usageSource: 'measured' });
    expect(response.callStats.attempts).toBe(2);
    expect(new Set(h.recorder.kind('attempt').map((r) => r.logicalCallId)).size).toBe(1);
  });

  it('normalizes vectors to unit length when asked', async () => {
    const h = embedHarness([{ vectors: [[3, 4]], model: 'e', usage: usage(1, 0) }], { normalize: true });
    const response = await h.pipeline.run(['x']);
    expect(response.vectors[0]![0]).toBeCloseTo(0.6);
    expect(response.vectors[0]![1]).toBeCloseTo(0.8);
  });

  it('a wrong dimension is ResultInvalidError, recorded as invalid to the breaker', async () => {
    const h = embedHarness([embedResult(1, 5)], { expectedDim: 3 });
    await expect(h.pipeline.run(['x'])).rejects.toBeInstanceOf(ResultInvalidError);
    expect(h.recorder.kind('terminal_failure')).toHaveLength(1);
  });

  it('no texts: no attempt, no row', async () => {
    const h = embedHarness([]);
    const response = await h.pipeline.run([]);
    expect(response).toMatchObject({ vectors: [], callStats: { attempts: 0 } });
    expect(h.recorder.rows).toHaveLength(0);
  });
});

describe('OCR pipeline', () => {
  it('recognizes text and parses layout with their call stats, settling every permit with 0', async () => {
    const h = ocrHarness([{ text: 'hello' }, new TransientError({ message: '502', statusCode: 502 }), { markdown: '# t', elements: [] }]);
    const text = await h.pipeline.recognizeText(new Uint8Array([1]));
    expect(text).toEqual({ text: 'hello', source: 'a', callStats: expect.objectContaining({ attempts: 1, sourcesTried: ['a'] }) });
    const layout = await h.pipeline.parseLayout(new Uint8Array([1]));
    expect(layout).toMatchObject({ markdown: '# t', source: 'b', callStats: { attempts: 2, sourcesTried: ['a', 'b'] } });
    const attemptRows = h.recorder.kind('attempt');
    expect(text.callStats.logicalCallId).toBe(attemptRows[0]!.logicalCallId);
    expect(layout.callStats.logicalCallId).toBe(attemptRows[2]!.logicalCallId);
    const limiter = h.limiter as AccountingLimiter;
    expect(limiter.permits.map((p) => p.settled)).toEqual([[0], [0], [0]]);
    expect(h.recorder.kind('attempt').map((r) => r.operation)).toEqual(['ocr_text', 'ocr_layout', 'ocr_layout']);
  });
});

describe('call deadline boundary', () => {
  it('expiry aborts the attempt; the terminal row, written outside the deadline, says CallDeadlineExceeded', async () => {
    const h = chatHarness([HANG]);
    await expect(h.run({}, { callDeadlineMs: 20 })).rejects.toBeInstanceOf(CallDeadlineExceeded);
    expect(h.recorder.kind('attempt')).toEqual([expect.objectContaining({ status: 'cancelled', error: 'cancelled' })]);
    expect(h.recorder.kind('terminal_failure')).toEqual([
      expect.objectContaining({ status: 'error', errorType: 'CallDeadlineExceeded' }),
    ]);
    expect((h.limiter as AccountingLimiter).lastPermit()).toMatchObject({ settled: [100], releases: 1 });
  });

  it('a caller abort wins and is reported as a cancellation', async () => {
    const h = chatHarness([HANG]);
    const controller = new AbortController();
    const call = h.run({}, { callDeadlineMs: 60_000, signal: controller.signal });
    await h.script.nextEntry();
    controller.abort();
    await expect(call).rejects.toMatchObject({ name: 'AbortError' });
    expect(h.recorder.kind('terminal_failure')).toEqual([expect.objectContaining({ status: 'cancelled' })]);
  });

  it('structured re-asks share the one deadline', async () => {
    const h = chatHarness([chatResult('nope'), chatResult('still nope'), HANG]);
    const call = h.run({ structured: z.object({ a: z.number() }) }, { callDeadlineMs: 30 });
    await expect(call).rejects.toBeInstanceOf(CallDeadlineExceeded);
    expect(h.script.calls).toHaveLength(3); // expiry landed in the third round, not a fresh deadline per round
  });
});

describe('assembly', () => {
  it('rejects settings the loop cannot run with, naming the field', () => {
    const base = { governor: governorOf(new AccountingLimiter(), new ScriptedBreaker()), now: () => 0, sleep: async () => undefined, rng: Math.random, warn: () => undefined };
    expect(() => assembleChatPipeline({ ...base, settings: testSettings({ sources: [] }) })).toThrow(/settings\.sources/);
    expect(() => assembleChatPipeline({ ...base, settings: testSettings({ sources: [source('a'), source('a')] }) })).toThrow(/duplicate source name 'a'/);
    expect(() =>
      assembleChatPipeline({ ...base, settings: testSettings({ retry: { maxAttempts: 0, backoffBaseMs: 1, backoffMaxMs: 1 } }) }),
    ).toThrow(/retry\.maxAttempts/);
    const noGenerate = { ...new ScriptedModel(new Script([])), specificationVersion: 'pgw-model-v1' as const, generate: undefined };
    expect(() =>
      assembleChatPipeline({ ...base, settings: testSettings({ sources: [source('a', { model: noGenerate as unknown as ScriptedModel })] }) }),
    ).toThrow("settings.sources[0].model (source 'a') (scripted model-x) lacks generate");
    expect(() =>
      assembleChatPipeline({ ...base, settings: testSettings({ sources: [source('a', { model: 'gpt-4o' as unknown as ScriptedModel })] }) }),
    ).toThrow(/settings\.sources\[0\]\.model \(source 'a'\) must be a model of specification 'pgw-model-v1'/);
  });
});
