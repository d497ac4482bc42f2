/**
 * The governed chat path end to end: GatewayClient.fromEnv against the loopback mock, on memory and
 * on Redis backends. Real time is the subject here, so waits use real timers with wide margins.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  AllSourcesExhausted,
  CallDeadlineExceeded,
  CircuitOpenError,
  GatewayClient,
  GatewayUnavailableError,
  gatherBounded,
} from '../src/index.js';
import type { Cache } from '@pgw/core';
import type { GatewayClientOverrides } from '../src/index.js';
import { BACKENDS, MockFixture, outcome, scopeKeys, uniqueScope } from './helpers/e2e.js';

const HI = [{ role: 'user' as const, content: 'hi' }];

const fixture = MockFixture.use();

describe.each(BACKENDS)('chat through fromEnv on $name backends', (backend) => {
  /** A client on a fresh scope; `keys` are scope keys without the prefix, `sources` are mock source names. */
  async function withClient<T>(
    sources: Array<string | [string, Record<string, string>]>,
    keys: Record<string, string>,
    run: (client: GatewayClient, scope: string) => Promise<T>,
    overrides: GatewayClientOverrides = {},
  ): Promise<T> {
    const scope = uniqueScope('chat');
    const env: Record<string, string> = {
      ...backend.env,
      ...scopeKeys(scope, { RETRY__BACKOFF_BASE_S: '0.01', RETRY__BACKOFF_MAX_S: '0.05', CACHE__NAMESPACE: scope, ...keys }),
    };
    for (const entry of sources) {
      const [name, fields] = typeof entry === 'string' ? [entry, {}] : entry;
      Object.assign(env, fixture.sourceKeys(scope, name, fields));
    }
    const client = await GatewayClient.fromEnv(scope, { env, warn: () => {}, ...overrides });
    try {
      return await run(client, scope);
    } finally {
      await client.close();
    }
  }

  it('fails over from a 500-ing source to a healthy one', async () => {
    const broken = fixture.source('broken', { otherwise: { kind: 'status', status: 500 } });
    const healthy = fixture.source('healthy');
    await withClient([broken, healthy], { SELECTOR: 'ordered', SOURCES: `${broken},${healthy}` }, async (client) => {
      const response = await client.chat(HI);
      expect(response.source).toBe(healthy);
      expect(response.content).toBe(`hello from ${healthy}`);
      expect(response.callStats).toMatchObject({ attempts: 2, sourcesTried: [broken, healthy] });
      expect(fixture.mock.counters(broken).chat).toBe(1);
    });
  });

  it('a repeated call is served from the cache; cacheBypass skips read and write', async () => {
    const cached = fixture.source('cached');
    await withClient([cached], {}, async (client) => {
      expect((await client.chat(HI)).cached).toBe(false);
      await expect(client.chat(HI)).resolves.toMatchObject({ cached: true, costUsd: 0, callStats: { attempts: 0 } });
      expect((await client.chat(HI, { cacheBypass: true })).cached).toBe(false);
      expect(fixture.mock.counters(cached).chat).toBe(2);
    });
  });

  it('a 429 with Retry-After: inf does not hang, and warns once without echoing the header', async () => {
    const limited = fixture.source('limited', { steps: [{ kind: 'rate_limit', retryAfter: 'inf' }] });
    const warnings: string[] = [];
    await withClient(
      [limited],
      {},
      async (client) => {
        const response = await client.chat(HI);
        expect(response.content).toBe(`hello from ${limited}`);
        expect(fixture.mock.counters(limited).chat).toBe(2);
      },
      { warn: (message) => warnings.push(message) },
    );
    const verdicts = warnings.filter((w) => w.includes('retry_after_not_finite'));
    expect(verdicts).toHaveLength(1);
    expect(verdicts[0]).toContain(limited);
    expect(verdicts[0]).not.toMatch(/\binf\b/);
  });

  it('the breaker opens, and a single half-open probe closes it', async () => {
    const flaky = fixture.source('flaky', { otherwise: { kind: 'status', status: 500 } });
    const keys = { MAX_ATTEMPTS: '1', BREAKER__FAILURE_THRESHOLD: '2', BREAKER__COOLDOWN_S: '0.3', CIRCUIT_OPEN: 'fail_fast' };
    await withClient([flaky], keys, async (client) => {
      for (let i = 0; i < 2; i += 1) await expect(client.chat(HI)).rejects.toBeInstanceOf(AllSourcesExhausted);
      const open = await outcome(() => client.chat(HI));
      expect(open.error).toBeInstanceOf(CircuitOpenError);
      expect(fixture.mock.counters(flaky).chat).toBe(2);

      fixture.mock.setSource(flaky, { latencyMs: 300 });
      await new Promise((resolve) => setTimeout(resolve, (open.error as CircuitOpenError).retryAfterMs + 100));
      const racers = await Promise.all([0, 1, 2].map(() => outcome(() => client.chat(HI, { cacheBypass: true }))));
      expect(racers.filter((r) => r.value !== undefined)).toHaveLength(1);
      expect(racers.filter((r) => r.error instanceof CircuitOpenError)).toHaveLength(2);
      expect(fixture.mock.counters(flaky).chat).toBe(3);

      await expect(client.chat(HI, { cacheBypass: true })).resolves.toMatchObject({ source: flaky });
      expect(fixture.mock.counters(flaky).chat).toBe(4);
    });
  });

  it('a full quota fails fast with quota_full under QUOTA_FULL=fail_fast', async () => {
    const narrow = fixture.source('narrow', { latencyMs: 400 });
    await withClient([[narrow, { MAX_CONCURRENCY: '1' }]], { QUOTA_FULL: 'fail_fast' }, async (client) => {
      const first = client.chat(HI);
      await fixture.inflight(narrow);
      const second = await outcome(() => client.chat(HI, { cacheBypass: true }));
      expect(second.error).toBeInstanceOf(GatewayUnavailableError);
      expect((second.error as GatewayUnavailableError).reason).toBe('quota_full');
      expect((second.error as GatewayUnavailableError).retryAfterMs).toBeGreaterThan(0);
      await expect(first).resolves.toMatchObject({ source: narrow });
      expect(fixture.mock.counters(narrow).chat).toBe(1);
    });
  });

  it('a full quota waits for room under QUOTA_FULL=wait', async () => {
    const narrow = fixture.source('narrow', { latencyMs: 200 });
    await withClient([[narrow, { MAX_CONCURRENCY: '1' }]], { QUOTA_FULL: 'wait' }, async (client) => {
      const first = client.chat(HI);
      await fixture.inflight(narrow);
      const second = client.chat(HI, { cacheBypass: true });
      await expect(Promise.all([first, second])).resolves.toHaveLength(2);
      expect(fixture.mock.counters(narrow).chat).toBe(2);
    });
  });

  describe('the call deadline', () => {
    it('expires in a backoff sleep (a large finite Retry-After)', async () => {
      const limited = fixture.source('limited', { otherwise: { kind: 'rate_limit', retryAfter: '30' } });
      await withClient([limited], { CALL_DEADLINE_S: '0.3' }, async (client) => {
        const result = await outcome(() => client.chat(HI));
        expect(result.error).toBeInstanceOf(CallDeadlineExceeded);
        expect(result.error).toMatchObject({ deadlineMs: 300 });
        expect(result.error).not.toHaveProperty('retryAfterMs');
        expect(result.elapsedMs).toBeGreaterThanOrEqual(290);
        expect(result.elapsedMs).toBeLessThan(15_000);
        expect(fixture.mock.counters(limited).chat).toBe(1);
      });
    });

    it('expires while waiting for quota, before anything is sent', async () => {
      const narrow = fixture.source('narrow', { latencyMs: 1000 });
      await withClient([[narrow, { MAX_CONCURRENCY: '1' }]], { QUOTA_FULL: 'wait' }, async (client) => {
        const first = client.chat(HI);
        await fixture.inflight(narrow);
        const second = await outcome(() => client.chat(HI, { callDeadlineMs: 200, cacheBypass: true }));
        expect(second.error).toBeInstanceOf(CallDeadlineExceeded);
        expect(fixture.mock.counters(narrow).chat).toBe(1);
        await expect(first).resolves.toMatchObject({ source: narrow });
      });
    });

    it('spans the structured re-ask ladder (one deadline for all rounds)', async () => {
      const prose = fixture.source('prose', { content: 'no json here', latencyMs: 80 });
      await withClient([prose], { STRUCTURED__MAX_RETRIES: '50', CALL_DEADLINE_S: '0.6' }, async (client) => {
        const result = await outcome(() => client.chat(HI, { structured: z.object({ answer: z.number() }) }));
        expect(result.error).toBeInstanceOf(CallDeadlineExceeded);
        expect(fixture.mock.counters(prose).chat).toBeGreaterThanOrEqual(2);
        expect(fixture.mock.counters(prose).chat).toBeLessThan(50);
      });
    });

    it('discards a billed success when a slow cache write outlives it', async () => {
      const billed = fixture.source('billed');
      let releaseWrite!: () => void;
      const written = new Promise<void>((resolve) => (releaseWrite = resolve));
      const slowCache: Cache = { get: async () => undefined, set: () => written };
      try {
        await withClient(
          [billed],
          { CALL_DEADLINE_S: '0.3' },
          async (client) => {
            const result = await outcome(() => client.chat(HI));
            expect(result.error).toBeInstanceOf(CallDeadlineExceeded);
            expect(fixture.mock.counters(billed).chat).toBe(1);
          },
          { cache: slowCache },
        );
      } finally {
        releaseWrite();
      }
    });
  });

  it('gatherBounded keeps queue time outside each call\'s deadline', async () => {
    const steady = fixture.source('steady', { latencyMs: 100 });
    await withClient([steady], { CALL_DEADLINE_S: '0.4' }, async (client) => {
      const tasks = [0, 1, 2, 3].map((i) => () => client.chat([{ role: 'user', content: `q${i}` }]));
      const answers = await gatherBounded(tasks, { concurrency: 1 });
      expect(answers.map((a) => a.source)).toEqual([steady, steady, steady, steady]);
      expect(fixture.mock.requests(steady).map((r) => (r.body as { messages: { content: string }[] }).messages.at(-1)!.content)).toEqual([
        'q0',
        'q1',
        'q2',
        'q3',
      ]);
    });
  });

  it('caller abort surfaces as AbortError carrying the signal reason', async () => {
    const stuck = fixture.source('stuck', { otherwise: { kind: 'hang' } });
    await withClient([stuck], { CALL_DEADLINE_S: '30' }, async (client) => {
      const controller = new AbortController();
      const call = outcome(() => client.chat(HI, { signal: controller.signal }));
      await fixture.inflight(stuck);
      const reason = new Error('user pressed stop');
      controller.abort(reason);
      const { error } = await call;
      expect(error).toMatchObject({ name: 'AbortError', cause: reason });
    });
  });
});
