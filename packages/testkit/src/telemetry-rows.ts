/** Telemetry rows for the stores' own tests and benchmarks. */
import type { TelemetryRow } from '@pgw/core';

let serial = 0;

/** A minimal valid row; every call gets the next `ts`, `callId` and `logicalCallId`. */
export function telemetryRow(overrides: Partial<TelemetryRow> = {}): TelemetryRow {
  serial += 1;
  return {
    ts: 1_700_000_000_000 + serial,
    scope: 'LLM',
    operation: 'chat',
    eventKind: 'attempt',
    callId: `call-${serial}`,
    logicalCallId: `logical-${serial}`,
    status: 'ok',
    ...overrides,
  };
}

/** A realistic attempt row of about 1.3 KB (two 500-character texts), the `i`-th of a benchmark run. */
export function sampleTelemetryRow(i: number): TelemetryRow {
  return {
    ts: Date.now(),
    scope: 'LLM',
    operation: 'chat',
    eventKind: 'attempt',
    callId: `call-${i}`,
    logicalCallId: `logical-${i >> 1}`,
    tenantId: `tenant-${i % 7}`,
    meta: { job: 'bench', index: i },
    source: `source-${i % 3}`,
    model: 'qwen2.5-72b-instruct',
    status: 'ok',
    promptTokens: 812,
    completionTokens: 230,
    usageSource: 'measured',
    costUsd: 0.000_42,
    latencyMs: 850 + (i % 400),
    attempts: 1,
    requestText: 'q'.repeat(500),
    responseText: 'a'.repeat(500),
  };
}
