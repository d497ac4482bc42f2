/**
 * A Sentinel connection's two ways to get stuck, made deterministic with a frozen sentinel (SIGSTOP)
 * on processes of this file's own (ports 7340–7344): a sentinel that stops answering, and a
 * failover announced (`+switch-master`) while the connection is still asking a sentinel for the
 * primary — where ioredis alone ends the connection for good (ioredis#1683).
 */
import { once } from 'node:events';
import { createRedisConnection, createRedisSentinel } from '@pgw/backend-redis';
import { afterEach, describe, it } from 'vitest';
import { startSentinelGroup, until, type PrivateSentinelGroup } from '../src/index.js';

const PORTS = [7340, 7341, 7342, 7343, 7344];
const [, REPLICA_PORT, ...SENTINEL_PORTS] = PORTS as [number, number, number, number, number];
const SECOND_SENTINEL_PORT = SENTINEL_PORTS[1]!;

const cleanups: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup().catch(() => undefined);
});

async function group(): Promise<PrivateSentinelGroup> {
  const started = await startSentinelGroup(PORTS);
  cleanups.push(() => started.stop());
  return started;
}

function sentinelConnection(started: PrivateSentinelGroup) {
  const redis = createRedisSentinel(started.sentinels.split(','), { masterName: started.masterName });
  cleanups.push(async () => redis.disconnect());
  return redis;
}

/** An admin connection to one node, once it is ready. */
async function adminOf(port: number) {
  const redis = createRedisConnection(`redis://127.0.0.1:${port}`);
  cleanups.push(async () => redis.disconnect());
  if (redis.status !== 'ready') await once(redis, 'ready');
  return redis;
}

/** The port of the data node the connection talks to, or undefined while it cannot answer. */
async function servingPort(redis: ReturnType<typeof createRedisSentinel>): Promise<number | undefined> {
  const info = await redis.info('server').catch(() => undefined);
  const port = info?.match(/^tcp_port:(\d+)/m)?.[1];
  return port === undefined ? undefined : Number(port);
}

describe('a Sentinel connection', () => {
  it('connects through the next sentinel when the first one is frozen', async () => {
    const started = await group();
    started.sentinelNodes[0]!.freeze();
    const redis = sentinelConnection(started);
    await until('an answer through a sentinel that answers', async () => (await servingPort(redis)) === PORTS[0], 15_000);
  });

  it('follows a failover announced while it asks a frozen sentinel for the primary', async () => {
    const started = await group();
    const redis = sentinelConnection(started);
    await until('connected to the primary', async () => (await servingPort(redis)) === PORTS[0]);
    let ended = 0;
    redis.on('end', () => (ended += 1));

    // The sentinel that answered is asked first on a reconnect: frozen, it holds the reconnect.
    started.sentinelNodes[0]!.freeze();
    const primary = await adminOf(PORTS[0]!);
    await primary.call('CLIENT', 'KILL', 'TYPE', 'normal');
    await until('reconnecting', async () => redis.status === 'connecting');

    // Another sentinel promotes the replica and announces it while the reconnect still waits.
    const sentinel = await adminOf(SECOND_SENTINEL_PORT);
    await sentinel.call('SENTINEL', 'FAILOVER', started.masterName);

    await until('an answer from the promoted replica', async () => (await servingPort(redis)) === REPLICA_PORT, 20_000);
    // Each sentinel announces the promotion when it learns it; one that announces after the
    // connection moved moves it once more. The write is proved after the last one, not raced against it.
    const answering = await Promise.all(SENTINEL_PORTS.slice(1).map(adminOf));
    await until('every answering sentinel names the promoted replica', async () => {
      const named = await Promise.all(answering.map((node) => node.call('SENTINEL', 'GET-MASTER-ADDR-BY-NAME', started.masterName)));
      return named.every((address) => (address as string[])[1] === String(REPLICA_PORT));
    });
    // The demoted primary answers writes with READONLY: a write that succeeds is on the promoted one.
    await until('a write on the promoted replica', async () => (await redis.set('after-failover', '1').catch(() => undefined)) === 'OK');
    console.log(`[figure] Sentinel failover during a reconnect: ioredis ended the connection ${ended} time(s); revived`);
  });
});
