/**
 * The batch store contract of @pgw/testkit, which the sqlite engine runs too (sqlite-engine.test.ts), on the bullmq engine: the shared Redis, PostgreSQL in a schema of this file's own
 * (dropped after), the contract's queues removed.
 */
import { BullmqBatchEngine } from '@pgw/batch-bullmq';
import { batchStoreContract } from '@pgw/testkit';
import { PG_DSN, removeTestJob, testJobNames } from './bullmq-cleanup.js';

const REDIS_URL = process.env['REDIS_URL'] ?? 'redis://127.0.0.1:6379';
const { schema } = testJobNames('contract');

batchStoreContract('bullmq', {
  open: async () => new BullmqBatchEngine({ redisUrl: REDIS_URL, dsn: PG_DSN, schema, pollMs: 20 }),
  removeJobs: async (jobs) => {
    for (const job of jobs) await removeTestJob({ job, connection: { url: REDIS_URL }, dsn: PG_DSN, schema });
  },
});
