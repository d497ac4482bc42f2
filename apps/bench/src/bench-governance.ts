/**
 * Benchmark 3: Redis admission throughput of a worker fleet sharing one limiter scope, and the exact
 * final accounting (docs/architecture.md#invariants): inflight back to 0, TPM equal to the sum of what was settled.
 */
import { createRedisConnection, RedisLimiter } from '@pgw/backend-redis';
import { ChildChannel } from './child.js';
import { uniqueScope } from './gateway-settings.js';
import { GOVERNANCE_LIMITS, GOVERNANCE_SOURCE } from './governance-plan.js';
import { ratio } from './harness.js';
import { deleteScopeKeys, redisReady } from './redis-scope.js';

export interface GovernanceBenchOptions {
  redisUrl: string;
  /** Worker counts to run, e.g. [1, 4]; the last is the fleet the check is about. */
  fleets: readonly number[];
  /** Admissions per worker. */
  admissionsPerWorker: number;
  /** Permits each worker holds at once (its concurrent calls). */
  inFlightPerWorker: number;
}

export interface AccountingCheck {
  inflight: number;
  tpmUsed: number;
  settledSum: number;
  rpmUsed: number;
  admitted: number;
  pass: boolean;
}

export interface FleetResult {
  workers: number;
  admissions: number;
  wallMs: number;
  /** Admission + settle + release cycles per second, all workers together. */
  cyclesPerSecond: number;
  denied: number;
  check: AccountingCheck;
}

export interface GovernanceBenchResult {
  admissionsPerWorker: number;
  inFlightPerWorker: number;
  fleets: FleetResult[];
  /** Throughput of the largest fleet over a single worker's. */
  scaling: number;
}

interface WorkerReport {
  admitted: number;
  denied: number;
  settled: number;
  elapsedMs: number;
}

export async function runGovernanceBench(options: GovernanceBenchOptions): Promise<GovernanceBenchResult> {
  const fleets: FleetResult[] = [];
  for (const workers of options.fleets) fleets.push(await runFleet(workers, options));
  const single = fleets.find((f) => f.workers === 1);
  const largest = fleets[fleets.length - 1]!;
  return {
    admissionsPerWorker: options.admissionsPerWorker,
    inFlightPerWorker: options.inFlightPerWorker,
    fleets,
    scaling: single ? ratio(largest.cyclesPerSecond, single.cyclesPerSecond) : Number.NaN,
  };
}

async function runFleet(workers: number, options: GovernanceBenchOptions): Promise<FleetResult> {
  const scope = uniqueScope('BENCH_GOV');
  const channels = Array.from(
    { length: workers },
    () => new ChildChannel(new URL('./redis-worker.ts', import.meta.url), { args: [options.redisUrl, scope] }),
  );
  try {
    // Workers start (and connect) before the clock does.
    await Promise.all(channels.map((c) => c.request('ready')));
    const started = performance.now();
    const reports = await Promise.all(
      channels.map((c, worker) =>
        c.request<WorkerReport>('run', { worker, admissions: options.admissionsPerWorker, inFlight: options.inFlightPerWorker }),
      ),
    );
    const wallMs = performance.now() - started;
    const admissions = reports.reduce((sum, r) => sum + r.admitted, 0);
    const settledSum = reports.reduce((sum, r) => sum + r.settled, 0);
    return {
      workers,
      admissions,
      wallMs,
      cyclesPerSecond: admissions / (wallMs / 1000),
      denied: reports.reduce((sum, r) => sum + r.denied, 0),
      check: await checkAccounting(options.redisUrl, scope, admissions, settledSum),
    };
  } finally {
    await Promise.all(channels.map((c) => c.stop()));
    await deleteScopeKeys(options.redisUrl, scope);
  }
}

/** Reads the scope back through a fresh limiter, as another worker of the fleet would. */
async function checkAccounting(redisUrl: string, scope: string, admitted: number, settledSum: number): Promise<AccountingCheck> {
  const redis = createRedisConnection(redisUrl);
  try {
    await redisReady(redis, redisUrl);
    const limiter = new RedisLimiter({ redis, scope, ...GOVERNANCE_LIMITS });
    const { inflight, tpmUsed, rpmUsed } = await limiter.sourceStats(GOVERNANCE_SOURCE);
    return { inflight, tpmUsed, settledSum, rpmUsed, admitted, pass: inflight === 0 && tpmUsed === settledSum && rpmUsed === admitted };
  } finally {
    await redis.quit();
  }
}
