import { MemoryRecorder } from '@pgw/core';
import { assertBreakerPolicy, telemetryRowValues } from '@pgw/core/internal';
import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  TEST_BREAKER_POLICY,
  UNLIMITED,
  deferred,
  measureRecorderThroughput,
  sampleTelemetryRow,
  telemetryRow,
} from '../src/index.js';

afterEach(() => {
  vi.restoreAllMocks();
});

describe('shared fixtures', () => {
  it('TEST_BREAKER_POLICY is a policy the adapters accept, and cannot be changed in place', () => {
    expect(assertBreakerPolicy(TEST_BREAKER_POLICY)).toEqual(TEST_BREAKER_POLICY);
    expect(Object.isFrozen(TEST_BREAKER_POLICY)).toBe(true);
    expect(Object.isFrozen(UNLIMITED)).toBe(true);
  });

  it('telemetryRow gives each call fresh ids and a later ts; both row factories encode', () => {
    const first = telemetryRow();
    const second = telemetryRow({ status: 'error' });
    expect(second.callId).not.toBe(first.callId);
    expect(second.logicalCallId).not.toBe(first.logicalCallId);
    expect(second.ts).toBeGreaterThan(first.ts);
    expect(second.status).toBe('error');
    expect(() => telemetryRowValues(first)).not.toThrow();
    expect(() => telemetryRowValues(sampleTelemetryRow(7))).not.toThrow();
  });

  it('deferred settles when told to', async () => {
    const pending = deferred<number>();
    pending.resolve(3);
    await expect(pending.promise).resolves.toBe(3);
  });
});

describe('measureRecorderThroughput', () => {
  it('records every row of each run, closes the recorder and prints one line per run', async () => {
    const lines: string[] = [];
    vi.spyOn(console, 'log').mockImplementation((line: string) => void lines.push(line));
    const recorders: MemoryRecorder[] = [];
    await measureRecorderThroughput(
      async () => {
        const recorder = new MemoryRecorder();
        recorders.push(recorder);
        return recorder;
      },
      [
        { batchSize: 1, rows: 3 },
        { batchSize: 100, rows: 5 },
      ],
    );
    expect(recorders.map((r) => r.rows.length)).toEqual([3, 5]);
    expect(recorders[1]!.rows.map((r) => r.callId)).toEqual(['call-0', 'call-1', 'call-2', 'call-3', 'call-4']);
    recorders[0]!.record(telemetryRow());
    expect(recorders[0]!.stats().dropped).toBe(1);
    expect(lines).toHaveLength(2);
    expect(lines[1]).toMatch(/^batchSize= 100 {2}rows=5 {2}written=5 {2}dropped=0 /);
  });
});
