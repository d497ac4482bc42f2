/**
 * Tenants governed end to end: a full scope is shared fairly between the tenants that wait
 * (weighted), batch calls give way to interactive ones, a tenant at its own bound fails fast with
 * `tenant_quota_full` and holds no other tenant back. Real time is the subject: the loopback mock
 * answers after a fixed latency; the figures are counts of calls, with wide margins.
 */
import { describe, expect, it } from 'vitest';
import { MemoryRecorder } from '@pgw/core';
import { GatewayClient, GatewayUnavailableError, SettingsError, type GatewaySubscriber } from '../src/index.js';
import { BACKENDS, MockFixture, scopeKeys, uniqueScope } from './helpers/e2e.js';

const fixture = MockFixture.use();

interface Scope {
  client: GatewayClient;
  source: string;
  recorder: MemoryRecorder;
}

async function withScope<T>(
  backend: (typeof BACKENDS)[number],
  upstreamMs: number,
  keys: Record<string, string>,
  run: (scope: Scope) => Promise<T>,
  subscribers: GatewaySubscriber[] = [],
  sourceFields: Record<string, string> = {},
): Promise<T> {
  const scope = uniqueScope('tenants');
  const source = fixture.source('tenants', { latencyMs: upstreamMs });
  const env = {
    ...backend.env,
    PGW_CACHE_BACKEND: 'none',
    ...scopeKeys(scope, { SOURCES: source, BACKPRESSURE__STALL_WINDOW_S: '120', ...keys }),
    ...fixture.sourceKeys(scope, source, sourceFields),
  };
  const recorder = new MemoryRecorder();
  const client = await GatewayClient.fromEnv(scope, { env, warn: () => {}, recorder, subscribers });
  try {
    return await run({ client, source, recorder });
  } finally {
    await client.close();
  }
}

const ask = (tenant: string, index: number) => [{ role: 'user' as const, content: `${tenant} ${index}` }];
const tick = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The tenants of the calls that reached the upstream, in the order they reached it. */
function arrivals(source: string): string[] {
  return fixture.mock.requests(source).map((request) => (request.body as { messages: Array<{ content: string }> }).messages[0]!.content.split(' ')[0]!);
}

describe.each(BACKENDS)('tenants on $name', (backend) => {
  it("a tenant queuing 10 calls behind another's 400 is served in turn, not after them", { timeout: 60_000 }, async () => {
    await withScope(backend, 20, { GLOBAL__MAX_CONCURRENCY: '4' }, async ({ client }) => {
      let aDone = 0;
      const a = Array.from({ length: 400 }, (_, index) => client.chat(ask('a', index), { tenantId: 'a' }).then(() => void (aDone += 1)));
      await tick(30);
      const b = Array.from({ length: 10 }, (_, index) => client.chat(ask('b', index), { tenantId: 'b' }));
      await Promise.all(b);
      // FIFO would finish b after all 400 of a; fair share after about 10 of a.
      expect(400 - aDone).toBeGreaterThan(300);
      await Promise.all(a);
    });
  });

  it('weights 2:1 share a full scope 2:1 while both tenants wait', { timeout: 60_000 }, async () => {
    const tenants = JSON.stringify({ heavy: { weight: 2 }, light: { weight: 1 } });
    await withScope(backend, 10, { GLOBAL__MAX_CONCURRENCY: '2', TENANTS: tenants }, async ({ client, source }) => {
      const calls = ['heavy', 'light'].flatMap((tenant) => Array.from({ length: 150 }, (_, index) => client.chat(ask(tenant, index), { tenantId: tenant })));
      await Promise.all(calls);
      // While both wait: the first 150 that reached the upstream (light's last ones run alone).
      const seen = arrivals(source).slice(0, 150);
      const heavy = seen.filter((tenant) => tenant === 'heavy').length;
      const ratio = heavy / (seen.length - heavy);
      expect(ratio).toBeGreaterThan(2 * 0.9);
      expect(ratio).toBeLessThan(2 * 1.1);
    });
  });

  it('an interactive call arriving while batch calls saturate the scope waits at most one slot turnover', { timeout: 60_000 }, async () => {
    // The order calls were admitted in, and how many were admitted when the interactive call began to
    // wait: pinned by the call's own events, not by a sleep or by arrivals still on the wire.
    const admitted: string[] = [];
    let admittedBeforeWait: number | undefined;
    const order: GatewaySubscriber = {
      onAttemptStart: (event) => void admitted.push(event.call.priority ?? 'interactive'),
      onQuotaWaitStart: (event) => void (event.call.priority !== 'batch' && (admittedBeforeWait ??= admitted.length)),
    };
    // A share of 1 leaves interactive traffic no headroom: only the order of the line serves it.
    await withScope(
      backend,
      40,
      { GLOBAL__MAX_CONCURRENCY: '4', BATCH_SHARE: '1' },
      async ({ client, source, recorder }) => {
        const batch = Array.from({ length: 60 }, (_, index) => client.chat(ask('batch', index), { tenantId: 'offline', priority: 'batch' }));
        await fixture.inflight(source, 4);
        await client.chat(ask('live', 0), { tenantId: 'offline' });
        // It waited, and the next freed slot was the interactive call's (two slots may free in one instant).
        expect(admittedBeforeWait).toBeDefined();
        expect(admitted.indexOf('interactive') - admittedBeforeWait!).toBeLessThanOrEqual(1);
        await Promise.all(batch);
        // Rows carry the class and the time waited for room before the attempt.
        const live = recorder.rows.find((row) => row.requestText?.includes('live'))!;
        expect(live).toMatchObject({ priority: 'interactive', tenantId: 'offline' });
        expect(live.waitMs).toBeGreaterThan(0);
        const batchRows = recorder.rows.filter((row) => row.requestText?.includes('batch'));
        expect(batchRows.every((row) => row.priority === 'batch')).toBe(true);
        expect(Math.max(...batchRows.map((row) => row.waitMs ?? 0))).toBeGreaterThan(100);
      },
      [order],
    );
  });

  it('batch calls hold at most the batch share, so an interactive call finds a slot at once', { timeout: 60_000 }, async () => {
    await withScope(backend, 200, { GLOBAL__MAX_CONCURRENCY: '5', BATCH_SHARE: '0.8' }, async ({ client, source }) => {
      const batch = Array.from({ length: 20 }, (_, index) => client.chat(ask('batch', index), { priority: 'batch' }));
      await fixture.inflight(source, 4);
      await client.chat(ask('live', 0));
      // Admitted at once into the slot batch calls may not take: the fifth to arrive, before any batch
      // call turned its slot over (without the share, the fifth batch call would hold it).
      expect(arrivals(source).indexOf('live')).toBe(4);
      await Promise.all(batch);
    });
  });

  it('the batch share applies to a source’s own bound: with no scope-wide bound an interactive call still finds a slot at once', { timeout: 60_000 }, async () => {
    await withScope(
      backend,
      200,
      { BATCH_SHARE: '0.5' },
      async ({ client, source }) => {
        const batch = Array.from({ length: 60 }, (_, index) => client.chat(ask('batch', index), { priority: 'batch' }));
        await fixture.inflight(source, 2);
        await client.chat(ask('live', 0));
        // Batch calls hold floor(0.5 × 4) = 2 of the source's 4 slots: the live call is the third to
        // arrive, before any batch call turned its slot over (without the share, batch calls held all 4).
        expect(arrivals(source).indexOf('live')).toBe(2);
        await Promise.all(batch);
      },
      [],
      { MAX_CONCURRENCY: '4' },
    );
  });

  it("a tenant at its own bound fails fast with tenant_quota_full, and another tenant's call still runs", async () => {
    await withScope(backend, 150, { QUOTA_FULL: 'fail_fast', TENANT__MAX_CONCURRENCY: '1' }, async ({ client, source }) => {
      const held = client.chat(ask('a', 0), { tenantId: 'a' });
      await fixture.inflight(source, 1);
      const refused = await client.chat(ask('a', 1), { tenantId: 'a' }).catch((error: unknown) => error);
      expect(refused).toBeInstanceOf(GatewayUnavailableError);
      expect((refused as GatewayUnavailableError).reason).toBe('tenant_quota_full');
      expect((refused as GatewayUnavailableError).message).toContain('tenant_concurrency');
      const status = await client.tenantStatus('a');
      expect(status).toMatchObject({ tenantId: 'a', concurrency: { used: 1, bound: 1 }, waiting: 0 });
      await expect(client.chat(ask('b', 0), { tenantId: 'b' })).resolves.toMatchObject({ content: expect.any(String) });
      await held;
      expect((await client.tenantStatus('a')).concurrency.used).toBe(0);
    });
  });

  it('a waiting tenant at its own bound steps aside: the other tenant is served meanwhile', { timeout: 60_000 }, async () => {
    const tenants = JSON.stringify({ capped: { maxConcurrency: 1 } });
    await withScope(backend, 50, { GLOBAL__MAX_CONCURRENCY: '3', TENANTS: tenants }, async ({ client }) => {
      let cappedDone = 0;
      const capped = Array.from({ length: 20 }, (_, index) => client.chat(ask('capped', index), { tenantId: 'capped' }).then(() => void (cappedDone += 1)));
      await tick(20);
      await Promise.all(Array.from({ length: 6 }, (_, index) => client.chat(ask('free', index), { tenantId: 'free' })));
      // Two free slots take the six in three rounds while capped's one slot serves about three; behind
      // capped's line, free would have waited for all 20. Counted, not timed: a loaded machine slows both alike.
      expect(cappedDone).toBeLessThan(12);
      await Promise.all(capped);
    });
  });
});

describe('tenant settings', () => {
  it('refuses a bad tenant override naming the key and the tenant', async () => {
    const scope = uniqueScope('tenantkeys');
    const source = fixture.source('tenantkeys');
    const env = {
      PGW_LIMITER_BACKEND: 'memory',
      ...scopeKeys(scope, { SOURCES: source, TENANTS: JSON.stringify({ 'team-a': { rpm: -1 } }) }),
      ...fixture.sourceKeys(scope, source),
    };
    const error = await GatewayClient.fromEnv(scope, { env }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(SettingsError);
    expect((error as SettingsError).message).toContain(`${scope}__TENANTS`);
    expect((error as SettingsError).message).toContain('team-a');
  });

  it("refuses a tenant's budget without a per-tenant budget, and takes it into the budget with one", async () => {
    const scope = uniqueScope('tenantbudget');
    const source = fixture.source('tenantbudget');
    const base = { PGW_LIMITER_BACKEND: 'memory', ...fixture.sourceKeys(scope, source, { PRICING: '{"inputPerMTok": 1, "outputPerMTok": 1}' }) };
    const tenants = JSON.stringify({ 'team-a': { budgetUsd: 5 } });
    const refused = await GatewayClient.fromEnv(scope, { env: { ...base, ...scopeKeys(scope, { SOURCES: source, TENANTS: tenants }) } }).catch((caught: unknown) => caught);
    expect(refused).toBeInstanceOf(SettingsError);
    expect((refused as SettingsError).message).toContain('team-a');
    const client = await GatewayClient.fromEnv(scope, {
      env: { ...base, ...scopeKeys(scope, { SOURCES: source, TENANTS: tenants, BUDGET__USD: '1', BUDGET__PER: 'tenant' }) },
    });
    try {
      expect(client.settings.budget?.tenants).toEqual({ 'team-a': 5 });
      expect((await client.tenantStatus('team-a')).budget?.budgetUsd).toBe(5);
    } finally {
      await client.close();
    }
  });

  it('refuses an unknown priority naming the option', async () => {
    const scope = uniqueScope('prio');
    const source = fixture.source('prio');
    const client = await GatewayClient.fromEnv(scope, { env: { PGW_LIMITER_BACKEND: 'memory', ...scopeKeys(scope, { SOURCES: source }), ...fixture.sourceKeys(scope, source) } });
    try {
      // @ts-expect-error: not a priority class
      await expect(client.chat(ask('x', 0), { priority: 'urgent' })).rejects.toThrow(/chat\(priority\) must be one of interactive \| batch/);
    } finally {
      await client.close();
    }
  });
});
