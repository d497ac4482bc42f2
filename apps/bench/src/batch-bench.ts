/**
 * `pnpm --filter @pgw/bench batch-bench [--items N] [--concurrency C]`: what running a job through
 * `runBatch` (the sqlite engine: each item claimed, reserved and recorded in a SQLite transaction)
 * costs against the loop users write today, `gatherBounded` over the same governed calls, at the same
 * concurrency. Interleaved rounds against the mock process, on a zero-latency source (the engine's
 * cost laid bare) and a 20 ms one (a fast real upstream). Issue 37's target: items/s ratio ≥ 0.9.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { runBatch, SqliteBatchEngine } from '@pgw/batch';
import { GatewayClient, gatherBounded } from '@pgw/client';
import { benchSettings, uniqueScope } from './gateway-settings.js';
import { interleave, ratio } from './harness.js';
import { MockProcess } from './mock-process.js';
import { SOURCES } from './mock-script.js';

const lineOf = (index: number) => ({
  custom_id: `item-${index}`,
  method: 'POST',
  url: '/v1/chat/completions',
  body: { model: 'bench', messages: [{ role: 'user', content: `question ${index}` }] },
});

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { items: { type: 'string', default: '2000' }, concurrency: { type: 'string', default: '16' } } });
  const items = Number(values.items);
  const concurrency = Number(values.concurrency);
  const mock = await MockProcess.start();
  const dir = mkdtempSync(join(tmpdir(), 'pgw-batch-bench-'));
  const engine = new SqliteBatchEngine({ dir });
  try {
    console.log(`items per round: ${items}; concurrency ${concurrency}; interleaved rounds: 5 (median)`);
    for (const source of [SOURCES.chat, SOURCES.slow]) {
      const client = await GatewayClient.fromSettings(benchSettings({ scope: uniqueScope('BENCH_BATCH'), baseUrl: mock.baseUrl(source), backend: 'memory' }));
      const lines = Array.from({ length: items }, (_, index) => lineOf(index));
      let round = 0;
      try {
        const [gather, batch] = await interleave(
          [
            {
              name: 'gatherBounded',
              round: async () => {
                const tasks = lines.map((line) => () => client.chat(line.body.messages as never, { priority: 'batch' }));
                return (await gatherBounded(tasks, { concurrency })).length;
              },
            },
            {
              name: 'runBatch (sqlite)',
              round: async () => {
                round += 1;
                const summary = await runBatch(client, lines, { engine, job: `bench-${process.pid}-${source}-${round}`, concurrency });
                return summary.done;
              },
            },
          ],
          { rounds: 5, between: () => mock.reset() },
        );
        console.log(
          `${source === SOURCES.chat ? 'zero-latency source' : '20 ms source'}: items/s gatherBounded ${gather!.median.toFixed(0)}, ` +
            `runBatch ${batch!.median.toFixed(0)}, ratio ${ratio(batch!.median, gather!.median).toFixed(2)}; ` +
            `CPU per item ${gather!.medianCpuUs.toFixed(0)} µs vs ${batch!.medianCpuUs.toFixed(0)} µs`,
        );
      } finally {
        await client.close();
      }
    }
  } finally {
    await engine.close();
    rmSync(dir, { recursive: true, force: true });
    await mock.close();
  }
}

await main();
