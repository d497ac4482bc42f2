/** Fixtures of the batch tests: the loopback mock, clients on it, temporary job directories, input lines. */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EmbeddingClient, GatewayClient, OcrClient, type GatewaySubscriber } from '@pgw/client';
import { startMockUpstream, type MockUpstream, type SourceScript } from '@pgw/mock-upstream';
import { afterAll, afterEach, beforeAll } from 'vitest';

const hex = () => randomBytes(5).toString('hex');

/** Memory governance, no telemetry, fast retries: what every batch test's client runs on. */
export const BASE_KEYS = { PGW_LIMITER_BACKEND: 'memory', PGW_CACHE_BACKEND: 'none', PGW_TELEMETRY_BACKEND: 'none' };

export interface MockHandle {
  mock: MockUpstream;
}

/** One mock per test file. */
export function useMock(): MockHandle {
  const handle = {} as MockHandle;
  beforeAll(async () => {
    handle.mock = await startMockUpstream({ port: 0, host: '127.0.0.1', script: { sources: {} }, seed: 7 });
  });
  afterAll(() => handle.mock?.close());
  return handle;
}

/** A fresh directory per test, removed after it. */
export function useTempDirs(): () => string {
  const dirs: string[] = [];
  afterEach(() => {
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  });
  return () => {
    const dir = mkdtempSync(join(tmpdir(), 'pgw-batch-'));
    dirs.push(dir);
    return dir;
  };
}

/** The env of a scope with one mock source (`kind` ocr: a MonkeyOCR base URL). */
export function scopeEnv(mock: MockUpstream, scope: string, source: string, keys: Record<string, string> = {}, ocr = false): Record<string, string> {
  const prefix = `${scope}__SOURCE__${source.toUpperCase()}__`;
  const env: Record<string, string> = {
    ...BASE_KEYS,
    [`${scope}__RETRY__BACKOFF_BASE_S`]: '0.01',
    [`${scope}__RETRY__BACKOFF_MAX_S`]: '0.05',
    [`${prefix}BASE_URL`]: ocr ? `${mock.url}/${source}` : mock.baseUrl(source),
    ...(ocr ? {} : { [`${prefix}MODEL`]: 'mock-model' }),
  };
  for (const [key, value] of Object.entries(keys)) env[key.startsWith('SOURCE:') ? `${prefix}${key.slice(7)}` : `${scope}__${key}`] = value;
  return env;
}

/** A new source on the mock, its name unique. */
export function mockSource(mock: MockUpstream, label: string, script: SourceScript = {}): string {
  const name = `${label}_${hex()}`;
  mock.setSource(name, script);
  return name;
}

export const uniqueScope = (label: string) => `${label.toUpperCase()}_${hex().toUpperCase()}`;

export async function chatClient(
  mock: MockUpstream,
  source: string,
  keys: Record<string, string> = {},
  subscribers: readonly GatewaySubscriber[] = [],
): Promise<GatewayClient> {
  const scope = uniqueScope('batch');
  return GatewayClient.fromEnv(scope, { env: scopeEnv(mock, scope, source, keys), warn: () => {}, subscribers });
}

export async function embeddingClient(mock: MockUpstream, source: string): Promise<EmbeddingClient> {
  const scope = uniqueScope('embed');
  return EmbeddingClient.fromEnv(scope, { env: scopeEnv(mock, scope, source), warn: () => {} });
}

export async function ocrClient(mock: MockUpstream, source: string): Promise<OcrClient> {
  const scope = uniqueScope('ocr');
  return OcrClient.fromEnv(scope, { env: scopeEnv(mock, scope, source, {}, true), warn: () => {} });
}

/** `count` chat lines `{custom_id: item-<i>}`. */
export function chatLines(count: number, model = 'mock-model'): string {
  return Array.from({ length: count }, (_, index) =>
    JSON.stringify({ custom_id: `item-${index}`, method: 'POST', url: '/v1/chat/completions', body: { model, messages: [{ role: 'user', content: `question ${index}` }], max_tokens: 16 } }),
  ).join('\n');
}
