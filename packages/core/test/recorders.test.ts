import { describe, expect, it } from 'vitest';
import { MemoryRecorder, NoopRecorder, TELEMETRY_COLUMNS, type TelemetryRow } from '../src/index.js';
import { resolveSummaryRange, summaryFromParts, telemetryRowValues } from '../src/internal.js';

const minimal: TelemetryRow = {
  ts: 1_700_000_000_000,
  scope: 'LLM',
  operation: 'chat',
  eventKind: 'attempt',
  callId: 'c1',
  logicalCallId: 'l1',
  status: 'ok',
};

function valueOf(values: unknown[], column: string) {
  return values[TELEMETRY_COLUMNS.findIndex(([name]) => name === column)];
}

describe('NoopRecorder', () => {
  it('ignores rows and counts nothing', async () => {
    const recorder = new NoopRecorder();
    recorder.record(minimal);
    await recorder.flush();
    await recorder.close();
    expect(recorder.stats()).toEqual({ written: 0, dropped: 0, queued: 0 });
  });
});

describe('MemoryRecorder', () => {
  it('keeps snapshots of the rows in order and counts them as written', () => {
    const recorder = new MemoryRecorder();
    const meta = { step: 1 };
    recorder.record({ ...minimal, meta });
    recorder.record({ ...minimal, callId: 'c2' });
    meta.step = 2;
    expect(recorder.rows.map((r) => r.callId)).toEqual(['c1', 'c2']);
    expect(recorder.rows[0]!.meta).toEqual({ step: 1 });
    expect(recorder.stats()).toEqual({ written: 2, dropped: 0, queued: 0 });
  });

  it('drops rows recorded after close and rows it cannot copy, without throwing', async () => {
    const recorder = new MemoryRecorder();
    recorder.record({ ...minimal, meta: { fn: () => 1 } });
    await recorder.close();
    recorder.record(minimal);
    expect(recorder.rows).toHaveLength(0);
    expect(recorder.stats()).toEqual({ written: 0, dropped: 2, queued: 0 });
  });
});

describe('telemetryRowValues', () => {
  it('returns one value per column in table order, absent values as null', () => {
    const values = telemetryRowValues(minimal);
    expect(values).toHaveLength(TELEMETRY_COLUMNS.length);
    expect(values.slice(0, 6)).toEqual([minimal.ts, 'LLM', 'chat', 'attempt', 'c1', 'l1']);
    expect(valueOf(values, 'session_id')).toBeNull();
    expect(valueOf(values, 'meta')).toBeNull();
    expect(valueOf(values, 'cost_usd')).toBeNull();
  });

  it('encodes meta as JSON, rounds integer columns, nulls non-finite numbers, keeps zeros', () => {
    const values = telemetryRowValues({
      ...minimal,
      meta: { a: { b: [1, '🚀'] } },
      promptTokens: 12.6,
      completionTokens: 0,
      costUsd: 0.000_123,
      latencyMs: Number.POSITIVE_INFINITY,
      ttftMs: Number.NaN,
    });
    expect(valueOf(values, 'meta')).toBe('{"a":{"b":[1,"🚀"]}}');
    expect(valueOf(values, 'prompt_tokens')).toBe(13);
    expect(valueOf(values, 'completion_tokens')).toBe(0);
    expect(valueOf(values, 'cost_usd')).toBe(0.000_123);
    expect(valueOf(values, 'latency_ms')).toBeNull();
    expect(valueOf(values, 'ttft_ms')).toBeNull();
  });

  it('throws a TypeError naming the field for a row no store could take', () => {
    expect(() => telemetryRowValues({ ...minimal, ts: Number.NaN })).toThrow(/field ts/);
    expect(() => telemetryRowValues({ ...minimal, callId: '' })).toThrow(/field callId/);
    expect(() => telemetryRowValues({ ...minimal, scope: undefined as unknown as string })).toThrow(/field scope is required/);
    expect(() => telemetryRowValues({ ...minimal, promptTokens: '3' as unknown as number })).toThrow(/promptTokens must be a number/);
    expect(() => telemetryRowValues({ ...minimal, meta: [] as unknown as Record<string, unknown> })).toThrow(/meta/);
    const circular: Record<string, unknown> = {};
    circular.self = circular;
    expect(() => telemetryRowValues({ ...minimal, meta: circular })).toThrow(TypeError);
  });
});

describe('resolveSummaryRange', () => {
  it('fills the bucket width and rejects bad bounds naming the key', () => {
    expect(resolveSummaryRange()).toEqual({ bucketMs: 3_600_000 });
    expect(resolveSummaryRange({ since: 5, bucketMs: 60_000 })).toEqual({ since: 5, bucketMs: 60_000 });
    expect(() => resolveSummaryRange({ until: Number.NaN })).toThrow(/summarize\(until\)/);
    expect(() => resolveSummaryRange({ bucketMs: 0 })).toThrow(/summarize\(bucketMs\)/);
  });
});

describe('summaryFromParts', () => {
  it('sums retries over operations, and derives failed attempts by type and by source from the per-(source, type) counts', () => {
    const summary = summaryFromParts({
      calls: 3,
      attempts: 9,
      cacheHits: 0,
      cancelledAttempts: 1,
      operations: [
        { key: 'chat', calls: 2, attempts: 8, retries: 5, failedCalls: 1 },
        { key: 'embed', calls: 1, attempts: 1, retries: 0, failedCalls: 0 },
      ],
      failuresByType: [{ key: 'AllSourcesExhausted', count: 1 }],
      attemptErrors: [
        { source: 'flaky', key: 'TransientError', count: 4 },
        { source: 'revoked', key: 'SourceDeadError', count: 1 },
        { source: 'slow', key: 'TransientError', count: 2 },
      ],
      latency: [],
      costBySource: [],
      costByTenant: [],
      costByScopeTenant: [
        { scope: 'LLM', key: 'acme', cost: 1 },
        { scope: 'LLM', key: '(none)', cost: 2 },
        { scope: 'EMBED', key: 'acme', cost: 3 },
      ],
      promptCacheBySource: [{ key: 'deepseek', promptTokens: 3000, cachedPromptTokens: 2000, cacheWritePromptTokens: 0, savingUsd: 0.0004 }],
      promptCacheByTenant: [],
      tenants: [{ key: 'acme', calls: 2, failedCalls: 1, cost: 0.5 }],
      tenantWaits: [
        { key: 'acme', priority: 'batch', samples: 2, p50: 10, p95: 90 },
        { key: 'gone', priority: 'batch', samples: 1, p50: 1, p95: 1 },
      ],
      callsOverTime: [],
    });
    // Waits attach to the tenant of the same key; one without calls in the range has no row to attach to.
    expect(summary.tenants).toEqual({ acme: { calls: 2, failedCalls: 1, costUsd: 0.5, waitByPriority: { batch: { samples: 2, p50: 10, p95: 90 } } } });
    expect(summary.promptCacheBySource).toEqual({ deepseek: { promptTokens: 3000, cachedPromptTokens: 2000, cacheWritePromptTokens: 0, savingUsd: 0.0004 } });
    expect(summary.promptCacheByTenant).toEqual({});
    expect(summary.costByScopeTenant).toEqual({ LLM: { acme: 1, '(none)': 2 }, EMBED: { acme: 3 } });
    expect(summary.costByScope).toEqual({ LLM: 3, EMBED: 3 });
    expect(summary).toMatchObject({
      retries: 5,
      operations: { chat: { calls: 2, attempts: 8, retries: 5, failedCalls: 1 }, embed: { calls: 1, attempts: 1, retries: 0, failedCalls: 0 } },
      cancelledAttempts: 1,
      failuresByType: { AllSourcesExhausted: 1 },
      attemptErrorsByType: { TransientError: 6, SourceDeadError: 1 },
      attemptErrorsBySource: { flaky: { TransientError: 4 }, revoked: { SourceDeadError: 1 }, slow: { TransientError: 2 } },
    });
  });
});
