/**
 * One spend budget across a fleet: four worker processes on one Redis spend it exactly — never
 * over it, and less than one reservation left unused. Real processes, real Redis, the loopback mock.
 */
import { expect, it } from 'vitest';
import { GatewayClient } from '../src/index.js';
import { startFleet } from './helpers/worker-process.js';
import { MockFixture, REDIS_URL, scopeKeys, uniqueScope } from './helpers/e2e.js';

const WORKERS = 4;
const CALLERS = 4;
const BUDGET_USD = 10;
/** `user: hi` with max_tokens 10 at 0.01 / 0.02 USD per token; the mock bills 10 + 5 tokens. */
const RESERVED_USD = 0.22;
const BILLED_USD = 0.2;
const WORKER = new URL('./fixtures/budget-worker.ts', import.meta.url);

const fixture = MockFixture.use();

interface Report {
  served: number;
  billedUsd: number;
  refused: number;
}


it(`${WORKERS} processes sharing Redis spend one budget exactly`, { timeout: 120_000 }, async () => {
  const scope = uniqueScope('fleetbudget');
  const source = fixture.source('fleetbudget', { latencyMs: 20, usage: { prompt_tokens: 10, completion_tokens: 5 } });
  const env = {
    PGW_LIMITER_BACKEND: 'redis',
    PGW_CACHE_BACKEND: 'none',
    REDIS_URL,
    PGW_SCOPE: scope,
    PGW_CALLERS: String(CALLERS),
    ...scopeKeys(scope, { SOURCES: source, BUDGET__USD: String(BUDGET_USD), BUDGET__PERIOD: 'total', BACKPRESSURE__STALL_WINDOW_S: '60' }),
    ...fixture.sourceKeys(scope, source, { PRICING: JSON.stringify({ inputPerMTok: 10_000, outputPerMTok: 20_000 }) }),
  };
  const reports = await startFleet<Report>(WORKERS, WORKER, env);

  const served = reports.reduce((sum, report) => sum + report.served, 0);
  const billed = reports.reduce((sum, report) => sum + report.billedUsd, 0);
  const summary = JSON.stringify({ reports, served, billed });
  expect(reports.every((report) => report.refused === CALLERS), summary).toBe(true);
  expect(reports.filter((report) => report.served > 0).length, summary).toBeGreaterThan(1);
  expect(billed, summary).toBeLessThanOrEqual(BUDGET_USD + 1e-9);
  expect(BUDGET_USD - billed, summary).toBeLessThan(RESERVED_USD);
  // The last call admitted saw 48 × 0.20 spent and room for its 0.22: 49 calls, 9.80 USD, 0.20 left unused.
  expect(served, summary).toBe(49);
  expect(fixture.mock.counters(source).chat, summary).toBe(served);

  const observer = await GatewayClient.fromEnv(scope, { env, warn: () => {} });
  try {
    const status = await observer.budgetStatus();
    expect(status, summary).toMatchObject({ budgetUsd: BUDGET_USD, reservedUsd: 0, resetAt: undefined });
    expect(status!.spentUsd, summary).toBeCloseTo(billed, 9);
  } finally {
    await observer.close();
  }
});
