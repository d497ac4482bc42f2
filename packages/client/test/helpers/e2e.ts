/** Shared fixtures of the end-to-end suites: the loopback mock, unique scopes and sources, backend variants. */
import { randomBytes } from 'node:crypto';
import { startMockUpstream } from '@pgw/mock-upstream';
import type { MockUpstream, SourceScript } from '@pgw/mock-upstream';
import { MODEL_SPECIFICATION_VERSION, type ChatModel } from '@pgw/core';
import { afterAll, beforeAll } from 'vitest';

export const REDIS_URL = process.env['REDIS_URL'] ?? 'redis://127.0.0.1:6379';
export const PG_DSN = process.env['PGW_TEST_PG_DSN'] ?? 'postgres://postgres@127.0.0.1:5432/test';

/** The governance/cache stores every end-to-end test runs on. */
export const BACKENDS = [
  { name: 'memory', env: { PGW_LIMITER_BACKEND: 'memory', PGW_CACHE_BACKEND: 'memory' } },
  { name: 'redis', env: { PGW_LIMITER_BACKEND: 'redis', PGW_CACHE_BACKEND: 'redis', REDIS_URL } },
] as const;

export type Backend = (typeof BACKENDS)[number];

const hex = () => randomBytes(5).toString('hex');

const startMock = () => startMockUpstream({ port: 0, host: '127.0.0.1', script: { sources: {} }, seed: 7 });

/** A scope name no other test (or earlier run on the shared Redis) uses. */
export const uniqueScope = (label: string) => `${label.toUpperCase()}_${hex().toUpperCase()}`;

/** One mock server per test file; each test adds its own uniquely named sources. */
export class MockFixture {
  #mock: MockUpstream | undefined;

  private constructor(mock?: MockUpstream) {
    this.#mock = mock;
  }

  get mock(): MockUpstream {
    if (this.#mock === undefined) throw new Error('the mock starts in beforeAll');
    return this.#mock;
  }

  static async start(): Promise<MockFixture> {
    return new MockFixture(await startMock());
  }

  /** Call at the top of a test file: the mock starts before its tests and closes after them. */
  static use(): MockFixture {
    const fixture = new MockFixture();
    beforeAll(async () => {
      fixture.#mock = await startMock();
    });
    afterAll(() => fixture.close());
    return fixture;
  }

  /** Registers a fresh source and returns its name. */
  source(label: string, script: SourceScript = {}): string {
    const name = `${label}_${hex()}`;
    this.mock.setSource(name, script);
    return name;
  }

  /** `{SCOPE}__SOURCE__{NAME}__…` keys of a chat/embedding source (OpenAI-compatible base URL). */
  sourceKeys(scope: string, name: string, fields: Record<string, string> = {}, ocr = false): Record<string, string> {
    const prefix = `${scope}__SOURCE__${name.toUpperCase()}__`;
    const keys: Record<string, string> = {
      [`${prefix}BASE_URL`]: ocr ? `${this.mock.url}/${name}` : this.mock.baseUrl(name),
      ...(ocr ? {} : { [`${prefix}MODEL`]: 'mock-model' }),
    };
    for (const [field, value] of Object.entries(fields)) keys[`${prefix}${field}`] = value;
    return keys;
  }

  /** Resolves once `name` has `count` requests in flight (the request reached the server). */
  async inflight(name: string, count = 1): Promise<void> {
    while (this.mock.counters(name).inflight < count) await new Promise((resolve) => setTimeout(resolve, 5));
  }

  async close(): Promise<void> {
    await this.#mock?.close();
  }
}

/** `KEY: value` pairs prefixed with `{SCOPE}__`. */
export function scopeKeys(scope: string, keys: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(keys).map(([key, value]) => [`${scope}__${key}`, value]));
}

/** Settles `start()` into a value or an error, timing it from before the call starts (so its deadline timer is inside the measurement). */
export async function outcome<T>(start: () => Promise<T>): Promise<{ value?: T; error?: unknown; elapsedMs: number }> {
  const started = performance.now();
  try {
    const value = await start();
    return { value, elapsedMs: performance.now() - started };
  } catch (error) {
    return { error, elapsedMs: performance.now() - started };
  }
}

/** A chat model whose every call throws `error`: a bug escaping the model (settlement S8). */
export function throwingModel(error: unknown): ChatModel {
  return {
    specificationVersion: MODEL_SPECIFICATION_VERSION,
    provider: 'fake',
    modelId: 'm',
    capabilities: { jsonSchema: true, streaming: false },
    managedKeys: [],
    generate: async (): Promise<never> => {
      throw error;
    },
  };
}
