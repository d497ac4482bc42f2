/**
 * The record store of a program built on the clients (the server's stored responses), kept where the
 * governance is: in memory, or on the Redis of PGW_LIMITER_BACKEND=redis (REDIS_URL, PGW_REDIS_MODE)
 * so every process of a fleet reads what any of them wrote.
 */
import { InMemoryRecordStore } from '@pgw/backend-memory';
import type { Clock, RecordStore } from '@pgw/core';
import { z } from 'zod';
import { validate } from '../settings/construct.js';
import { redisIssues } from '../settings/cross-field-rules.js';
import { ASSEMBLY_KEYS } from '../settings/env-keys.js';
import { EnvReader, mergedEnv, type EnvRecord } from '../settings/load-env.js';
import { backendsFields } from '../settings/schema.js';
import { connectRedis } from './redis-connection.js';
import { OwnedResources } from './owned-resources.js';

export interface RecordStoreOptions {
  /** Where the backend keys are read; default `process.env`. */
  env?: EnvRecord;
  /** Isolates these records from any other program's on the same Redis. */
  namespace: string;
  /** Test seam: the store's clock. */
  now?: Clock;
}

const READ = new Set(['limiter', 'redisMode', 'redisUrl', 'redisSentinelMaster']);
const schema = z.strictObject({
  backends: backendsFields
    .pick({ limiter: true, redisMode: true, redisUrl: true, redisSentinelMaster: true })
    .prefault({})
    .superRefine((backends, context) => {
      const issues = redisIssues(backends, backends.limiter === 'redis' ? 'the governance backend is redis (PGW_LIMITER_BACKEND)' : undefined);
      for (const { path, message } of issues) context.addIssue({ code: 'custom', path: path.slice(1), message });
    }),
});

/** Opens the store the backend keys name; its `close` closes the connection it opened. A bad key is a SettingsError naming it. */
export async function openRecordStore(options: RecordStoreOptions): Promise<RecordStore> {
  const reader = new EnvReader(mergedEnv({ env: options.env ?? process.env }));
  const input: Record<string, unknown> = {};
  for (const entry of ASSEMBLY_KEYS) if (READ.has(entry.field[1]!)) reader.readInto(input, entry.field, entry.key, entry.parse);
  const { backends } = validate(schema, input, reader.origins);
  const clock = options.now ? { now: options.now } : {};
  if (backends.limiter === 'memory') return new InMemoryRecordStore(clock);
  const owned = new OwnedResources();
  const { pkg, redis } = await connectRedis(backends, 'PGW_LIMITER_BACKEND=redis', owned);
  const store = new pkg.RedisRecordStore({ redis, namespace: options.namespace, ...clock });
  return {
    get: (key) => store.get(key),
    set: (key, value, ttlMs) => store.set(key, value, ttlMs),
    delete: (key) => store.delete(key),
    close: () => owned.close(),
  };
}
