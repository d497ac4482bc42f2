import { randomUUID } from 'node:crypto';
import { expect, it } from 'vitest';
import { SettingsError, openRecordStore } from '../src/index.js';
import { REDIS_URL } from './helpers/e2e.js';

const SEEDS = process.env['PGW_TEST_REDIS_CLUSTER'] ?? 'redis://127.0.0.1:7001';

it('keeps the records in this process on the memory governance backend', async () => {
  const one = await openRecordStore({ env: {}, namespace: 'test' });
  const other = await openRecordStore({ env: {}, namespace: 'test' });
  await one.set('k', 'v', 60_000);
  expect(await one.get('k')).toBe('v');
  expect(await other.get('k')).toBeUndefined();
});

it.each([
  ['standalone', { REDIS_URL }],
  ['cluster', { REDIS_URL: SEEDS, PGW_REDIS_MODE: 'cluster' }],
])('on the Redis governance backend (%s) every store of the namespace reads what another wrote', async (_mode, env) => {
  const namespace = `test-${randomUUID()}`;
  const stores = await Promise.all([1, 2].map(() => openRecordStore({ env: { PGW_LIMITER_BACKEND: 'redis', ...env }, namespace })));
  try {
    await stores[0]!.set('resp/tenant/1', 'kept', 60_000);
    expect(await stores[1]!.get('resp/tenant/1')).toBe('kept');
    expect(await stores[1]!.delete('resp/tenant/1')).toBe(true);
    expect(await stores[0]!.get('resp/tenant/1')).toBeUndefined();
    const isolated = await openRecordStore({ env: { PGW_LIMITER_BACKEND: 'redis', ...env }, namespace: `${namespace}-other` });
    await stores[0]!.set('k', 'v', 60_000);
    expect(await isolated.get('k')).toBeUndefined();
    await isolated.close?.();
  } finally {
    await Promise.all(stores.map((store) => store.close?.()));
  }
});

it.each([
  [{ PGW_LIMITER_BACKEND: 'redis' }, 'REDIS_URL', /required: the governance backend is redis/],
  [{ PGW_LIMITER_BACKEND: 'disk' }, 'PGW_LIMITER_BACKEND', /one of memory \| redis/],
  [{ PGW_LIMITER_BACKEND: 'redis', REDIS_URL: 'redis://a:1,redis://b:2' }, 'REDIS_URL', /PGW_REDIS_MODE=cluster/],
  [{ PGW_LIMITER_BACKEND: 'redis', REDIS_URL, PGW_REDIS_MODE: 'sentinel' }, 'PGW_REDIS_SENTINEL_MASTER', /master name/],
])('a bad backend key is a SettingsError naming it (%j)', async (env, key, problem) => {
  const error = await openRecordStore({ env, namespace: 'test' }).catch((caught: unknown) => caught);
  expect(error).toBeInstanceOf(SettingsError);
  expect((error as SettingsError).key).toBe(key);
  expect((error as SettingsError).message).toMatch(problem);
});
