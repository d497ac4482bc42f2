import { optionalPositiveMs } from '@pgw/core';
import { Redis } from 'ioredis';

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
  const redis = new Redis(url, {
    connectTimeout: optionalPositiveMs(options.connectTimeoutMs, 'connectTimeoutMs', DEFAULT_TIMEOUT_MS),
    commandTimeout: optionalPositiveMs(options.commandTimeoutMs, 'commandTimeoutMs', DEFAULT_TIMEOUT_MS),
    maxRetriesPerRequest: 1,
    enableOfflineQueue: false,
    // A command cut off by a dropped connection was already reported failed to its caller (fail
    // closed); replaying it after reconnect would book a reservation nobody holds.
    autoResendUnfulfilledCommands: false,
    retryStrategy: (times) => Math.min(times * RECONNECT_STEP_MS, RECONNECT_MAX_MS),
  });
  redis.on('error', options.onError ?? ignoreError);
  return redis;
}

function ignoreError(): void {}
