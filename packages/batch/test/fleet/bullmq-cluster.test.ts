/**
 * The bullmq engine on Redis Cluster (`scripts/services.sh` starts one on ports 7001-7003;
 * `PGW_TEST_REDIS_CLUSTER` names its seeds): a small job completes, each custom_id once, because every
 * key of its queue carries the hash tag `{pgw-batch}` and so lives in one slot (multi-key scripts would
 * fail with CROSSSLOT otherwise). The queue's keys are removed when done.
 */
import { Cluster } from 'ioredis';
import { afterAll, expect, it } from 'vitest';
import { runBatch } from '../../src/index.js';
import { BullmqBatchEngine, BULLMQ_PREFIX } from '@pgw/batch-bullmq';
import { PG_DSN, removeTestJob, testJobNames } from './bullmq-cleanup.js';
import { chatClient, chatLines, mockSource, useMock } from '../helpers.js';

const fixture = useMock();
const SEEDS = process.env['PGW_TEST_REDIS_CLUSTER'] ?? 'redis://127.0.0.1:7001,redis://127.0.0.1:7002,redis://127.0.0.1:7003';
const { job, schema } = testJobNames('cluster');
const ITEMS = 8;
const nodes = SEEDS.split(',').map((seed) => ({ host: new URL(seed).hostname, port: Number(new URL(seed).port) }));

afterAll(async () => {
  const cluster = new Cluster(nodes, { redisOptions: { maxRetriesPerRequest: null } });
  try {
    await removeTestJob({ job, connection: cluster, dsn: PG_DSN, schema });
  } finally {
    await cluster.quit();
  }
});

it('runs a job on the cluster to completion, its queue keys in the slot of {pgw-batch}', { timeout: 60_000 }, async () => {
  const source = mockSource(fixture.mock, 'cluster');
  const client = await chatClient(fixture.mock, source);
  const engine = new BullmqBatchEngine({ redisUrl: SEEDS, redisMode: 'cluster', dsn: PG_DSN, schema, pollMs: 20 });
  try {
    const summary = await runBatch(client, chatLines(ITEMS), { engine, job, concurrency: 3 });
    expect(summary).toMatchObject({ status: 'completed', total: ITEMS, done: ITEMS, failed: 0 });
    const ids = (await engine.results(job)).map((result) => result.customId);
    expect(new Set(ids).size).toBe(ITEMS);
    expect(ids).toHaveLength(ITEMS);
    expect(fixture.mock.counters(source).chat).toBe(ITEMS);
    // The queue's keys exist, all in the one slot of the hash tag.
    const cluster = new Cluster(nodes);
    try {
      await new Promise((resolve) => cluster.once('ready', resolve));
      const slot = await cluster.cluster('KEYSLOT', BULLMQ_PREFIX);
      const keys = (await Promise.all(cluster.nodes('master').map((node) => node.keys(`${BULLMQ_PREFIX}:${job}:*`)))).flat();
      expect(keys.length).toBeGreaterThan(0);
      const slots = await Promise.all(keys.map((key) => cluster.cluster('KEYSLOT', key)));
      expect(new Set(slots)).toEqual(new Set([slot]));
    } finally {
      await cluster.quit();
    }
  } finally {
    await Promise.all([engine.close(), client.close()]);
  }
});
