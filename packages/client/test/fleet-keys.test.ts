/**
 * One stored key across a fleet: two clients, each with its own Redis connection, share one scope
 * and hold one key's concurrency and RPM exactly between them — counted at the upstream. Real
 * Redis, the loopback mock; refusals fail fast, so the counts do not depend on timing.
 */
import { afterEach, expect, it } from 'vitest';
import type { KeyBounds } from '@pgw/core';
import { GatewayClient, GatewayUnavailableError } from '../src/index.js';
import { MockFixture, REDIS_URL, scopeKeys, uniqueScope } from './helpers/e2e.js';

const fixture = MockFixture.use();
const PER_CLIENT = 10;
const opened: GatewayClient[] = [];
afterEach(async () => {
  for (const client of opened.splice(0)) await client.close();
});

/** Two clients on one scope, each opening its own Redis connection (as two servers would). */
async function twoServers(latencyMs: number): Promise<{ clients: GatewayClient[]; source: string }> {
  const scope = uniqueScope('fleetkeys');
  const source = fixture.source('fleetkeys', { latencyMs });
  const env = {
    PGW_LIMITER_BACKEND: 'redis',
    PGW_CACHE_BACKEND: 'none',
    REDIS_URL,
    ...scopeKeys(scope, { SOURCES: source, QUOTA_FULL: 'fail_fast' }),
    ...fixture.sourceKeys(scope, source),
  };
  for (let i = 0; i < 2; i++) opened.push(await GatewayClient.fromEnv(scope, { env, warn: () => {} }));
  return { clients: [...opened], source };
}

/** `PER_CLIENT` calls from each client at once, with `key`: how many were served and how many refused at the key's gate. */
async function flood(clients: GatewayClient[], key: KeyBounds, gate: string): Promise<{ served: number; refused: number; calls: Promise<unknown>[] }> {
  let served = 0;
  let refused = 0;
  const calls = clients.flatMap((client) =>
    Array.from({ length: PER_CLIENT }, (_, index) =>
      client.chat([{ role: 'user', content: `call ${index}` }], { tenantId: 'acme', key }).then(
        () => void (served += 1),
        (error: unknown) => {
          if (!(error instanceof GatewayUnavailableError) || error.reason !== 'tenant_quota_full' || !error.message.includes(gate)) throw error;
          refused += 1;
        },
      ),
    ),
  );
  return {
    calls,
    get served() {
      return served;
    },
    get refused() {
      return refused;
    },
  };
}

it('two servers sharing Redis hold one key’s concurrency exactly, and free it once each call ends', { timeout: 60_000 }, async () => {
  // Held 5 s upstream: far longer than the refusals take, so every other call meets the 3 in flight.
  const { clients, source } = await twoServers(5_000);
  const key: KeyBounds = { id: 'key_fleet_conc', rpm: 0, tpm: 0, maxConcurrency: 3 };
  const run = await flood(clients, key, 'key_concurrency');
  await fixture.inflight(source, 3);
  expect(await clients[0]!.keyStatus(key)).toMatchObject({ inflight: 3 });
  expect(await clients[1]!.keyStatus(key)).toMatchObject({ inflight: 3 });
  await Promise.all(run.calls);
  expect(run.served).toBe(3);
  expect(run.refused).toBe(2 * PER_CLIENT - 3);
  expect(fixture.mock.counters(source).chat).toBe(3);
  expect(await clients[1]!.keyStatus(key)).toMatchObject({ inflight: 0, rpmUsed: 3 });
});

it('two servers sharing Redis hold one key’s RPM exactly', { timeout: 60_000 }, async () => {
  const { clients, source } = await twoServers(5);
  const key: KeyBounds = { id: 'key_fleet_rpm', rpm: 7, tpm: 0, maxConcurrency: 0 };
  const run = await flood(clients, key, 'key_rpm');
  await Promise.all(run.calls);
  expect(run.served).toBe(7);
  expect(run.refused).toBe(2 * PER_CLIENT - 7);
  expect(fixture.mock.counters(source).chat).toBe(7);
  expect(await clients[0]!.keyStatus(key)).toMatchObject({ rpmUsed: 7, inflight: 0 });
});
