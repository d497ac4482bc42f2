import { optionalPositiveMs } from '@pgw/core/internal';
import { Cluster, Redis, type RedisOptions } from 'ioredis';

export interface RedisConnectionOptions {
  /** Bound on establishing the TCP connection. Default 2000. */
  connectTimeoutMs?: number;
  /** Bound on one command's reply. Default 2000. */
  commandTimeoutMs?: number;
  /**
   * Receives connection-level errors (refused, reset…). They also surface, per call, as the
   * backends' own errors; default: ignored here so ioredis does not print "Unhandled error event".
   */
  onError?: (error: Error) => void;
}

/** A standalone connection or a Redis Cluster client: every backend takes either. */
export type RedisClient = Redis | Cluster;

export const DEFAULT_TIMEOUT_MS = 2000;
const RECONNECT_STEP_MS = 100;
const RECONNECT_MAX_MS = 1000;

/**
 * An ioredis connection tuned to fail fast: bounded connect and command timeouts, one retry per
 * request, no offline queue (a command issued while disconnected fails at once instead of waiting),
 * no replay of commands cut off by a dropped connection, and reconnection in the background every
 * ≤ 1 s so a recovered Redis is picked up.
 * The caller owns it: `quit()` it when done.
 */
export function createRedisConnection(url: string, options: RedisConnectionOptions = {}): Redis {
  const redis = new Redis(url, tunedOptions(options));
  redis.on('error', options.onError ?? ignoreError);
  return redis;
}

function tunedOptions(options: RedisConnectionOptions) {
  return {
    connectTimeout: optionalPositiveMs(options.connectTimeoutMs, 'connectTimeoutMs', DEFAULT_TIMEOUT_MS),
    commandTimeout: optionalPositiveMs(options.commandTimeoutMs, 'commandTimeoutMs', DEFAULT_TIMEOUT_MS),
    maxRetriesPerRequest: 1,
    enableOfflineQueue: false,
    // A command cut off by a dropped connection was already reported failed to its caller (fail
    // closed); replaying it after reconnect would book a reservation nobody holds.
    autoResendUnfulfilledCommands: false,
    retryStrategy: (times: number) => Math.min(times * RECONNECT_STEP_MS, RECONNECT_MAX_MS),
  };
}

/** A URL's user and password, decoded, as ioredis options. */
function credentialsOf(url: URL): { username?: string; password?: string } {
  return {
    ...(url.username && { username: decodeURIComponent(url.username) }),
    ...(url.password && { password: decodeURIComponent(url.password) }),
  };
}

function ignoreError(): void {}

export interface RedisSentinelOptions extends RedisConnectionOptions {
  /** The master's name the sentinels monitor (`sentinel monitor <name> …`). */
  masterName: string;
}

/**
 * A connection to the primary a group of Redis Sentinels names, tuned like `createRedisConnection`.
 * `sentinels`: one or more `redis://` / `rediss://` URLs of sentinels. The first URL's user and
 * password authenticate to the data nodes (as in every mode); its `sentinelUsername` /
 * `sentinelPassword` query parameters, to the sentinels (sentinels usually run without one).
 * While no primary is known commands fail at once (fail closed); when the sentinels announce a
 * promotion (`+switch-master`) the connection moves to the promoted replica at once.
 * The caller owns it.
 */
export function createRedisSentinel(sentinels: readonly string[], options: RedisSentinelOptions): Redis {
  if (sentinels.length === 0) throw new RangeError('sentinels must name at least one sentinel');
  if (typeof options.masterName !== 'string' || options.masterName.length === 0) {
    throw new RangeError('masterName must name the master the sentinels monitor');
  }
  const urls = sentinels.map((sentinel) => new URL(sentinel.trim()));
  const first = urls[0]!;
  const sentinelUsername = first.searchParams.get('sentinelUsername');
  const sentinelPassword = first.searchParams.get('sentinelPassword');
  const tls = first.protocol === 'rediss:';
  const tuned = tunedOptions(options);
  const redis = new SentinelConnection({
    ...tuned,
    sentinels: urls.map((url) => ({ host: url.hostname, port: Number(url.port || 26379) })),
    name: options.masterName,
    role: 'master',
    ...credentialsOf(first),
    ...(sentinelUsername && { sentinelUsername }),
    ...(sentinelPassword && { sentinelPassword }),
    ...(tls && { tls: {}, sentinelTLS: {}, enableTLSForSentinelMode: true }),
    // Reconnect at once when the sentinels announce a promotion, instead of at the next retry.
    failoverDetector: true,
    // A sentinel that stops answering (frozen, partitioned) would hold every reconnect forever.
    sentinelCommandTimeout: tuned.commandTimeout,
    // No sentinel answered (or none knows a primary): ask again soon, in the background.
    sentinelRetryStrategy: (times) => Math.min(times * RECONNECT_STEP_MS, RECONNECT_MAX_MS),
  });
  redis.on('error', options.onError ?? ignoreError);
  return redis;
}

/**
 * ioredis ends a Sentinel connection for good when a promotion is announced (`+switch-master`)
 * while the connection is still asking a sentinel for the primary: its connector's `connect` then
 * fails with "Connection is closed" and nothing retries (ioredis#1683). Unless its owner closed it,
 * this connection starts again after the first reconnect step. Its duplicates (a subscriber) are of
 * the same kind.
 */
class SentinelConnection extends Redis {
  #closedByOwner = false;
  #revival: NodeJS.Timeout | undefined;

  constructor(options: RedisOptions & { replyMapping?: 'legacy' }) {
    super(options);
    this.on('end', () => {
      if (this.#closedByOwner || this.#revival !== undefined) return;
      this.#revival = setTimeout(() => {
        this.#revival = undefined;
        if (!this.#closedByOwner) this.connect().catch(ignoreError);
      }, RECONNECT_STEP_MS);
    });
  }

  override duplicate(override?: Partial<RedisOptions>): Redis {
    return new SentinelConnection({ ...this.options, ...override, replyMapping: 'legacy' });
  }

  override disconnect(reconnect = false): void {
    if (!reconnect) this.#closeByOwner();
    super.disconnect(reconnect);
  }

  override quit(...args: Parameters<Redis['quit']>): ReturnType<Redis['quit']> {
    this.#closeByOwner();
    return super.quit(...args);
  }

  #closeByOwner(): void {
    this.#closedByOwner = true;
    clearTimeout(this.#revival);
    this.#revival = undefined;
  }
}

/**
 * A Redis Cluster client tuned like `createRedisConnection` (bounded connect and command timeouts,
 * no offline queue, no replay of cut-off commands, background reconnection every ≤ 1 s). `seeds`: one
 * or more `redis://` / `rediss://` URLs of cluster nodes (any of them; the slot map is discovered and
 * each script goes to the node owning its keys' hash tag, following MOVED/ASK). The caller owns it.
 */
export function createRedisCluster(seeds: readonly string[], options: RedisConnectionOptions = {}): Cluster {
  if (seeds.length === 0) throw new RangeError('seeds must name at least one cluster node');
  const urls = seeds.map((seed) => new URL(seed.trim()));
  const first = urls[0]!;
  const cluster = new Cluster(
    urls.map((url) => ({ host: url.hostname, port: Number(url.port || 6379) })),
    {
      enableOfflineQueue: false,
      clusterRetryStrategy: (times) => Math.min(times * RECONNECT_STEP_MS, RECONNECT_MAX_MS),
      redisOptions: {
        connectTimeout: optionalPositiveMs(options.connectTimeoutMs, 'connectTimeoutMs', DEFAULT_TIMEOUT_MS),
        commandTimeout: optionalPositiveMs(options.commandTimeoutMs, 'commandTimeoutMs', DEFAULT_TIMEOUT_MS),
        maxRetriesPerRequest: 1,
        autoResendUnfulfilledCommands: false,
        ...credentialsOf(first),
        ...(first.protocol === 'rediss:' && { tls: {} }),
      },
    },
  );
  cluster.on('error', options.onError ?? ignoreError);
  return cluster;
}

/** A new connection with the same options (a subscriber takes no other command, so it needs its own). */
export function duplicateConnection(redis: RedisClient): RedisClient {
  // Both client kinds copy themselves when given no overrides; only their override parameters differ.
  const copyable: { duplicate(): RedisClient } = redis;
  return copyable.duplicate();
}
