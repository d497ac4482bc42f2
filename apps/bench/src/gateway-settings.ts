/** Settings of the governed contenders: one mock source, no cache (every call reaches the mock), no deadline. */
import { randomBytes } from 'node:crypto';
import { gatewaySettings, type GatewaySettings } from '@pgw/client';
import { MODEL } from './mock-script.js';

export const API_KEY = 'bench-key';
export const SOURCE_NAME = 'mock';

export interface BenchSettingsInput {
  scope: string;
  baseUrl: string;
  backend: 'memory' | 'redis';
  redisUrl?: string;
  /** Source and scope-wide concurrency (0 = unlimited, the default). */
  maxConcurrency?: number;
  timeoutMs?: number;
  /** Sources in the scope, all on `baseUrl` (1 = the default, named `SOURCE_NAME`). */
  sourceCount?: number;
}

/** A scope name no other run (or parallel test) shares, e.g. `BENCH_3F9A01C2`. */
export function uniqueScope(prefix = 'BENCH'): string {
  return `${prefix}_${randomBytes(4).toString('hex').toUpperCase()}`;
}

export function benchSettings(input: BenchSettingsInput): GatewaySettings {
  const maxConcurrency = input.maxConcurrency ?? 0;
  return gatewaySettings({
    scope: input.scope,
    sources: Array.from({ length: input.sourceCount ?? 1 }, (_, i) => ({
      name: i === 0 ? SOURCE_NAME : `${SOURCE_NAME}${i}`,
      baseUrl: input.baseUrl,
      apiKey: API_KEY,
      model: MODEL,
      maxConcurrency,
      ...(input.timeoutMs === undefined ? {} : { timeoutMs: input.timeoutMs }),
    })),
    global: { maxConcurrency },
    backends: {
      limiter: input.backend,
      breaker: input.backend,
      cache: 'none',
      telemetry: 'none',
      ...(input.redisUrl === undefined ? {} : { redisUrl: input.redisUrl }),
    },
  });
}
