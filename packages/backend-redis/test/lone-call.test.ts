/**
 * What a lone call costs Redis in commands (concurrency 1: one item per script call, nothing to
 * share a read or a write with). A private redis-server watched with MONITOR, so every command
 * counted is the call's.
 */
import { afterEach, expect, it } from 'vitest';
import { Redis } from 'ioredis';
import { startPrivateRedis, TEST_BREAKER_POLICY, UNLIMITED, type PrivateRedis } from '@pgw/testkit';
import { RedisGovernor } from '../src/index.js';
import { keysWithTtl, uniqueScope } from './redis.js';

const cleanups: (() => Promise<unknown> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function watched(): Promise<{ redis: Redis; commands: (during: () => Promise<void>) => Promise<string[][]> }> {
  const server: PrivateRedis = await startPrivateRedis();
  cleanups.push(() => server.stop());
  const redis = new Redis(server.url);
  const watcher = new Redis(server.url);
  cleanups.push(() => redis.disconnect(), () => watcher.disconnect());
  const monitor = await watcher.monitor();
  cleanups.push(() => monitor.disconnect());
  const seen: string[][] = [];
  monitor.on('monitor', (_time: string, args: string[]) => seen.push(args));
  return {
    redis,
    commands: async (during) => {
      await during();
      // MONITOR reports in order: once it shows this marker, it has shown everything before it.
      const marker = `end-${Math.random()}`;
      const shown = new Promise<void>((resolve) => monitor.on('monitor', (_time: string, args: string[]) => args[1] === marker && resolve()));
      await redis.echo(marker);
      await shown;
      const at = seen.findIndex((args) => args[1] === marker);
      return seen.splice(0).slice(0, at).filter((args) => !/^eval/i.test(args[0]!));
    },
  };
}

it('a lone call refreshes only the TTL a key lacks, and reads the line once per script', async () => {
  const { redis, commands } = await watched();
  const scope = uniqueScope('lone');
  const governor = new RedisGovernor({ redis, scope, sources: { a: { rpm: 1_000, tpm: 0, maxConcurrency: 10 } }, global: UNLIMITED, leaseTtlMs: 30_000, policy: TEST_BREAKER_POLICY });
  cleanups.push(() => governor.close());
  const lonePair = async () => {
    const admission = await governor.admit('a', 100);
    if (!admission.ok) throw new Error(`refused: ${JSON.stringify(admission)}`);
    await admission.finish('success', 80);
  };
  await commands(lonePair); // the scope's books made, each with its TTL

  const run = await commands(lonePair);
  const named = (name: string) => run.filter((args) => args[0]!.toLowerCase() === name);
  // The first call's finish emptied the source's lease set (Redis drops an empty zset): it alone is new.
  expect(named('pexpire').map((args) => args[1])).toEqual([`pgw:{${scope}}:lim:s:a:lease`]);
  const line = new Set([`pgw:{${scope}}:line`, `pgw:{${scope}}:line:b`]);
  expect(run.filter((args) => args.slice(1).some((arg) => line.has(arg))).map((args) => args[0]!.toLowerCase())).toEqual(['exists', 'exists']);

  for (const [key, ttl] of await keysWithTtl(redis, `pgw:{${scope}}:*`)) expect(ttl, key).toBeGreaterThan(0);
});
