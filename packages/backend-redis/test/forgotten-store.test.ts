/**
 * Nothing lost across a restart without persistence: a worker re-books what it holds (leases of
 * calls in flight, probe leases, its admissions in the RPM/TPM windows) into a store that forgot
 * them before it admits anything new. A private redis-server without persistence, SIGKILLed and
 * restarted empty on the same port; an injected clock so windows and cooldowns are exact.
 */
import { once } from 'node:events';
import { afterAll, afterEach, expect, it } from 'vitest';
import { FakeClock, startPrivateRedis, TEST_BREAKER_POLICY, UNLIMITED, type PrivateRedis } from '@pgw/testkit';
import type { Caller, Lease } from '@pgw/core';
import type { Redis } from 'ioredis';
import { RedisGovernor, type RedisGovernorOptions } from '../src/index.js';
import { connectionPool, uniqueScope } from './redis.js';

const pool = connectionPool();
const servers: PrivateRedis[] = [];
const governors: RedisGovernor[] = [];
afterEach(async () => {
  for (const governor of governors.splice(0)) await governor.close();
  for (const server of servers.splice(0)) await server.stop();
});
afterAll(() => pool.closeAll());

async function server(port?: number): Promise<PrivateRedis> {
  const started = await startPrivateRedis(port);
  servers.push(started);
  return started;
}

function governor(redis: Redis, options: Partial<RedisGovernorOptions> & Pick<RedisGovernorOptions, 'scope' | 'sources'>): RedisGovernor {
  const made = new RedisGovernor({ redis, global: UNLIMITED, leaseTtlMs: 30_000, policy: TEST_BREAKER_POLICY, ...options });
  governors.push(made);
  return made;
}

/** Kills `first` and starts an empty redis-server on its port; resolves once `redis` is connected to it. */
async function restartEmpty(first: PrivateRedis, redis: Redis): Promise<void> {
  const port = Number(new URL(first.url).port);
  await first.stop();
  if (redis.status === 'ready') await once(redis, 'close');
  await server(port);
  if (redis.status !== 'ready') await once(redis, 'ready');
}

async function admitted(governor: RedisGovernor, tokens: number) {
  const admission = await governor.admit('a', tokens);
  if (!admission.ok) throw new Error(`expected an admission, got ${JSON.stringify(admission)}`);
  return admission;
}

it('re-books the leases in flight and the window entries before admitting anything new', async () => {
  const clock = new FakeClock();
  const first = await server();
  const redis = pool.open(first.url);
  const scope = uniqueScope('forgotten');
  const g = governor(redis, { scope, sources: { a: { rpm: 3, tpm: 0, maxConcurrency: 2 } }, now: clock.now });
  const held = await admitted(g, 100);
  const done = await admitted(g, 100);
  await done.finish('success', 80);

  await restartEmpty(first, redis);
  const third = await admitted(g, 100);
  // Three admissions in the window (RPM 3), two leases (the held call's and the third's).
  expect(await g.admit('a', 100)).toMatchObject({ ok: false, gate: 'source_rpm' });
  expect(await g.limiter.sourceStats('a')).toEqual({ inflight: 2, rpmUsed: 3, tpmUsed: 100 + 80 + 100 });

  await held.finish('success', 50);
  await third.finish('success', 50);
  expect(await g.limiter.sourceStats('a')).toEqual({ inflight: 0, rpmUsed: 3, tpmUsed: 50 + 80 + 50 });
  clock.advance(60_000); // the window has passed: nothing of it is re-booked again
  expect((await admitted(g, 1)).ok).toBe(true);
});

it('re-books a tenant’s and the batch class’s books: no tenant is admitted beyond its bound after a restart, and admissions fail closed while the store is down', async () => {
  const clock = new FakeClock();
  const first = await server();
  const redis = pool.open(first.url);
  const tenants = { bounds: { rpm: 3, tpm: 0, maxConcurrency: 2 }, tenants: {}, batchShare: 0.5 };
  const g = governor(redis, { scope: uniqueScope('forgotten'), sources: { a: UNLIMITED }, global: { ...UNLIMITED, maxConcurrency: 6 }, tenants, now: clock.now });
  const x = { tenantId: 'x', priority: 'interactive' } as const;
  const y = { tenantId: 'y', priority: 'batch' } as const;
  const batchOfZ = { tenantId: 'z', priority: 'batch' } as const;
  const admit = (caller: Caller, turn?: string) => g.admit('a', 100, turn, undefined, caller);
  // Five leases: x's two and y's two (their bound), and z's batch call (the batch class's 3 of the scope's 6 full).
  const held = [await admit(x), await admit(x), await admit(y), await admit(y), await admit(batchOfZ)];
  expect(held.map((answer) => answer.ok)).toEqual([true, true, true, true, true]);

  const port = Number(new URL(first.url).port);
  await first.stop();
  await expect(admit(x, 'x-waiting')).rejects.toMatchObject({ name: 'GovernanceBackendError' });
  await expect(admit(y, 'waiting')).rejects.toMatchObject({ name: 'GovernanceBackendError' });
  await server(port);
  if (redis.status !== 'ready') await once(redis, 'ready');

  expect(await admit(x)).toMatchObject({ ok: false, gate: 'tenant_concurrency' });
  expect(await g.tenantStatus('x')).toMatchObject({ rpm: { used: 2, bound: 3 }, concurrency: { used: 2, bound: 2 } });
  expect(await admit(y)).toMatchObject({ ok: false, gate: 'tenant_concurrency' });
  expect(await admit({ tenantId: 'w', priority: 'batch' })).toMatchObject({ ok: false, gate: 'batch_concurrency' });
  expect((await admit({ tenantId: 'w', priority: 'interactive' })).ok).toBe(true);
  expect(await admit({ tenantId: 'v', priority: 'interactive' })).toMatchObject({ ok: false, gate: 'global_concurrency' });
});

it('re-books a stored key’s books: no key is admitted beyond its bound after a restart', async () => {
  const clock = new FakeClock();
  const first = await server();
  const redis = pool.open(first.url);
  const g = governor(redis, { scope: uniqueScope('forgotten'), sources: { a: UNLIMITED }, now: clock.now });
  const key = { id: 'key_restart', rpm: 3, tpm: 0, maxConcurrency: 2 };
  const caller: Caller = { tenantId: 'acme', priority: 'interactive', key };
  const admit = () => g.admit('a', 100, undefined, undefined, caller);
  const held = [await admit(), await admit()];
  expect(held.map((answer) => answer.ok)).toEqual([true, true]);

  await restartEmpty(first, redis);
  expect(await admit()).toMatchObject({ ok: false, gate: 'key_concurrency' });
  expect(await g.keyStatus(key)).toEqual({ rpmUsed: 2, tpmUsed: 200, inflight: 2, spentUsd: 0 });
  await (held[0] as Lease).finish('success', 40);
  expect((await admit()).ok).toBe(true);
  expect(await admit()).toMatchObject({ ok: false, gate: 'key_rpm' });
});

it('re-books the batch class’s share of a source: no batch call is admitted beyond it after a restart', async () => {
  const first = await server();
  const redis = pool.open(first.url);
  const g = governor(redis, { scope: uniqueScope('forgotten'), sources: { a: { ...UNLIMITED, maxConcurrency: 4 } }, tenants: { bounds: UNLIMITED, tenants: {}, batchShare: 0.5 } });
  const batch = { tenantId: 'x', priority: 'batch' } as const;
  const admit = (caller: Caller) => g.admit('a', 100, undefined, undefined, caller);
  expect([(await admit(batch)).ok, (await admit(batch)).ok]).toEqual([true, true]);
  await restartEmpty(first, redis);
  expect(await admit(batch)).toMatchObject({ ok: false, gate: 'batch_concurrency' });
  expect((await admit({ tenantId: 'x', priority: 'interactive' })).ok).toBe(true);
});

it('a worker that only holds calls is re-booked on reconnecting, before another worker admits', async () => {
  const first = await server();
  const holderConnection = pool.open(first.url);
  const scope = uniqueScope('forgotten');
  const sources = { a: { ...UNLIMITED, maxConcurrency: 2 } };
  const holder = governor(holderConnection, { scope, sources });
  await admitted(holder, 1);
  await admitted(holder, 1);

  await restartEmpty(first, holderConnection);
  await expect.poll(() => holder.limiter.sourceStats('a'), { timeout: 10_000 }).toMatchObject({ inflight: 2 });
  const other = governor(pool.open(first.url), { scope, sources });
  expect(await other.admit('a', 1)).toMatchObject({ ok: false, gate: 'source_concurrency' });
});

/** A governor on a fresh server whose breaker tripped and cooled down, and the probe lease it then took. */
async function probeHeld() {
  const clock = new FakeClock();
  const first = await server();
  const redis = pool.open(first.url);
  const scope = uniqueScope('forgotten');
  // An RPM limit: finished admissions stay held (in the window), the probe's among them.
  const sources = { a: { rpm: 100, tpm: 0, maxConcurrency: 5 } };
  const g = governor(redis, { scope, sources, now: clock.now });
  await (await admitted(g, 1)).finish('dead', 1); // a dead source trips the breaker at once
  clock.advance(TEST_BREAKER_POLICY.cooldownMs);
  const probe = await admitted(g, 1);
  expect(probe.transition).toMatchObject({ from: 'open', to: 'half_open' }); // it holds the probe lease
  return { clock, first, redis, scope, sources, g, probe };
}

it('re-books a probe lease: the breaker stays half-open with the probe held by its holder', async () => {
  const { clock, first, redis, scope, sources, g, probe } = await probeHeld();

  await restartEmpty(first, redis);
  await expect.poll(() => g.breaker.snapshot('a'), { timeout: 10_000 }).toMatchObject({ state: 'half_open', probeHeld: true });
  const other = governor(pool.open(first.url), { scope, sources, now: clock.now });
  expect(await other.admit('a', 1)).toMatchObject({ ok: false, refusal: { state: 'half_open' } });
  await probe.finish('success', 1);
  expect(await g.breaker.snapshot('a')).toMatchObject({ state: 'closed' });
  expect((await admitted(other, 1)).ok).toBe(true);

  // A probe that finished is not re-booked: a second restart leaves the breaker closed.
  await restartEmpty(servers.at(-1)!, redis);
  await admitted(g, 1);
  expect(await g.breaker.snapshot('a')).toMatchObject({ state: 'closed', probeHeld: false });
});

it('a re-booked probe lease keeps its open→half_open reported: the probe after it, once it is given back, reports none', async () => {
  const { first, redis, g, probe } = await probeHeld();

  await restartEmpty(first, redis);
  await expect.poll(() => g.breaker.snapshot('a'), { timeout: 10_000 }).toMatchObject({ state: 'half_open', probeHeld: true });
  await probe.finish(undefined, 1); // given back without a verdict (a cancelled probe)
  const successor = await admitted(g, 1);
  expect(successor.transition).toBeUndefined();
  expect(await successor.finish('success', 1)).toMatchObject({ from: 'half_open', to: 'closed' });
});

it('a store that kept its books (no restart) is not re-booked: the epoch is still there', async () => {
  const first = await server();
  const redis = pool.open(first.url);
  const scope = uniqueScope('kept');
  const g = governor(redis, { scope, sources: { a: { rpm: 0, tpm: 0, maxConcurrency: 1 } } });
  const held = await admitted(g, 1);
  redis.disconnect(true); // a reconnection to the same, unchanged store
  await once(redis, 'ready');
  await held.finish('success', 1);
  expect((await g.limiter.sourceStats('a')).inflight).toBe(0);
  expect((await admitted(g, 1)).ok).toBe(true);
});
