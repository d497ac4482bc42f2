/**
 * The recorder contract (docs/architecture.md#telemetry) every telemetry store passes unchanged, and the report-query
 * contract (`summarize`) both stores answer identically for the same rows.
 */
import { TELEMETRY_COLUMNS } from '@pgw/core';
import type { SummaryRange, TelemetryRecorder, TelemetryRow, TelemetrySummary } from '@pgw/core';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';

export interface RecorderHarness {
  /** An open recorder on a fresh, empty store. */
  recorder: TelemetryRecorder;
  /** Every row in the store, read through a connection of its own (absent values as absent keys). */
  readRows(): Promise<TelemetryRow[]>;
  /** Opens another recorder on the same store (migrations run again). */
  reopen(): Promise<TelemetryRecorder>;
  /** Closes whatever is still open and removes the store. */
  cleanup(): Promise<void>;
}

export type RecorderHarnessFactory = () => Promise<RecorderHarness>;

const BASE_TS = 1_700_000_000_123;
let serial = 0;

function uniqueId(prefix: string): string {
  serial += 1;
  return `${prefix}-${process.pid}-${serial}-${Math.random().toString(36).slice(2, 8)}`;
}

function minimalRow(overrides: Partial<TelemetryRow> = {}): TelemetryRow {
  const logicalCallId = uniqueId('logical');
  return {
    ts: BASE_TS,
    scope: 'LLM',
    operation: 'chat',
    eventKind: 'attempt',
    callId: uniqueId('call'),
    logicalCallId,
    status: 'ok',
    ...overrides,
  };
}

/** Every column set, with the values stores get wrong: zeros, fractions, nested JSON, astral and CJK text. */
function fullRow(): TelemetryRow {
  const longText = `${'长文本 long text 🚀 '.repeat(4_000)}the end`;
  return minimalRow({
    ts: BASE_TS + 1,
    sessionId: 'session-ä',
    parentCallId: uniqueId('parent'),
    tenantId: 'tenant-东京',
    meta: {
      nested: { list: [1, 'two', null, true, { deep: 2.5 }], empty: {} },
      emoji: '👩‍👩‍👧 🚀',
      cjk: '你好，世界',
      rtl: 'مرحبا',
      quote: 'say "hi" \\ back',
      big: 9_007_199_254_740_991,
    },
    source: 'qwen_1',
    model: 'qwen2.5-72b-instruct',
    status: 'error',
    error: 'HTTP 429: {"error":{"code":"rate_limited","request_id":"req-😀"}}',
    errorType: 'TransientError',
    promptTokens: 1234,
    completionTokens: 0,
    reasoningTokens: 56,
    cachedPromptTokens: 1_024,
    cacheWritePromptTokens: 200,
    cacheSavingUsd: 0.000_002_304,
    usageSource: 'measured',
    costUsd: 0.000_123_456_789,
    latencyMs: 1234.5,
    ttftMs: 0.25,
    attempts: 3,
    totalLatencyMs: 98_765.4321,
    reasoningEffort: 'high',
    thinkingObservation: 'observed',
    requestText: longText,
    responseText: `答案：42 ✅ ${'𝔘𝔫𝔦𝔠𝔬𝔡𝔢'.repeat(500)}`,
    toolCalls: 2,
    priority: 'batch',
    waitMs: 1_500.25,
  });
}

function byCallId(rows: readonly TelemetryRow[]): TelemetryRow[] {
  return [...rows].sort((a, b) => (a.callId < b.callId ? -1 : a.callId > b.callId ? 1 : 0));
}

export function recorderContract(name: string, factory: RecorderHarnessFactory): void {
  describe(`TelemetryRecorder contract: ${name}`, () => {
    let harness: RecorderHarness;
    beforeEach(async () => {
      harness = await factory();
    });
    afterEach(async () => {
      await harness.cleanup();
    });

    it('round-trips every column of a full row, and a minimal row with absent values', async () => {
      const full = fullRow();
      const fields = TELEMETRY_COLUMNS.map(([, field]) => field);
      expect(fields.filter((field) => full[field] === undefined)).toEqual([]);
      const minimal = minimalRow({ eventKind: 'terminal_failure', status: 'cancelled', meta: {} });
      harness.recorder.record(full);
      harness.recorder.record(minimal);
      await harness.recorder.flush();
      const rows = byCallId(await harness.readRows());
      expect(rows).toEqual(byCallId([full, minimal]));
      const readMinimal = rows.find((r) => r.callId === minimal.callId)!;
      expect(Object.keys(readMinimal).sort()).toEqual(Object.keys(minimal).sort());
    });

    it('stores the text exactly as given, however long', async () => {
      const text = `${'x'.repeat(200_000)}🚀`;
      const row = minimalRow({ requestText: text, responseText: '' });
      harness.recorder.record(row);
      await harness.recorder.flush();
      const [read] = await harness.readRows();
      expect(read?.requestText).toBe(text);
      expect(read?.responseText).toBe('');
    });

    it('keeps every row of many concurrent writers', async () => {
      const tasks = 25;
      const perTask = 40;
      const expected: string[] = [];
      await Promise.all(
        Array.from({ length: tasks }, async (_, task) => {
          for (let i = 0; i < perTask; i += 1) {
            const row = minimalRow({ ts: BASE_TS + i, meta: { task, i } });
            expected.push(row.callId);
            harness.recorder.record(row);
            await new Promise((resolve) => setImmediate(resolve));
          }
        }),
      );
      await harness.recorder.close();
      const rows = await harness.readRows();
      expect(rows.map((r) => r.callId).sort()).toEqual(expected.sort());
      expect(harness.recorder.stats()).toEqual({ written: tasks * perTask, dropped: 0, queued: 0 });
    });

    it('flush() writes what was recorded and stats() counts it', async () => {
      for (let i = 0; i < 7; i += 1) harness.recorder.record(minimalRow());
      await harness.recorder.flush();
      expect(harness.recorder.stats()).toEqual({ written: 7, dropped: 0, queued: 0 });
      expect(await harness.readRows()).toHaveLength(7);
    });

    it('close() writes everything still queued', async () => {
      const count = 250;
      for (let i = 0; i < count; i += 1) harness.recorder.record(minimalRow({ ts: BASE_TS + i }));
      await harness.recorder.close();
      expect(harness.recorder.stats()).toEqual({ written: count, dropped: 0, queued: 0 });
      expect(await harness.readRows()).toHaveLength(count);
    });

    it('a second open of an existing store migrates idempotently and keeps its rows', async () => {
      const first = [minimalRow(), minimalRow(), minimalRow()];
      for (const row of first) harness.recorder.record(row);
      await harness.recorder.close();
      const again = await harness.reopen();
      const second = [minimalRow(), minimalRow()];
      for (const row of second) again.record(row);
      await again.close();
      expect(again.stats()).toEqual({ written: 2, dropped: 0, queued: 0 });
      expect(byCallId(await harness.readRows())).toEqual(byCallId([...first, ...second]));
    });
  });
}

// ── Report queries ───────────────────────────────────────────────────────────────────────────

export interface SummaryHarness {
  /** An open recorder on a fresh, empty store. */
  recorder: TelemetryRecorder;
  summarize(range?: SummaryRange): Promise<TelemetrySummary>;
  cleanup(): Promise<void>;
}

const HOUR = 3_600_000;
/** Hour-aligned, so buckets are easy to read. */
const T0 = Date.UTC(2024, 0, 1);

function attempt(logicalCallId: string, ts: number, fields: Partial<TelemetryRow>): TelemetryRow {
  return minimalRow({ ts, logicalCallId, eventKind: 'attempt', ...fields });
}

/**
 * A day in the life of a scope: two calls retried into success (after a 5xx, after a revoked key),
 * a cache hit, an exhausted call, a deadline-cancelled call (with a failed attempt that has no
 * error type), 100 calls on `gamma` with latencies 1..100, and a call before T0 that needed a retry.
 */
function summaryRows(): TelemetryRow[] {
  const rows: TelemetryRow[] = [
    attempt('A', T0, { source: 'alpha', status: 'error', errorType: 'TransientError', latencyMs: 100, costUsd: 0.01, tenantId: 't1' }),
    attempt('A', T0 + 1_000, {
      source: 'beta',
      latencyMs: 200,
      costUsd: 0.02,
      tenantId: 't1',
      promptTokens: 1_000,
      cachedPromptTokens: 800,
      cacheWritePromptTokens: 150,
      cacheSavingUsd: 0.0002,
    }),
    attempt('B', T0 + 1_500, { source: 'beta', status: 'error', errorType: 'SourceDeadError', latencyMs: 5, tenantId: 't2' }),
    attempt('B', T0 + 2_000, { source: 'alpha', latencyMs: 300, costUsd: 0.03, tenantId: 't2', promptTokens: 500 }),
    minimalRow({ logicalCallId: 'C', ts: T0 + HOUR + 10, eventKind: 'cache_hit', costUsd: 0.5, tenantId: 't2' }),
    attempt('D', T0 + HOUR + 20, { source: 'alpha', status: 'error', errorType: 'TransientError', latencyMs: 50, costUsd: 0, tenantId: 't1' }),
    attempt('D', T0 + HOUR + 30, { source: 'alpha', status: 'error', errorType: 'TransientError', latencyMs: 60, costUsd: 0, tenantId: 't1' }),
    minimalRow({ logicalCallId: 'D', ts: T0 + HOUR + 40, eventKind: 'terminal_failure', status: 'error', errorType: 'AllSourcesExhausted', costUsd: 0.07, tenantId: 't1' }),
    attempt('E', T0 + 2 * HOUR, { source: 'beta', status: 'error', error: 'no class name', latencyMs: 7, tenantId: 't2' }),
    attempt('E', T0 + 2 * HOUR + 1, { source: 'beta', status: 'cancelled', error: 'cancelled', errorType: 'CallDeadlineExceeded', latencyMs: 10, tenantId: 't2' }),
    minimalRow({ logicalCallId: 'E', ts: T0 + 2 * HOUR + 5, eventKind: 'terminal_failure', status: 'error', errorType: 'CallDeadlineExceeded', tenantId: 't2' }),
    attempt('F', T0 - 2, { source: 'alpha', status: 'error', errorType: 'SourceDeadError', latencyMs: 1 }),
    attempt('F', T0 - 1, { source: 'alpha', latencyMs: 9_999, costUsd: 1 }),
  ];
  for (let i = 1; i <= 100; i += 1) {
    // The last one, of tenant t1 in a second scope: spend per scope × tenant is not spend per tenant.
    const elsewhere = i === 100 ? { scope: 'VISION', tenantId: 't1' } : {};
    rows.push(attempt(`G${i}`, T0 + 4_000 + i, { source: 'gamma', latencyMs: 101 - i, costUsd: 0.001, ...elsewhere }));
  }
  return rows;
}

export function summaryContract(name: string, factory: () => Promise<SummaryHarness>): void {
  describe(`Telemetry summary contract: ${name}`, () => {
    let harness: SummaryHarness;
    beforeEach(async () => {
      harness = await factory();
      for (const row of summaryRows()) harness.recorder.record(row);
      await harness.recorder.flush();
    });
    afterEach(async () => {
      await harness.cleanup();
    });

    it('summarises calls, retries, failed calls and attempts, latency, cost and calls over time', async () => {
      const { costBySource, costByTenant, costByScope, costByScopeTenant, promptCacheBySource, promptCacheByTenant, tenants, ...counts } =
        await harness.summarize({ since: T0 });
      expect(Object.keys(tenants).sort()).toEqual(['(none)', 't1', 't2']);
      expect(counts).toEqual({
        calls: 105,
        attempts: 108,
        cacheHits: 1,
        retries: 4,
        failuresByType: { AllSourcesExhausted: 1, CallDeadlineExceeded: 1 },
        // Terminal rows and the cancelled attempt are not failed attempts; a missing error_type is `(none)`.
        attemptErrorsByType: { TransientError: 3, SourceDeadError: 1, '(none)': 1 },
        attemptErrorsBySource: { alpha: { TransientError: 3 }, beta: { SourceDeadError: 1, '(none)': 1 } },
        cancelledAttempts: 1,
        operations: { chat: { calls: 105, attempts: 108, retries: 4, failedCalls: 2 } },
        latency: {
          alpha: { samples: 1, p50: 300, p95: 300, p99: 300 },
          beta: { samples: 1, p50: 200, p95: 200, p99: 200 },
          gamma: { samples: 100, p50: 50, p95: 95, p99: 99 },
        },
        callsOverTime: [
          { bucket: T0, calls: 102, failures: 0 },
          { bucket: T0 + HOUR, calls: 2, failures: 1 },
          { bucket: T0 + 2 * HOUR, calls: 1, failures: 1 },
        ],
      });
      expect(Object.keys(costBySource).sort()).toEqual(['alpha', 'beta', 'gamma']);
      expect(costBySource.alpha).toBeCloseTo(0.04, 10);
      expect(costBySource.beta).toBeCloseTo(0.02, 10);
      expect(costBySource.gamma).toBeCloseTo(0.1, 10);
      expect(Object.keys(costByTenant).sort()).toEqual(['(none)', 't1', 't2']);
      expect(costByTenant.t1).toBeCloseTo(0.031, 10);
      expect(costByTenant.t2).toBeCloseTo(0.03, 10);
      expect(costByTenant['(none)']).toBeCloseTo(0.099, 10);
      expect(Object.keys(costByScope).sort()).toEqual(['LLM', 'VISION']);
      expect(costByScope.LLM).toBeCloseTo(0.159, 10);
      expect(costByScope.VISION).toBeCloseTo(0.001, 10);
      expect(Object.keys(costByScopeTenant).sort()).toEqual(['LLM', 'VISION']);
      expect(Object.keys(costByScopeTenant.LLM!).sort()).toEqual(['(none)', 't1', 't2']);
      expect(costByScopeTenant.LLM!.t1).toBeCloseTo(0.03, 10);
      expect(costByScopeTenant.LLM!.t2).toBeCloseTo(0.03, 10);
      expect(costByScopeTenant.LLM!['(none)']).toBeCloseTo(0.099, 10);
      expect(Object.keys(costByScopeTenant.VISION!)).toEqual(['t1']);
      expect(costByScopeTenant.VISION!.t1).toBeCloseTo(0.001, 10);
      // Attempts only; an attempt without cache details counts its prompt tokens as uncached.
      const none = { promptTokens: 0, cachedPromptTokens: 0, cacheWritePromptTokens: 0, savingUsd: 0 };
      const cachedUse = { promptTokens: 1_000, cachedPromptTokens: 800, cacheWritePromptTokens: 150, savingUsd: 0.0002 };
      const uncachedUse = { promptTokens: 500, cachedPromptTokens: 0, cacheWritePromptTokens: 0, savingUsd: 0 };
      expect(promptCacheBySource).toEqual({ alpha: uncachedUse, beta: cachedUse, gamma: none });
      expect(promptCacheByTenant).toEqual({ t1: cachedUse, t2: uncachedUse, '(none)': none });
    });

    it('summarises each tenant: calls, failed calls, attempts\' cost, and wait percentiles per priority class', async () => {
      const t = T0 + 20 * HOUR;
      const rows = [
        attempt('P1', t, { tenantId: 'acme', priority: 'interactive', waitMs: 10, costUsd: 0.1 }),
        attempt('P2', t + 1, { tenantId: 'acme', priority: 'interactive', waitMs: 30, costUsd: 0, status: 'error', errorType: 'TransientError' }),
        attempt('P2', t + 2, { tenantId: 'acme', priority: 'interactive', waitMs: 50, costUsd: 0.2 }),
        attempt('P3', t + 3, { tenantId: 'acme', priority: 'batch', waitMs: 400, costUsd: 0.05, status: 'error', errorType: 'TransientError' }),
        // A terminal row's cost is not an attempt's: it is not counted twice.
        minimalRow({ logicalCallId: 'P3', ts: t + 4, eventKind: 'terminal_failure', status: 'error', errorType: 'AllSourcesExhausted', tenantId: 'acme', costUsd: 0.9 }),
        // A row written before priority classes: its wait is shown under (none).
        attempt('P6', t + 5, { tenantId: 'acme', waitMs: 7 }),
        // The tenant "" and no tenant are the same one, (none); an attempt without a wait is no sample.
        attempt('P4', t + 6, { tenantId: '', priority: 'interactive' }),
        attempt('P5', t + 7, { priority: 'batch', waitMs: 5 }),
      ];
      for (const row of rows) harness.recorder.record(row);
      await harness.recorder.flush();
      const { tenants } = await harness.summarize({ since: t });
      expect(Object.keys(tenants).sort()).toEqual(['(none)', 'acme']);
      expect(tenants.acme).toMatchObject({
        calls: 4,
        failedCalls: 1,
        waitByPriority: {
          interactive: { samples: 3, p50: 30, p95: 50 },
          batch: { samples: 1, p50: 400, p95: 400 },
          '(none)': { samples: 1, p50: 7, p95: 7 },
        },
      });
      expect(tenants.acme!.costUsd).toBeCloseTo(0.35, 10);
      expect(tenants['(none)']).toEqual({ calls: 2, failedCalls: 0, costUsd: 0, waitByPriority: { batch: { samples: 1, p50: 5, p95: 5 } } });
    });

    it('honours the half-open range [since, until) and the bucket width', async () => {
      const summary = await harness.summarize({ since: T0, until: T0 + HOUR, bucketMs: 2 * HOUR });
      expect(summary).toMatchObject({
        calls: 102,
        attempts: 104,
        retries: 2,
        cacheHits: 0,
        failuresByType: {},
        attemptErrorsByType: { TransientError: 1, SourceDeadError: 1 },
        attemptErrorsBySource: { alpha: { TransientError: 1 }, beta: { SourceDeadError: 1 } },
        cancelledAttempts: 0,
      });
      expect(summary.callsOverTime).toEqual([{ bucket: T0, calls: 102, failures: 0 }]);
      const everything = await harness.summarize();
      expect(everything.calls).toBe(106);
      expect(everything.latency.alpha).toEqual({ samples: 2, p50: 300, p95: 9_999, p99: 9_999 });
      expect(everything.attemptErrorsBySource.alpha).toEqual({ TransientError: 3, SourceDeadError: 1 });
      expect(everything.attemptErrorsByType.SourceDeadError).toBe(2);
    });

    it('counts as retries only re-attempts of a call, never an embedding call\'s further batches, and shows operations apart', async () => {
      const t = T0 + 10 * HOUR;
      const rows = [
        // An embedding call of three batches whose second batch needed a second attempt.
        attempt('H', t, { operation: 'embed', source: 'alpha' }),
        attempt('H', t + 1, { operation: 'embed', source: 'alpha', status: 'error', errorType: 'TransientError' }),
        attempt('H', t + 2, { operation: 'embed', source: 'alpha' }),
        attempt('H', t + 3, { operation: 'embed', source: 'alpha' }),
        // An embedding call whose last batch failed for good: two attempts of that batch, one retry.
        attempt('I', t + 4, { operation: 'embed', source: 'alpha' }),
        attempt('I', t + 5, { operation: 'embed', source: 'alpha', status: 'error', errorType: 'TransientError' }),
        attempt('I', t + 6, { operation: 'embed', source: 'alpha', status: 'error', errorType: 'TransientError' }),
        minimalRow({ logicalCallId: 'I', ts: t + 7, operation: 'embed', eventKind: 'terminal_failure', status: 'error', errorType: 'AllSourcesExhausted' }),
        // A chat call that failed over once.
        attempt('J', t + 8, { source: 'beta', status: 'error', errorType: 'SourceDeadError' }),
        attempt('J', t + 9, { source: 'alpha' }),
        // A call refused before any attempt.
        minimalRow({ logicalCallId: 'K', ts: t + 10, eventKind: 'terminal_failure', status: 'error', errorType: 'CircuitOpenError' }),
      ];
      for (const row of rows) harness.recorder.record(row);
      await harness.recorder.flush();
      const summary = await harness.summarize({ since: t });
      expect(summary).toMatchObject({ calls: 4, attempts: 9, retries: 3 });
      expect(summary.operations).toEqual({
        chat: { calls: 2, attempts: 2, retries: 1, failedCalls: 1 },
        embed: { calls: 2, attempts: 7, retries: 2, failedCalls: 1 },
      });
    });

    it('answers an empty range with zeros', async () => {
      const summary = await harness.summarize({ since: T0 + 10 * HOUR });
      expect(summary).toEqual({
        calls: 0,
        attempts: 0,
        cacheHits: 0,
        retries: 0,
        failuresByType: {},
        attemptErrorsByType: {},
        attemptErrorsBySource: {},
        cancelledAttempts: 0,
        operations: {},
        latency: {},
        costBySource: {},
        costByTenant: {},
        costByScope: {},
        costByScopeTenant: {},
        promptCacheBySource: {},
        promptCacheByTenant: {},
        tenants: {},
        callsOverTime: [],
      });
    });
  });
}
