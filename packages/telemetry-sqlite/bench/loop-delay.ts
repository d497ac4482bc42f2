/**
 * What the recorder costs the caller's event loop, writer thread against main thread against no
 * recorder at all (the machine's noise floor), interleaved in one process: rows recorded in bursts of
 * 50 at a steady rate (as finishing calls would; 0 = as fast as the loop turns), then flushed. Reports
 * the loop's delay p99 and max (monitorEventLoopDelay, 1 ms resolution), wall time, and the process's
 * CPU µs per row (both threads).
 * Run: npx tsx --conditions=@pgw/source bench/loop-delay.ts [rows=10000] [rowsPerSecond=5000] [rounds=3]
 * On the built dist, as a consumer runs it (after `pnpm build`): PGW_BENCH_DIST=1 npx tsx bench/loop-delay.ts …
 * (without the source condition, which the writer thread would inherit).
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { sampleTelemetryRow } from '@pgw/testkit';
import type { TelemetryRecorder } from '@pgw/core';

const entry = process.env.PGW_BENCH_DIST === '1' ? '../dist/index.js' : '../src/index.js';
const { SqliteRecorder } = (await import(entry)) as typeof import('../src/index.js');

const rows = Number(process.argv[2] ?? 10_000);
const rowsPerSecond = Number(process.argv[3] ?? 5_000);
const rounds = Number(process.argv[4] ?? 3);
const BURST = 50;
const dir = mkdtempSync(join(tmpdir(), 'pgw-bench-'));
const threads = ['worker', 'main', 'none'] as const;

/** Counts rows and nothing else: the cost of producing them and the loop's delay without a recorder. */
function countingRecorder(): TelemetryRecorder {
  let written = 0;
  return {
    record: () => {
      written += 1;
    },
    flush: async () => {},
    close: async () => {},
    stats: () => ({ written, dropped: 0, queued: 0 }),
  };
}

async function round(thread: (typeof threads)[number], index: number) {
  const recorder =
    thread === 'none' ? countingRecorder() : await SqliteRecorder.open({ path: join(dir, `${thread}-${index}.sqlite`), thread, maxQueue: rows });
  const delay = monitorEventLoopDelay({ resolution: 1 });
  const cpuBefore = process.cpuUsage();
  const started = performance.now();
  delay.enable();
  for (let i = 0; i < rows; i += 1) {
    recorder.record(sampleTelemetryRow(i));
    if (i % BURST !== BURST - 1) continue;
    if (rowsPerSecond > 0) await sleep((BURST * 1000) / rowsPerSecond);
    else await new Promise((resolve) => setImmediate(resolve));
  }
  await recorder.flush();
  delay.disable();
  const wallMs = performance.now() - started;
  const cpu = process.cpuUsage(cpuBefore);
  await recorder.close();
  const { written, dropped } = recorder.stats();
  if (written !== rows || dropped !== 0) throw new Error(`${thread}: ${written} written, ${dropped} dropped of ${rows}`);
  return { p99: delay.percentile(99) / 1e6, max: delay.max / 1e6, wallMs, cpuUsPerRow: (cpu.user + cpu.system) / rows };
}

const pace = rowsPerSecond > 0 ? `${rowsPerSecond} rows/s` : 'as fast as the loop turns';
console.log(`@pgw/telemetry-sqlite event-loop delay (${rows} rows of ~1.3 KB in bursts of ${BURST}, ${pace}, batchSize 500, ${rounds} rounds + warm-up)`);
try {
  const results = new Map<string, Array<Awaited<ReturnType<typeof round>>>>(threads.map((t) => [t, []]));
  for (let r = -1; r < rounds; r += 1) {
    for (let i = 0; i < threads.length; i += 1) {
      const thread = threads[(i + Math.max(r, 0)) % threads.length]!;
      const result = await round(thread, r + 1);
      if (r >= 0) results.get(thread)!.push(result);
    }
  }
  const spread = (values: number[], digits: number) => {
    const sorted = [...values].sort((a, b) => a - b);
    return `${sorted[Math.floor(sorted.length / 2)]!.toFixed(digits)} (${sorted[0]!.toFixed(digits)}–${sorted.at(-1)!.toFixed(digits)})`;
  };
  for (const [thread, list] of results) {
    console.log(
      [
        `thread=${thread.padEnd(6)}`,
        `loop delay p99 ${spread(list.map((x) => x.p99), 2)} ms`,
        `max ${spread(list.map((x) => x.max), 2)} ms`,
        `wall ${spread(list.map((x) => x.wallMs), 0)} ms`,
        `CPU ${spread(list.map((x) => x.cpuUsPerRow), 2)} µs/row`,
      ].join('  '),
    );
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
