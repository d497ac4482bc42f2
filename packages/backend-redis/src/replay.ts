import type { RedisClient } from './connection.js';

/** Write-backs kept per connection, at most; beyond, the oldest is dropped (its lease still expires). */
export const MAX_KEPT_WRITE_BACKS = 10_000;
/** When the connection stayed up (a lost reply, a frozen server), kept write-backs are retried this often. */
const RETRY_MS = 1_000;

const queues = new WeakMap<RedisClient, WriteBackReplay>();

/**
 * Settles, releases and departures from the fleet's line that failed (Redis down, restarting,
 * frozen, a Cluster or Sentinel failover under way), kept and replayed once the
 * connection is ready again, so a restarted persistent Redis gets its quota back within the reconnect
 * time instead of the lease TTL. Every replayed script is idempotent (a settle applies once, a
 * release removes a lease once), so replaying one that did land changes nothing. One queue per
 * connection, shared by all backends on it; it listens to the connection only while it holds
 * something and arms its retry timer only while the connection is up.
 */
export class WriteBackReplay {
  readonly #redis: RedisClient;
  readonly #kept = new Map<string, () => Promise<unknown>>();
  #dropped = 0;
  #timer: NodeJS.Timeout | undefined;
  #replaying = false;
  readonly #onReady = (): void => void this.#replay();

  private constructor(redis: RedisClient) {
    this.#redis = redis;
  }

  static of(redis: RedisClient): WriteBackReplay {
    let replay = queues.get(redis);
    if (replay === undefined) {
      replay = new WriteBackReplay(redis);
      queues.set(redis, replay);
    }
    return replay;
  }

  /** Write-backs waiting for a replay, and how many were dropped past the bound. */
  get stats(): { kept: number; dropped: number } {
    return { kept: this.#kept.size, dropped: this.#dropped };
  }

  /** Keeps `write` (idempotent) under `key`; a later write-back under the same key replaces it. */
  keep(key: string, write: () => Promise<unknown>): void {
    if (!this.#kept.has(key) && this.#kept.size >= MAX_KEPT_WRITE_BACKS) {
      const oldest = this.#kept.keys().next().value as string;
      this.#kept.delete(oldest);
      this.#dropped += 1;
    }
    this.#kept.set(key, write);
    if (this.#kept.size === 1) this.#redis.on('ready', this.#onReady);
    this.#armRetry();
  }

  /** Runs `write` (idempotent) now; if it fails it is kept under `key` for a replay, and the failure rethrown. */
  async attempt(key: string, write: () => Promise<unknown>): Promise<void> {
    try {
      await write();
      this.done(key);
    } catch (error) {
      this.keep(key, write);
      throw error;
    }
  }

  /** A write-back that went through: nothing of it is left to replay. */
  done(key: string): void {
    if (this.#kept.delete(key)) this.#settleDown();
  }

  async #replay(): Promise<void> {
    if (this.#replaying) return;
    this.#replaying = true;
    try {
      for (const [key, write] of [...this.#kept]) {
        if (this.#redis.status !== 'ready') break;
        try {
          await write();
          if (this.#kept.get(key) === write) this.#kept.delete(key);
        } catch {
          // Kept: the next ready event (or retry) tries again.
        }
      }
    } finally {
      this.#replaying = false;
      this.#settleDown();
      this.#armRetry();
    }
  }

  /** While the connection is up no ready event will come: retry on a timer that never holds the process. */
  #armRetry(): void {
    if (this.#timer !== undefined || this.#kept.size === 0 || this.#redis.status !== 'ready') return;
    this.#timer = setTimeout(() => {
      this.#timer = undefined;
      void this.#replay();
    }, RETRY_MS);
    this.#timer.unref();
  }

  #settleDown(): void {
    if (this.#kept.size > 0) return;
    this.#redis.off('ready', this.#onReady);
    clearTimeout(this.#timer);
    this.#timer = undefined;
  }
}
