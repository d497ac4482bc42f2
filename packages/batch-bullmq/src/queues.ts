/**
 * The queues of the fleet engine: one BullMQ queue per job on Redis, its entries the job's items to
 * run, held by the worker that took them while its lock is extended. Every key carries the hash tag
 * `{pgw-batch}`, so a Redis Cluster keeps a queue in one slot; a cluster client is the queues' own.
 */
import { createHash, randomUUID } from 'node:crypto';
import { Queue, Worker, type ConnectionOptions, type Job } from 'bullmq';
import { Cluster } from 'ioredis';
import type { BatchItem } from '@pgw/core';

export const BULLMQ_PREFIX = '{pgw-batch}';

/** An item as its queue entry carries it: the attempt it is queued for. */
export interface QueuedItem extends BatchItem {
  attempt: number;
}

export interface JobQueuesOptions {
  redisUrl: string;
  redisMode?: 'standalone' | 'cluster';
  lockDurationMs: number;
  stalledIntervalMs: number;
}

interface Held {
  entry: Job<QueuedItem>;
  token: string;
}

interface JobQueue {
  queue: Queue<QueuedItem>;
  worker: Worker<QueuedItem>;
  cluster?: Cluster;
}

/** A queue entry's id: the item's attempt and a digest of its custom_id (any text), so an item is queued once per attempt. */
const entryId = (customId: string, attempt: number) => `a${attempt}_${createHash('sha256').update(customId).digest('hex').slice(0, 32)}`;
const heldKey = (job: string, customId: string) => `${job}\0${customId}`;

export class JobQueues {
  readonly #options: JobQueuesOptions;
  readonly #queues = new Map<string, JobQueue>();
  readonly #held = new Map<string, Held>();
  #lockTimer: NodeJS.Timeout | undefined;

  constructor(options: JobQueuesOptions) {
    this.#options = options;
  }

  #queueOf(job: string): JobQueue {
    let pair = this.#queues.get(job);
    if (pair === undefined) {
      // A cluster client is the queues' to close (BullMQ closes only the connections it made).
      const cluster = this.#options.redisMode === 'cluster' ? clusterClient(this.#options.redisUrl) : undefined;
      const connection: ConnectionOptions = cluster ?? { url: this.#options.redisUrl, maxRetriesPerRequest: null };
      const options = { connection, prefix: BULLMQ_PREFIX };
      const queue = new Queue<QueuedItem>(job, options);
      // No processor: entries are taken by `take`, so the runner keeps its loops, budget and signal.
      const worker = new Worker<QueuedItem>(job, null, { ...options, lockDuration: this.#options.lockDurationMs, stalledInterval: this.#options.stalledIntervalMs, maxStalledCount: 1_000_000 });
      void worker.startStalledCheckTimer().catch(() => undefined);
      pair = { queue, worker, ...(cluster !== undefined && { cluster }) };
      this.#queues.set(job, pair);
    }
    return pair;
  }

  /** Queues the items; an entry already queued, running or stalled for the same attempt is not added twice. */
  async add(job: string, items: readonly QueuedItem[]): Promise<void> {
    const { queue } = this.#queueOf(job);
    for (let at = 0; at < items.length; at += 500) {
      await queue.addBulk(items.slice(at, at + 500).map((item) => ({ name: 'item', data: item, opts: { jobId: entryId(item.customId, item.attempt), removeOnComplete: true } })));
    }
  }

  /** The next waiting entry (or a stalled one put back), now held by this worker; undefined when none waits. */
  async take(job: string): Promise<QueuedItem | undefined> {
    const token = randomUUID();
    const entry = (await this.#queueOf(job).worker.getNextJob(token, { block: false })) as Job<QueuedItem> | undefined;
    if (entry === undefined) return undefined;
    this.#held.set(heldKey(job, entry.data.customId), { entry, token });
    this.#lockTimer ??= setInterval(() => void this.#extendLocks(), Math.max(100, this.#options.lockDurationMs / 3));
    return entry.data;
  }

  /** The held entry is done: it leaves the queue. */
  async complete(job: string, customId: string): Promise<void> {
    const held = this.#letGo(job, customId);
    await held?.entry.moveToCompleted(null, held.token, false).catch(() => undefined);
  }

  /** The held entry goes back to waiting, for any worker to take. */
  async putBack(job: string, customId: string): Promise<void> {
    const held = this.#letGo(job, customId);
    await held?.entry.moveToWait(held.token).catch(() => undefined);
  }

  /** How many of the job's entries some worker holds. */
  running(job: string): Promise<number> {
    return this.#queueOf(job).queue.getActiveCount();
  }

  #letGo(job: string, customId: string): Held | undefined {
    const key = heldKey(job, customId);
    const held = this.#held.get(key);
    this.#held.delete(key);
    if (this.#held.size === 0) {
      clearInterval(this.#lockTimer);
      this.#lockTimer = undefined;
    }
    return held;
  }

  async #extendLocks(): Promise<void> {
    await Promise.all([...this.#held.values()].map(({ entry, token }) => entry.extendLock(token, this.#options.lockDurationMs).catch(() => undefined)));
  }

  async close(): Promise<void> {
    clearInterval(this.#lockTimer);
    this.#lockTimer = undefined;
    for (const { queue, worker, cluster } of this.#queues.values()) {
      await worker.close().catch(() => undefined);
      await queue.close().catch(() => undefined);
      await cluster?.quit().catch(() => cluster.disconnect());
    }
    this.#queues.clear();
  }
}

/** A Redis Cluster client on the seeds of `redisUrl` (one URL or a comma-separated list); the first seed's credentials and TLS apply to all. */
function clusterClient(redisUrl: string): Cluster {
  const seeds = redisUrl.split(',').map((seed) => new URL(seed.trim()));
  const first = seeds[0]!;
  return new Cluster(
    seeds.map((url) => ({ host: url.hostname, port: Number(url.port || 6379) })),
    {
      redisOptions: {
        maxRetriesPerRequest: null,
        ...(first.username !== '' && { username: decodeURIComponent(first.username) }),
        ...(first.password !== '' && { password: decodeURIComponent(first.password) }),
        ...(first.protocol === 'rediss:' && { tls: {} }),
      },
    },
  );
}
