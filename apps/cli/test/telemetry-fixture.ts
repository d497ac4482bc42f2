/** A real SQLite telemetry file filled through `@pgw/telemetry-sqlite`'s recorder, for the report tests. */
import { join } from 'node:path';
import type { TelemetryRow } from '@pgw/core';
import { SqliteRecorder } from '@pgw/telemetry-sqlite';
import { tempDir } from './run-cli.js';

/** 08:00Z on a fixed day, so the buckets are predictable. */
export const FIXTURE_START = Date.UTC(2026, 0, 15, 8, 0, 0);

/** Text that must come out escaped (HTML) or defused (terminal). */
export const HOSTILE_TENANT = '<script>alert("x")</script>&\u001b[31m';

/**
 * 24 logical calls over two hours: sources `alpha` and `beta`, two tenants (one hostile), every
 * fourth call retried once after a failed attempt on `beta` (a TransientError; a SourceDeadError
 * for call 20), call 5 failing for good after a TransientError on `alpha`, call 17 after its only
 * attempt was cancelled by the deadline.
 */
export function telemetryRows(): TelemetryRow[] {
  const rows: TelemetryRow[] = [];
  for (let i = 0; i < 24; i += 1) {
    const ts = FIXTURE_START + i * 5 * 60_000;
    const logicalCallId = `call-${i}`;
    const tenantId = i % 3 === 0 ? HOSTILE_TENANT : 'acme';
    const base = { scope: 'LLM', operation: 'chat' as const, logicalCallId, tenantId, model: 'gpt-4o-mini' };
    const failedAttempt = (callId: string, latencyMs: number, fields: Partial<TelemetryRow> = {}): TelemetryRow => ({
      ...base,
      ts,
      eventKind: 'attempt',
      callId,
      source: 'beta',
      status: 'error',
      errorType: 'TransientError',
      latencyMs,
      ...fields,
    });
    if (i === 5 || i === 17) {
      const last =
        i === 5 ? { source: 'alpha' } : { status: 'cancelled' as const, error: 'cancelled', errorType: 'CallDeadlineExceeded' };
      rows.push(failedAttempt(`${logicalCallId}-a`, 900, last), {
        ...base,
        ts: ts + 1000,
        eventKind: 'terminal_failure',
        callId: `${logicalCallId}-t`,
        status: 'error',
        errorType: i === 5 ? 'AllSourcesExhausted' : 'CallDeadlineExceeded',
        attempts: 1,
      });
      continue;
    }
    if (i % 4 === 0) rows.push(failedAttempt(`${logicalCallId}-r`, 500, i === 20 ? { errorType: 'SourceDeadError' } : {}));
    const source = i % 2 === 0 ? 'alpha' : 'beta';
    rows.push({
      ...base,
      ts: ts + 10,
      eventKind: 'attempt',
      callId: `${logicalCallId}-ok`,
      source,
      status: 'ok',
      latencyMs: (source === 'alpha' ? 100 : 300) + i * 10,
      promptTokens: 100,
      completionTokens: 50,
      usageSource: 'measured',
      costUsd: source === 'alpha' ? 0.0015 : 0.004,
    });
  }
  return rows;
}

/** Writes the rows to a fresh SQLite file and returns its path. */
export async function telemetryFile(rows: TelemetryRow[] = telemetryRows()): Promise<string> {
  const path = join(tempDir('pgw-cli-report-'), 'telemetry.sqlite');
  const recorder = await SqliteRecorder.open({ path });
  try {
    for (const row of rows) recorder.record(row);
    await recorder.flush();
    const { written } = recorder.stats();
    if (written !== rows.length) throw new Error(`fixture: wrote ${written} of ${rows.length} rows`);
  } finally {
    await recorder.close();
  }
  return path;
}
