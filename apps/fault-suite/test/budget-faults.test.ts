/**
 * A spend budget through a Redis outage, on a redis-server of this file's own (port 7250, append-only
 * file): killed while calls are in flight, admission fails closed, and after the restart the
 * write-backs the outage held are replayed — each attempt's cost lands once, nothing twice.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { GatewayClient, GovernanceBackendError } from '@pgw/client';
import type { MockUpstream } from '@pgw/mock-upstream';
import { startPrivateRedis, type PrivateRedis } from '@pgw/testkit';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { chatScope, ms, printFigures, recordFigure, startMock, uniqueName, until } from '../src/index.js';

const PORT = 7250;
const HI = [{ role: 'user' as const, content: 'hi' }];
const BOUNDED = { sampling: { max_tokens: 10 }, cacheBypass: true };
/** 0.01 / 0.02 USD per prompt / answer token: `user: hi` with max_tokens 10 reserves 0.22, the mock bills 10 + 5 tokens = 0.20. */
const PRICE = JSON.stringify({ inputPerMTok: 10_000, outputPerMTok: 20_000 });
const BILLED_USD = 0.2;
const IN_FLIGHT = 4;

let mock: MockUpstream;
let dir: string;
const servers: PrivateRedis[] = [];

beforeAll(async () => {
  mock = await startMock();
  dir = await mkdtemp(join(tmpdir(), 'pgw-budget-fault-'));
});
afterAll(async () => {
  for (const server of servers) await server.stop();
  await mock.close();
  await rm(dir, { recursive: true, force: true });
  printFigures();
});

async function redisOn(): Promise<PrivateRedis> {
  const server = await startPrivateRedis(PORT, dir);
  servers.push(server);
  return server;
}

it('Redis killed mid-spend: admission fails closed, and after the restart each cost lands once', { timeout: 120_000 }, async () => {
  const first = await redisOn();
  const scope = uniqueName('budgetfault');
  const { source, env } = chatScope(
    mock,
    scope,
    { latencyMs: 400, usage: { prompt_tokens: 10, completion_tokens: 5 } },
    { PRICING: PRICE, MAX_CONCURRENCY: '8' },
    { BUDGET__USD: '100', BUDGET__PERIOD: 'total', MAX_ATTEMPTS: '1' },
  );
  const client = await GatewayClient.fromEnv(scope, {
    env: { ...env, PGW_LIMITER_BACKEND: 'redis', PGW_CACHE_BACKEND: 'none', REDIS_URL: first.url },
    warn: () => {},
  });
  try {
    await client.chat(HI, BOUNDED);
    await client.chat(HI, BOUNDED);
    const inFlight = Array.from({ length: IN_FLIGHT }, () => client.chat(HI, BOUNDED));
    await until('the calls in flight at the upstream', () => mock.counters(source).inflight === IN_FLIGHT);
    await first.stop();
    const killedAt = performance.now();

    // The upstream answered them: the callers have their answers; their write-backs wait for Redis.
    const answered = await Promise.all(inFlight);
    expect(answered.every((response) => response.costUsd === BILLED_USD)).toBe(true);
    const refused = await client.chat(HI, BOUNDED).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(GovernanceBackendError);
    const failedClosedMs = performance.now() - killedAt;
    const sent = mock.counters(source).chat;

    await redisOn();
    const restartedAt = performance.now();
    const expected = (2 + IN_FLIGHT) * BILLED_USD;
    await until('the held write-backs replayed', async () => {
      const status = await client.budgetStatus().catch(() => undefined);
      return status !== undefined && status.reservedUsd === 0 && Math.abs(status.spentUsd - expected) < 1e-9;
    });
    const replayedMs = performance.now() - restartedAt;
    // Replays and retries keep running a while: an attempt's cost must not land a second time.
    await new Promise((resolve) => setTimeout(resolve, 2_500));
    const settled = await client.budgetStatus();
    expect(settled!.spentUsd).toBeCloseTo(expected, 9);
    expect(settled!.reservedUsd).toBe(0);
    expect(mock.counters(source).chat).toBe(sent); // nothing went upstream ungoverned during the outage

    await client.chat(HI, BOUNDED);
    expect((await client.budgetStatus())!.spentUsd).toBeCloseTo(expected + BILLED_USD, 9);
    recordFigure(
      'budget: Redis killed mid-spend',
      `admission failed closed ${ms(failedClosedMs)} after the kill; ${IN_FLIGHT} costs held through the outage replayed ${ms(replayedMs)} after the restart, each once`,
    );
  } finally {
    await client.close();
  }
});
