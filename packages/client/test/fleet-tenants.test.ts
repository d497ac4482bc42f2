/**
 * Tenants across processes on Redis: five workers on one saturated scope — three flooding for
 * tenant `wide`, one for `narrow`, one more pair sharing tenant `capped`'s RPM bound. The bound holds
 * exactly across the two processes that share it, and `wide` gets no more of the scope than `narrow`
 * for running on three times the processes. Real processes, real Redis, the loopback mock.
 */
import { expect, it } from 'vitest';
import { startFleet } from './helpers/worker-process.js';
import { MockFixture, REDIS_URL, scopeKeys, uniqueScope } from './helpers/e2e.js';

const RUN_MS = 8_000;
const UPSTREAM_MS = 40;
const CAPPED_RPM = 25;
const WORKER = new URL('./fixtures/tenant-worker.ts', import.meta.url);
/** The tenant of each worker process. */
const TENANT_OF = ['wide', 'wide', 'wide', 'narrow', 'capped', 'capped'];

const fixture = MockFixture.use();

interface Report {
  tenantId: string;
  done: number;
}

it('shares a full scope between tenants, not processes, and holds a tenant bound exactly across processes', { timeout: 120_000 }, async () => {
  const scope = uniqueScope('fleettenants');
  const source = fixture.source('fleettenants', { latencyMs: UPSTREAM_MS });
  const env = {
    PGW_LIMITER_BACKEND: 'redis',
    PGW_CACHE_BACKEND: 'none',
    REDIS_URL,
    PGW_SCOPE: scope,
    PGW_CALLERS: '4',
    PGW_RUN_MS: String(RUN_MS),
    ...scopeKeys(scope, {
      SOURCES: source,
      BACKPRESSURE__STALL_WINDOW_S: '60',
      GLOBAL__MAX_CONCURRENCY: '2',
      TENANTS: JSON.stringify({ capped: { rpm: CAPPED_RPM } }),
    }),
    ...fixture.sourceKeys(scope, source),
  };
  const reports = await startFleet<Report>(TENANT_OF.length, WORKER, env, (index) => ({ PGW_TENANT: TENANT_OF[index]! }));
  const done = (tenant: string) => reports.filter((report) => report.tenantId === tenant).reduce((sum, report) => sum + report.done, 0);
  const summary = JSON.stringify({ wide: done('wide'), narrow: done('narrow'), capped: done('capped'), reports });
  // Within one window, two processes together reach the bound and never pass it (counted at the upstream).
  const sent = fixture.mock.requests(source).filter((request) => (request.body as { messages: Array<{ content: string }> }).messages[0]!.content === 'capped');
  expect(sent.length, summary).toBe(CAPPED_RPM);
  expect(done('capped'), summary).toBe(CAPPED_RPM);
  // Equal weights: equal shares (FIFO between turns would give wide about 3×).
  const share = done('wide') / done('narrow');
  expect(share, summary).toBeGreaterThan(0.75);
  expect(share, summary).toBeLessThan(1.33);
});
