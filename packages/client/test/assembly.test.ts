/** Assembly from settings: optional packages, ownership of what the client creates, pricing, cleanup. */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { probeHandles } from '@pgw/mock-upstream';
import { createAgent } from '@pgw/http';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { GatewayClient, MissingPackageError, SettingsError } from '../src/index.js';
import { loadOptional } from '../src/assembly/optional-package.js';
import { MockFixture, PG_DSN, REDIS_URL, scopeKeys, uniqueScope } from './helpers/e2e.js';

let fixture: MockFixture;
const dir = mkdtempSync(join(tmpdir(), 'pgw-client-assembly-'));
beforeAll(async () => {
  fixture = await MockFixture.start();
});
afterAll(async () => {
  await fixture.close();
  rmSync(dir, { recursive: true, force: true });
});

const HI = [{ role: 'user' as const, content: 'hi' }];

function envFor(scope: string, source: string, extra: Record<string, string> = {}) {
  return { ...fixture.sourceKeys(scope, source), ...extra };
}

describe('optional packages', () => {
  it('a missing module becomes MissingPackageError naming the package to install', async () => {
    const missing = Object.assign(new Error('Cannot find package'), { code: 'ERR_MODULE_NOT_FOUND' });
    const error = await loadOptional('@pgw/backend-redis', 'PGW_LIMITER_BACKEND=redis', () => Promise.reject(missing)).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(MissingPackageError);
    expect(error).toMatchObject({ packageName: '@pgw/backend-redis', cause: missing });
    expect((error as Error).message).toMatch(/PGW_LIMITER_BACKEND=redis needs the package @pgw\/backend-redis.*install it/);
  });

  it('a real failed dynamic import is recognised', async () => {
    const specifier = ['@pgw', 'not-installed-anywhere'].join('/');
    await expect(loadOptional(specifier, 'test', () => import(specifier))).rejects.toBeInstanceOf(MissingPackageError);
  });

  it('any other failure of the import propagates unchanged', async () => {
    const broken = new SyntaxError('bad module');
    await expect(loadOptional('@pgw/telemetry-pg', 'test', () => Promise.reject(broken))).rejects.toBe(broken);
  });
});

describe('ownership and cleanup', () => {
  it.each([
    ['memory', {}],
    ['memory + SQLite telemetry', { PGW_TELEMETRY_BACKEND: 'sqlite', PGW_SQLITE_PATH: join(dir, 'handles', 't.sqlite') }],
    ['redis + Postgres telemetry', { PGW_LIMITER_BACKEND: 'redis', PGW_CACHE_BACKEND: 'redis', REDIS_URL, PGW_TELEMETRY_BACKEND: 'postgres', PGW_TELEMETRY_DSN: PG_DSN }],
  ])('a client on %s leaves no socket or timer open after close()', async (_name, backendEnv) => {
    const source = fixture.source('owned');
    const scope = uniqueScope('own');
    const probe = probeHandles();
    const env = { ...backendEnv, ...envFor(scope, source, scopeKeys(scope, { CACHE__NAMESPACE: scope })) };
    const client = await GatewayClient.fromEnv(scope, { env, warn: () => {} });
    await expect(client.chat(HI)).resolves.toMatchObject({ source });
    await client.close();
    await client.close();
    expect(await probe.leftovers()).toEqual([]);
  });

  it('an injected dispatcher carries every request of the models the client builds, and is never closed by it', async () => {
    const scope = uniqueScope('inject');
    const source = fixture.source('inject');
    const agent = createAgent();
    const dispatch = vi.spyOn(agent, 'dispatch');
    const close = vi.spyOn(agent, 'close');
    try {
      const client = await GatewayClient.fromEnv(scope, { env: envFor(scope, source), dispatcher: agent, warn: () => {} });
      await expect(client.chat(HI)).resolves.toMatchObject({ source });
      expect(dispatch).toHaveBeenCalled();
      await client[Symbol.asyncDispose]();
      expect(close).not.toHaveBeenCalled();
    } finally {
      await agent.close();
    }
  });

  it('cache: null assembles no cache layer whatever PGW_CACHE_BACKEND says', async () => {
    const scope = uniqueScope('nocache');
    const source = fixture.source('nocache');
    const client = await GatewayClient.fromEnv(scope, { env: envFor(scope, source, { PGW_CACHE_BACKEND: 'memory' }), cache: null, warn: () => {} });
    try {
      expect((await client.chat(HI)).cached).toBe(false);
      expect((await client.chat(HI)).cached).toBe(false);
      expect(fixture.mock.counters(source).chat).toBe(2);
    } finally {
      await client.close();
    }
  });

  it('a failing assembly closes what it had already created (the Redis connection)', async () => {
    const scope = uniqueScope('fail');
    const probe = probeHandles();
    const env = envFor(scope, fixture.source('unused'), {
      PGW_LIMITER_BACKEND: 'redis',
      REDIS_URL,
      ...scopeKeys(scope, { PRICING_PATH: join(dir, 'absent.json') }),
    });
    const error = await GatewayClient.fromEnv(scope, { env, warn: () => {} }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SettingsError);
    expect(error).toMatchObject({ key: `${scope}__PRICING_PATH` });
    expect(await probe.leftovers()).toEqual([]);
  });
});

describe('spend budgets', () => {
  it('a budget with the limiter and the breaker on two backends is a SettingsError naming the budget key, and leaves nothing open', async () => {
    const scope = uniqueScope('split');
    const probe = probeHandles();
    const env = envFor(scope, fixture.source('unused'), {
      PGW_LIMITER_BACKEND: 'redis',
      PGW_BREAKER_BACKEND: 'memory',
      REDIS_URL,
      ...scopeKeys(scope, { BUDGET__USD: '1' }),
    });
    const error = await GatewayClient.fromEnv(scope, { env, warn: () => {} }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SettingsError);
    expect(error).toMatchObject({ key: `${scope}__BUDGET__USD` });
    expect(await probe.leftovers()).toEqual([]);
  });
});

describe('PRICING_PATH', () => {
  it('prices a model from the file, over the built-in table', async () => {
    const path = join(dir, 'pricing.json');
    writeFileSync(path, JSON.stringify({ 'mock-model': { inputPerMTok: 1_000_000, outputPerMTok: 2_000_000 } }));
    const scope = uniqueScope('price');
    const source = fixture.source('priced', { usage: { prompt_tokens: 3, completion_tokens: 5 } });
    const client = await GatewayClient.fromEnv(scope, {
      env: envFor(scope, source, scopeKeys(scope, { PRICING_PATH: path })),
      warn: () => {},
    });
    try {
      expect((await client.chat(HI)).costUsd).toBe(13);
    } finally {
      await client.close();
    }
  });

  it.each([
    ['not JSON', '{"mock-model":', /is not valid JSON/],
    ['a bad table', '{"mock-model": {"inputPerMTok": -1, "outputPerMTok": 0}}', /inputPerMTok must be a finite number/],
  ])('a file with %s is an error naming the key', async (_label, text, pattern) => {
    const path = join(dir, `bad-${Math.random()}.json`);
    writeFileSync(path, text);
    const scope = uniqueScope('price');
    const error = await GatewayClient.fromEnv(scope, {
      env: envFor(scope, fixture.source('unused'), scopeKeys(scope, { PRICING_PATH: path })),
      warn: () => {},
    }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SettingsError);
    expect(error).toMatchObject({ key: `${scope}__PRICING_PATH` });
    expect((error as Error).message).toMatch(pattern);
  });
});
