/**
 * `pnpm --filter @pgw/bench tenant-cost [--calls N]`: what tenant gates cost a governed call. For the
 * memory backend and a Redis of its own (a private redis-server), runs the same governed client with
 * tenant gates off and on — on: two tenants taking turns, each bounded on RPM, TPM and concurrency far
 * above what the run uses, so every call books and settles a third gate triple — interleaved at
 * concurrency 64, and reports this process's CPU per call and the ratio on / off (issue 36's target:
 * at most 1.10). The upstream is the mock process.
 */
import { parseArgs } from 'node:util';
import type { GatewaySettings } from '@pgw/core';
import { gatewayCaller, type Caller } from './callers.js';
import { benchSettings, uniqueScope } from './gateway-settings.js';
import { interleave, ratio, runConcurrent } from './harness.js';
import { MockProcess } from './mock-process.js';
import { SOURCES } from './mock-script.js';
import { startPrivateRedisServer } from './redis-scope.js';

const CONCURRENCY = 64;
const TENANTS = ['team-a', 'team-b'];
/** Bounds no call of the run reaches: the books are kept, nothing is refused. */
const UNREACHED = { rpm: 1_000_000_000, tpm: 1_000_000_000_000, maxConcurrency: 1_000_000 };

function withTenantGates(settings: GatewaySettings): GatewaySettings {
  return { ...settings, tenant: UNREACHED };
}

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { calls: { type: 'string', default: '4000' } } });
  const calls = Number(values.calls);
  const redisServer = await startPrivateRedisServer();
  const mock = await MockProcess.start();
  try {
    const baseUrl = mock.baseUrl(SOURCES.chat);
    console.log(`calls per round: ${calls}; concurrency ${CONCURRENCY}; interleaved rounds: 5 (median)`);
    for (const backend of ['memory', 'redis'] as const) {
      const settings = (label: string) =>
        benchSettings({ scope: uniqueScope(`BENCH_TENANT_${label}`), baseUrl, backend, ...(backend === 'redis' && { redisUrl: redisServer.url }) });
      const callers: Caller[] = [
        await gatewayCaller('tenant gates off', settings('OFF'), { tenants: TENANTS }),
        await gatewayCaller('tenant gates on', withTenantGates(settings('ON')), { tenants: TENANTS }),
      ];
      try {
        const [off, on] = await interleave(
          callers.map((caller) => ({ name: caller.name, round: () => runConcurrent(calls, CONCURRENCY, () => caller.call()) })),
          { rounds: 5, between: () => mock.reset() },
        );
        console.log(
          `${backend}: CPU per call off ${off!.medianCpuUs.toFixed(1)} µs, on ${on!.medianCpuUs.toFixed(1)} µs, ` +
            `ratio on/off ${ratio(on!.medianCpuUs, off!.medianCpuUs).toFixed(3)}; calls/s off ${off!.median.toFixed(0)}, on ${on!.median.toFixed(0)}`,
        );
      } finally {
        for (const caller of callers) await caller.close();
      }
    }
  } finally {
    await mock.close();
    await redisServer.stop();
  }
}

await main();
