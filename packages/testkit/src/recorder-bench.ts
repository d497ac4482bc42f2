/** The throughput benchmark both telemetry stores run (docs/architecture.md#performance), so their figures compare. */
import type { TelemetryRecorder } from '@pgw/core';
import { sampleTelemetryRow } from './telemetry-rows.js';

export interface ThroughputRun {
  batchSize: number;
  rows: number;
}

/** Opens a recorder on a fresh store for one run, with the run's `batchSize` and room to queue all its `rows`. */
export type ThroughputRecorderFactory = (run: ThroughputRun) => Promise<TelemetryRecorder>;

/**
 * For each run: records `rows` sample rows, closes the recorder (which flushes), and prints one line
 * with rows/s end to end and what `record()` cost the caller per row.
 */
export async function measureRecorderThroughput(open: ThroughputRecorderFactory, runs: readonly ThroughputRun[]): Promise<void> {
  for (const run of runs) {
    const recorder = await open(run);
    const started = performance.now();
    for (let i = 0; i < run.rows; i += 1) recorder.record(sampleTelemetryRow(i));
    const recorded = performance.now();
    await recorder.close();
    const done = performance.now();
    const { written, dropped } = recorder.stats();
    console.log(
      [
        `batchSize=${String(run.batchSize).padStart(4)}`,
        `rows=${run.rows}`,
        `written=${written}`,
        `dropped=${dropped}`,
        `${Math.round((written / (done - started)) * 1000).toLocaleString('en-US')} rows/s`,
        `record() ${(((recorded - started) * 1000) / run.rows).toFixed(2)} µs/row on the caller`,
      ].join('  '),
    );
  }
}
