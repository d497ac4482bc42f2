import type { RedisClient } from './connection.js';

/** One pending wait per connection attempt, shared by all callers (no listener pile-up). */
const attempts = new WeakMap<RedisClient, Promise<void>>();

/**
 * Resolves when the connection can take a command. A connection known to be down (between
 * reconnection attempts, or closed for good) fails at once: a down Redis fails fast. A connection
 * attempt in progress (a fresh connection, or a reconnection under way) is awaited to its outcome.
 */
export function whenReady(redis: RedisClient): Promise<void> {
  switch (redis.status) {
    case 'ready':
      return Promise.resolve();
    case 'end':
    case 'close':
    case 'reconnecting':
      return Promise.reject(new Error(`redis connection is down (${redis.status})`));
    default:
      return connectionAttempt(redis);
  }
}

function connectionAttempt(redis: RedisClient): Promise<void> {
  let pending = attempts.get(redis);
  if (pending !== undefined) return pending;
  pending = new Promise<void>((resolve, reject) => {
    const onReady = (): void => settle(resolve);
    const onDown = (): void => settle(() => reject(new Error('redis connection attempt failed')));
    const settle = (finish: () => void): void => {
      redis.off('ready', onReady);
      redis.off('close', onDown);
      redis.off('end', onDown);
      attempts.delete(redis);
      finish();
    };
    redis.on('ready', onReady);
    redis.on('close', onDown);
    redis.on('end', onDown);
  });
  // Callers handle their own copy; this one must not surface as an unhandled rejection.
  pending.catch(() => undefined);
  attempts.set(redis, pending);
  if (redis.status === 'wait') redis.connect().catch(() => undefined);
  return pending;
}
