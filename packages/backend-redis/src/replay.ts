import type { RedisClient } from './connection.js';

/** Write-backs kept per connection, at most; beyond, the oldest is dropped (its lease still expires). */
export const MAX_KEPT_WRITE_BACKS = 10_000;
/** When the connection stayed up (a lost reply, a frozen server), kept write-backs are retried this often. */
const RETRY_MS = 1_000;
/**
 * A write-back that landed this shortly before the connection dropped may be lost with the server:
 * not yet sent to the replica a failover promotes, or not yet fsynced by an AOF `everysec` store.
 */
export const RECENT_MS = 2_000;

const queues = new WeakMap<RedisClient, WriteBackReplay>();

/**
 * Settles, releases and departures from the fleet's line that failed (Redis down, restarting,
 * frozen, a Cluster or Sentinel failover under way), kept and replayed once the
 * connection is ready again, so a restarted persistent Redis gets its quota back within the reconnect
 * time instead of the lease TTL. Every replayed script is idempotent (a settle applies once, a
 * release removes a lease once), so replaying one that did land changes nothing. One queue per
 * connection, shared by all backends on it; it listens to the connection only while it holds
 * something and arms its retry timer only while the connection is up. The write-backs that landed
 * within RECENT_MS of the connection dropping (and some up to twice that) are kept for the replay too.
 */
export class WriteBackReplay {
  readonly #redis: RedisClient;
  readonly #kept = new Map<string, () => Promise<unknown>>();
  /**
   * Write-backs that landed, in two generations of RECENT_MS: the one filling now and the one before
   * it, so everything that landed within RECENT_MS is in one of them (and at most 2 × RECENT_MS old).
   * A generation is dropped whole: no per-write-back time to keep or prune.
   */
  #landed = new Map<string, () => Promise<unknown>>();
  #landedBefore = new Map<string, () => Promise<unknown>>();
  #generationStart = 0;
  #watchingClose = false;
  #dropped = 0;
  #timer: NodeJS.Timeout | undefined;
  #replaying = false;
  readonly #onReady = (): void => void this.#replay();
  readonly #onClose = (): void => this.#keepLanded();

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

  /**
   * Runs `write` now; `replayed` (its idempotent part, `write` itself by default) is kept under `key`
   * for a replay if it fails, the failure rethrown, or noted as landed if it goes through.
   */
  async attempt<R>(key: string, write: () => Promise<R>, replayed: () => Promise<unknown> = write): Promise<R> {
    try {
      const written = await write();
      this.landed(key, replayed);
      return written;
    } catch (error) {
      this.keep(key, replayed);
      throw error;
    }
  }

  /** A write-back that went through: nothing of it is left to replay unless the connection drops soon. */
  landed(key: string, write: () => Promise<unknown>): void {
    if (this.#kept.size > 0 && this.#kept.delete(key)) this.#settleDown();
    const now = performance.now();
    if (now - this.#generationStart > RECENT_MS || this.#landed.size >= MAX_KEPT_WRITE_BACKS / 2) {
      this.#landedBefore = this.#landed;
      this.#landed = new Map();
      this.#generationStart = now;
    }
    if (!this.#watchingClose) {
      this.#watchingClose = true;
      this.#redis.on('close', this.#onClose);
    }
    this.#landed.set(key, write);
  }

  #keepLanded(): void {
    const generations = [this.#landedBefore, this.#landed];
    this.#landed = new Map();
    this.#landedBefore = new Map();
    this.#watchingClose = false;
    this.#redis.off('close', this.#onClose);
    // Older than 2 × RECENT_MS, the generation before is past what a failover can lose.
    if (performance.now() - this.#generationStart > RECENT_MS) generations.shift();
    for (const landed of generations) for (const [key, write] of landed) if (!this.#kept.has(key)) this.keep(key, write);
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
