import { describe, expect, it, vi } from 'vitest';
import {
  SettingsError,
  embeddingSettings,
  gatewaySettings,
  loadEmbeddingSettings,
  loadGatewaySettings,
  loadOcrSettings,
  ocrSettings,
} from '../src/index.js';
import type { EnvRecord } from '../src/index.js';

const BASE = { LLM__SOURCE__MAIN__BASE_URL: 'http://127.0.0.1:9/v1/', LLM__SOURCE__MAIN__MODEL: 'm-1' };

function load(extra: EnvRecord = {}, warn = vi.fn()) {
  return loadGatewaySettings('LLM', { env: { ...BASE, ...extra }, warn });
}

function settingsErrorOf(run: () => unknown): SettingsError {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(SettingsError);
    expect(error).toBeInstanceOf(RangeError);
    return error as SettingsError;
  }
  throw new Error('expected a SettingsError');
}

describe('loadGatewaySettings: every scope key is read', () => {
  const cases: [string, string, (s: ReturnType<typeof load>) => unknown, unknown][] = [
    ['LLM__SELECTOR', 'Round_Robin', (s) => s.selector, 'round_robin'],
    ['LLM__QUOTA_FULL', 'fail_fast', (s) => s.quotaFull, 'fail_fast'],
    ['LLM__CIRCUIT_OPEN', 'wait', (s) => s.circuitOpen, 'wait'],
    ['LLM__CALL_DEADLINE_S', '2.5', (s) => s.callDeadlineMs, 2500],
    ['LLM__MAX_ATTEMPTS', '7', (s) => s.retry.maxAttempts, 7],
    ['LLM__RETRY__BACKOFF_BASE_S', '0.25', (s) => s.retry.backoffBaseMs, 250],
    ['LLM__RETRY__BACKOFF_MAX_S', '90', (s) => s.retry.backoffMaxMs, 90_000],
    ['LLM__BREAKER__COOLDOWN_S', '12', (s) => s.breaker.cooldownMs, 12_000],
    ['LLM__BREAKER__FAILURE_THRESHOLD', '9', (s) => s.breaker.failureThreshold, 9],
    ['LLM__BREAKER__FAILURE_RATE', '0.8', (s) => s.breaker.failureRate, 0.8],
    ['LLM__BREAKER__WINDOW_S', '30', (s) => s.breaker.windowMs, 30_000],
    ['LLM__BREAKER__MIN_SAMPLES', '4', (s) => s.breaker.minSamples, 4],
    ['LLM__BREAKER__MAX_COOLDOWN_S', '900', (s) => s.breaker.maxCooldownMs, 900_000],
    ['LLM__PROBE_TTL_S', '400', (s) => s.breaker.probeTtlMs, 400_000],
    ['LLM__LEASE_TTL_S', '500', (s) => s.leaseTtlMs, 500_000],
    ['LLM__BACKPRESSURE__STALL_WINDOW_S', '45', (s) => s.stallWindowMs, 45_000],
    ['LLM__GLOBAL__RPM', '600', (s) => s.global.rpm, 600],
    ['LLM__GLOBAL__TPM', '90000', (s) => s.global.tpm, 90_000],
    ['LLM__GLOBAL__MAX_CONCURRENCY', '16', (s) => s.global.maxConcurrency, 16],
    ['LLM__CACHE__NAMESPACE', 'tenant-a', (s) => s.cache.namespace, 'tenant-a'],
    ['LLM__CACHE__ISOLATION', 'Namespace', (s) => s.cache.isolation, 'namespace'],
    ['LLM__CACHE__TTL_S', '60', (s) => s.cache.ttlMs, 60_000],
    ['LLM__CACHE__SALT', 'v2', (s) => s.cache.salt, 'v2'],
    ['LLM__STRUCTURED__MAX_RETRIES', '3', (s) => s.structured.maxRetries, 3],
    ['LLM__STRUCTURED__STRATEGY', 'json_schema', (s) => s.structured.strategy, 'json_schema'],
    ['LLM__STRUCTURED__ESCALATION', 'json_repair', (s) => s.structured.escalation, 'json_repair'],
    ['LLM__TELEMETRY__TEXT_CAP', '0', (s) => s.telemetryTextCap, 0],
    ['LLM__MAX_REQUEST_MB', '0.5', (s) => s.maxRequestMb, 0.5],
    ['LLM__PRICING_PATH', './prices.json', (s) => s.pricingPath, './prices.json'],
    ['PGW_LIMITER_BACKEND', 'memory', (s) => s.backends.limiter, 'memory'],
    ['PGW_BREAKER_BACKEND', 'memory', (s) => s.backends.breaker, 'memory'],
    ['PGW_CACHE_BACKEND', 'none', (s) => s.backends.cache, 'none'],
    ['PGW_TELEMETRY_BACKEND', 'sqlite', (s) => s.backends.sqlitePath, '.pgw/telemetry.sqlite'],
    ['PGW_SQLITE_PATH', '/tmp/x.sqlite', (s) => s.backends.sqlitePath, '/tmp/x.sqlite'],
    ['REDIS_URL', 'redis://127.0.0.1:6379/2', (s) => s.backends.redisUrl, 'redis://127.0.0.1:6379/2'],
    ['PGW_TELEMETRY_DSN', 'postgres://u@h/db', (s) => s.backends.telemetryDsn, 'postgres://u@h/db'],
  ];

  it('sentinel mode reads the sentinels and the master name', () => {
    const s = load({ PGW_REDIS_MODE: 'sentinel', REDIS_URL: 'redis://s1:26379,rediss://s2:26379', PGW_REDIS_SENTINEL_MASTER: 'main' });
    expect(s.backends).toMatchObject({ redisMode: 'sentinel', redisUrl: 'redis://s1:26379,rediss://s2:26379', redisSentinelMaster: 'main' });
  });
  it.each(cases)('%s=%s', (key, raw, read, expected) => {
    const warn = vi.fn();
    expect(read(load({ [key]: raw }, warn))).toEqual(expected);
    expect(warn).not.toHaveBeenCalled();
  });

  it('reads every source field of the four-segment keys', () => {
    const s = load({
      LLM__SOURCE__MAIN__API_KEY: 'sk-secret',
      LLM__SOURCE__MAIN__PROVIDER: 'Qwen',
      LLM__SOURCE__MAIN__RPM: '60',
      LLM__SOURCE__MAIN__TPM: '100000',
      LLM__SOURCE__MAIN__MAX_CONCURRENCY: '4',
      LLM__SOURCE__MAIN__EST_TOKENS: '800',
      LLM__SOURCE__MAIN__TIMEOUT_S: '30.5',
      LLM__SOURCE__MAIN__WEIGHT: '2.5',
      LLM__SOURCE__MAIN__EXTRA_BODY: '{"top_k": 20, "nested": {"a": [1]}}',
      LLM__SOURCE__MAIN__HEADERS: '{"X-Route": "eu-1", "X-Title": "pgw"}',
      LLM__SOURCE__MAIN__QUERY: '{"api-version": "2024-06-01"}',
      LLM__SOURCE__MAIN__STREAM: 'false',
      LLM__SOURCE__MAIN__API_KEY_HEADER: 'Api-Key',
      LLM__SOURCE__MAIN__MAX_RESPONSE_MB: '1.5',
    });
    expect(s.sources).toEqual([
      {
        name: 'main',
        baseUrl: 'http://127.0.0.1:9/v1',
        apiKey: 'sk-secret',
        apiKeyHeader: 'api-key',
        headers: { 'X-Route': 'eu-1', 'X-Title': 'pgw' },
        query: { 'api-version': '2024-06-01' },
        stream: false,
        maxResponseBytes: 1_572_864,
        model: 'm-1',
        provider: 'qwen',
        rpm: 60,
        tpm: 100_000,
        maxConcurrency: 4,
        estTokens: 800,
        timeoutMs: 30_500,
        weight: 2.5,
        extraBody: { top_k: 20, nested: { a: [1] } },
      },
    ]);
  });

  it('defaults the endpoint keys: bearer auth, no headers or query, streaming, 64 MiB', () => {
    expect(load({}).sources[0]).toMatchObject({ apiKeyHeader: 'authorization', headers: {}, query: {}, stream: true, maxResponseBytes: 64 * 1024 * 1024 });
  });

  it.each([
    ['LLM__SOURCE__MAIN__HEADERS', '{"Host": "evil"}', /LLM__SOURCE__MAIN__HEADERS: may not set 'host'/],
    ['LLM__SOURCE__MAIN__HEADERS', '{"content-type": "text/plain"}', /LLM__SOURCE__MAIN__HEADERS: may not set 'content-type'/],
    ['LLM__SOURCE__MAIN__HEADERS', '{"Content-Length": "1"}', /LLM__SOURCE__MAIN__HEADERS: may not set 'content-length'/],
    ['LLM__SOURCE__MAIN__HEADERS', '{"bad name": "x"}', /LLM__SOURCE__MAIN__HEADERS: .*not a legal HTTP header name/],
    ['LLM__SOURCE__MAIN__HEADERS', '{"x-a": 3}', /LLM__SOURCE__MAIN__HEADERS: must be a JSON object of string values/],
    ['LLM__SOURCE__MAIN__HEADERS', '["x"]', /LLM__SOURCE__MAIN__HEADERS: must be a JSON object of string values/],
    ['LLM__SOURCE__MAIN__QUERY', '{"v": 1}', /LLM__SOURCE__MAIN__QUERY: must be a JSON object of string values/],
    ['LLM__SOURCE__MAIN__STREAM', 'sometimes', /LLM__SOURCE__MAIN__STREAM="sometimes": must be true or false/],
    ['LLM__SOURCE__MAIN__API_KEY_HEADER', 'x key', /LLM__SOURCE__MAIN__API_KEY_HEADER: must be a legal HTTP header name/],
    ['LLM__SOURCE__MAIN__MAX_RESPONSE_MB', '0', /LLM__SOURCE__MAIN__MAX_RESPONSE_MB.*must be an integer ≥ 1/],
    ['LLM__SOURCE__MAIN__MAX_RESPONSE_MB', 'lots', /LLM__SOURCE__MAIN__MAX_RESPONSE_MB="lots": is not a number/],
  ])('%s=%s is an error naming the key', (key, value, message) => {
    expect(() => load({ [key]: value })).toThrow(message);
  });

  it('reads the strict-schema switch and the effort map of a source; neither is set by default', () => {
    const s = load({ LLM__SOURCE__MAIN__STRICT_SCHEMA: 'false', LLM__SOURCE__MAIN__EFFORT_MAP: 'XHigh:high, max:high' });
    expect(s.sources[0]).toMatchObject({ strictSchema: false, effortMap: { xhigh: 'high', max: 'high' } });
    expect(load().sources[0]).not.toHaveProperty('strictSchema');
    expect(load().sources[0]).not.toHaveProperty('effortMap');
  });

  it.each([
    ['LLM__SOURCE__MAIN__STRICT_SCHEMA', 'maybe', /LLM__SOURCE__MAIN__STRICT_SCHEMA="maybe": must be true or false/],
    ['LLM__SOURCE__MAIN__EFFORT_MAP', 'max:huge', /LLM__SOURCE__MAIN__EFFORT_MAP: .*must be one of none, minimal, low, medium, high, xhigh, max/],
    ['LLM__SOURCE__MAIN__EFFORT_MAP', 'max', /LLM__SOURCE__MAIN__EFFORT_MAP: .*'max' is not level:level/],
  ])('%s=%s is an error naming the key', (key, value, message) => {
    const error = settingsErrorOf(() => load({ [key]: value }));
    expect(error.key).toBe(key);
    expect(error.message).toMatch(message);
  });

  it('takes an effort map as an object in direct construction, naming the env key for a bad one', () => {
    const source = { name: 'main', baseUrl: 'http://h', model: 'q' };
    expect(gatewaySettings({ scope: 'llm', sources: [{ ...source, effortMap: { max: 'high' }, strictSchema: true }] }).sources[0]).toMatchObject({
      effortMap: { max: 'high' },
      strictSchema: true,
    });
    const error = settingsErrorOf(() => gatewaySettings({ scope: 'llm', sources: [{ ...source, effortMap: { max: 'huge' } as never }] }));
    expect(error.key).toBe('LLM__SOURCE__MAIN__EFFORT_MAP');
  });

  it('reads a source context window and its own price', () => {
    const s = load({
      LLM__SOURCE__MAIN__CONTEXT_WINDOW: '32768',
      LLM__SOURCE__MAIN__PRICING: '{"inputPerMTok": 3, "cachedInputPerMTok": 0.3, "outputPerMTok": 15, "reasoningPerMTok": 20}',
    });
    expect(s.sources[0]).toMatchObject({
      contextWindow: 32_768,
      price: { inputPerMTok: 3, cachedInputPerMTok: 0.3, outputPerMTok: 15, reasoningPerMTok: 20 },
    });
    expect(load({}).sources[0]).not.toHaveProperty('contextWindow');
    expect(load({}).sources[0]).not.toHaveProperty('price');
    // The normalised value validates to itself.
    expect(gatewaySettings(s)).toStrictEqual(s);
  });

  it.each([
    ['LLM__SOURCE__MAIN__CONTEXT_WINDOW', '0', /LLM__SOURCE__MAIN__CONTEXT_WINDOW.*must be an integer ≥ 1/],
    ['LLM__SOURCE__MAIN__CONTEXT_WINDOW', '8k', /LLM__SOURCE__MAIN__CONTEXT_WINDOW/],
    ['LLM__SOURCE__MAIN__PRICING', '{"inputPerMTok": 1, "outputPerMTok": 2, "cachedInputPerMtok": 0.1}', /LLM__SOURCE__MAIN__PRICING: .*unknown field 'cachedInputPerMtok'/],
    ['LLM__SOURCE__MAIN__PRICING', '{"inputPerMTok": 1}', /LLM__SOURCE__MAIN__PRICING: .*outputPerMTok must be a finite number ≥ 0/],
    ['LLM__SOURCE__MAIN__PRICING', '[1]', /LLM__SOURCE__MAIN__PRICING: .*must be an object of inputPerMTok/],
    ['LLM__SOURCE__MAIN__PRICING', '{"inputPerMTok": 1', /LLM__SOURCE__MAIN__PRICING/],
  ])('%s=%s is an error naming the key', (key, value, message) => {
    expect(() => load({ [key]: value })).toThrow(message);
  });

  it.each([
    ['a header value with a line break', { LLM__SOURCE__MAIN__HEADERS: '{"x-token": "tok-SECRET\\r\\nx-evil: 1"}' }, 'LLM__SOURCE__MAIN__HEADERS'],
    ['a header value beyond Latin-1', { LLM__SOURCE__MAIN__HEADERS: '{"x-token": "tok-SECRET-中"}' }, 'LLM__SOURCE__MAIN__HEADERS'],
    ['an API key with a newline', { LLM__SOURCE__MAIN__API_KEY: 'sk-SECRET\nmore' }, 'LLM__SOURCE__MAIN__API_KEY'],
    ['a header that would replace the API key header', { LLM__SOURCE__MAIN__HEADERS: '{"Authorization": "Bearer SECRET"}' }, 'LLM__SOURCE__MAIN__HEADERS'],
  ])('%s is a SettingsError naming the key, never showing the value', (_what, env, key) => {
    const error = (() => {
      try {
        load(env);
      } catch (caught) {
        return caught as SettingsError;
      }
      throw new Error('no error');
    })();
    expect(error).toBeInstanceOf(SettingsError);
    expect(error.key).toBe(key);
    expect(error.message).not.toContain('SECRET');
  });

  it('reads the embedding keys in an embedding scope', () => {
    const s = loadEmbeddingSettings('embed', {
      env: {
        EMBED__SOURCE__E__BASE_URL: 'http://h/v1',
        EMBED__SOURCE__E__MODEL: 'e',
        EMBED__BATCH_SIZE: '16',
        EMBED__NORMALIZE: 'yes',
        EMBED__EXPECTED_DIM: '1024',
      },
      warn: () => {},
    });
    expect([s.scope, s.batchSize, s.normalize, s.expectedDim]).toEqual(['EMBED', 16, true, 1024]);
  });
});

describe('loadGatewaySettings: defaults and normalisation', () => {
  it('fills documented defaults and freezes the value deeply', () => {
    const s = load();
    expect(s).toMatchObject({
      scope: 'LLM',
      selector: 'health_aware',
      quotaFull: 'wait',
      circuitOpen: 'fail_fast',
      retry: { maxAttempts: 3, backoffBaseMs: 500, backoffMaxMs: 30_000 },
      breaker: { cooldownMs: 60_000, probeTtlMs: 150_000 },
      leaseTtlMs: 150_000,
      backends: { limiter: 'memory', breaker: 'memory', cache: 'memory', telemetry: 'none' },
    });
    expect(s.callDeadlineMs).toBeUndefined();
    expect(s.sources[0]).toMatchObject({ provider: 'openai', timeoutMs: 120_000, rpm: 0, weight: 1, extraBody: {} });
    expect(Object.isFrozen(s)).toBe(true);
    expect(Object.isFrozen(s.sources[0]!.extraBody)).toBe(true);
    expect(Object.isFrozen(s.retry)).toBe(true);
  });

  it('treats the scope name case-insensitively and lower-cases source names', () => {
    const s = loadGatewaySettings('llm', {
      env: { LLM__SOURCE__QWEN_1__BASE_URL: 'http://h/v1', LLM__SOURCE__QWEN_1__MODEL: 'q' },
      warn: () => {},
    });
    expect(s.scope).toBe('LLM');
    expect(s.sources.map((x) => x.name)).toEqual(['qwen_1']);
  });

  it('orders sources alphabetically without {SCOPE}__SOURCES, and by the list (restricting the set) with it', () => {
    const env = {
      LLM__SOURCE__ZETA__BASE_URL: 'http://z/v1',
      LLM__SOURCE__ZETA__MODEL: 'z',
      LLM__SOURCE__ALPHA__BASE_URL: 'http://a/v1',
      LLM__SOURCE__ALPHA__MODEL: 'a',
      LLM__SOURCE__MID__BASE_URL: 'http://m/v1',
      LLM__SOURCE__MID__MODEL: 'm',
    };
    const warn = vi.fn();
    expect(loadGatewaySettings('LLM', { env, warn }).sources.map((s) => s.name)).toEqual(['alpha', 'mid', 'zeta']);
    const listed = loadGatewaySettings('LLM', { env: { ...env, LLM__SOURCES: ' Zeta, alpha ' }, warn });
    expect(listed.sources.map((s) => s.name)).toEqual(['zeta', 'alpha']);
    expect(warn).not.toHaveBeenCalled();
  });

  it('derives PROBE_TTL and LEASE_TTL from the slowest source plus 30 s', () => {
    const s = load({
      LLM__SOURCE__SLOW__BASE_URL: 'http://s/v1',
      LLM__SOURCE__SLOW__MODEL: 's',
      LLM__SOURCE__SLOW__TIMEOUT_S: '300',
    });
    expect(s.breaker.probeTtlMs).toBe(330_000);
    expect(s.leaseTtlMs).toBe(330_000);
    expect(load({ LLM__PROBE_TTL_S: '150' }).breaker.probeTtlMs).toBe(150_000);
  });

  it('reads the legacy breaker cooldown alias, and accepts it beside the new key when they agree', () => {
    expect(load({ LLM_CIRCUIT_BREAKER_COOLDOWN: '90' }).breaker.cooldownMs).toBe(90_000);
    expect(load({ LLM_CIRCUIT_BREAKER_COOLDOWN: '90', LLM__BREAKER__COOLDOWN_S: '90.0' }).breaker.cooldownMs).toBe(90_000);
  });

  it('defaults the breaker backend to the limiter backend', () => {
    const s = load({ PGW_LIMITER_BACKEND: 'redis', REDIS_URL: 'redis://127.0.0.1:6379' });
    expect(s.backends).toMatchObject({ limiter: 'redis', breaker: 'redis' });
  });

  it('treats an empty value as unset (an empty CALL_DEADLINE_S means no deadline)', () => {
    expect(load({ LLM__CALL_DEADLINE_S: '', LLM__MAX_ATTEMPTS: '  ' }).callDeadlineMs).toBeUndefined();
  });

  it('OCR sources need no MODEL', () => {
    const s = loadOcrSettings('ocr', { env: { OCR__SOURCE__M__BASE_URL: 'http://o:8000' }, warn: () => {} });
    expect(s.sources[0]).toMatchObject({ name: 'm', model: 'monkeyocr', baseUrl: 'http://o:8000' });
  });
});

describe('loadGatewaySettings: a malformed value is an error naming its key', () => {
  const cases: [string, string][] = [
    ['LLM__SELECTOR', 'fastest'],
    ['LLM__QUOTA_FULL', 'queue'],
    ['LLM__CIRCUIT_OPEN', 'close'],
    ['LLM__CALL_DEADLINE_S', '0'],
    ['LLM__CALL_DEADLINE_S', '-1'],
    ['LLM__CALL_DEADLINE_S', 'nan'],
    ['LLM__CALL_DEADLINE_S', 'inf'],
    ['LLM__CALL_DEADLINE_S', '1e999'],
    ['LLM__CALL_DEADLINE_S', 'abc'],
    ['LLM__CALL_DEADLINE_S', '99999999'],
    ['LLM__MAX_ATTEMPTS', '0'],
    ['LLM__MAX_ATTEMPTS', '2.5'],
    ['LLM__RETRY__BACKOFF_BASE_S', '-1'],
    ['LLM__RETRY__BACKOFF_MAX_S', '0.1'],
    ['LLM__BREAKER__COOLDOWN_S', '0'],
    ['LLM__BREAKER__FAILURE_THRESHOLD', 'five'],
    ['LLM__BREAKER__FAILURE_RATE', '1.5'],
    ['LLM__BREAKER__FAILURE_RATE', '0'],
    ['LLM__BREAKER__WINDOW_S', '0'],
    ['LLM__BREAKER__MIN_SAMPLES', '0'],
    ['LLM__BREAKER__MAX_COOLDOWN_S', '1'],
    ['LLM__PROBE_TTL_S', '149.9'],
    ['LLM__LEASE_TTL_S', '10'],
    ['LLM__BACKPRESSURE__STALL_WINDOW_S', '0'],
    ['LLM__GLOBAL__RPM', '-5'],
    ['LLM__GLOBAL__TPM', '1k'],
    ['LLM__GLOBAL__MAX_CONCURRENCY', '1.5'],
    ['LLM__CACHE__TTL_S', '0'],
    ['LLM__STRUCTURED__MAX_RETRIES', '-1'],
    ['LLM__STRUCTURED__STRATEGY', 'regex'],
    ['LLM__STRUCTURED__ESCALATION', 'pray'],
    ['LLM__TELEMETRY__TEXT_CAP', '-1'],
    ['LLM__SOURCE__MAIN__BASE_URL', 'ftp://h'],
    ['LLM__SOURCE__MAIN__BASE_URL', 'not a url'],
    ['LLM__SOURCE__MAIN__PROVIDER', 'no-such-profile'],
    ['LLM__SOURCE__MAIN__RPM', '-1'],
    ['LLM__SOURCE__MAIN__TPM', 'many'],
    ['LLM__SOURCE__MAIN__MAX_CONCURRENCY', '0.5'],
    ['LLM__SOURCE__MAIN__EST_TOKENS', '-100'],
    ['LLM__SOURCE__MAIN__TIMEOUT_S', '0'],
    ['LLM__SOURCE__MAIN__WEIGHT', '0'],
    ['LLM__SOURCE__MAIN__EXTRA_BODY', '{"a":'],
    ['LLM__SOURCE__MAIN__EXTRA_BODY', '[1,2]'],
    ['PGW_LIMITER_BACKEND', 'etcd'],
    ['PGW_BREAKER_BACKEND', 'none'],
    ['PGW_CACHE_BACKEND', 'disk'],
    ['PGW_TELEMETRY_BACKEND', 'mysql'],
    ['REDIS_URL', 'http://127.0.0.1:6379'],
    ['PGW_TELEMETRY_DSN', 'mysql://h/db'],
  ];
  it.each(cases)('%s=%s', (key, raw) => {
    const error = settingsErrorOf(() => load({ [key]: raw }));
    expect(error.key).toBe(key);
    expect(error.message.startsWith(key)).toBe(true);
  });

  it('a redis backend without REDIS_URL names REDIS_URL', () => {
    for (const key of ['PGW_LIMITER_BACKEND', 'PGW_BREAKER_BACKEND', 'PGW_CACHE_BACKEND']) {
      const error = settingsErrorOf(() => load({ [key]: 'redis' }));
      expect(error.key).toBe('REDIS_URL');
      expect(error.problem).toContain(key);
    }
  });

  it('sentinel mode without the master name names PGW_REDIS_SENTINEL_MASTER', () => {
    const error = settingsErrorOf(() => load({ PGW_LIMITER_BACKEND: 'redis', PGW_REDIS_MODE: 'sentinel', REDIS_URL: 'redis://s1:26379,redis://s2:26379' }));
    expect(error.key).toBe('PGW_REDIS_SENTINEL_MASTER');
    expect(error.problem).toContain('PGW_REDIS_MODE=sentinel');
  });

  it('a master name outside sentinel mode names PGW_REDIS_SENTINEL_MASTER', () => {
    const error = settingsErrorOf(() => load({ PGW_LIMITER_BACKEND: 'redis', REDIS_URL: 'redis://r:6379', PGW_REDIS_SENTINEL_MASTER: 'main' }));
    expect(error.key).toBe('PGW_REDIS_SENTINEL_MASTER');
  });

  it('postgres telemetry without a DSN names PGW_TELEMETRY_DSN', () => {
    expect(settingsErrorOf(() => load({ PGW_TELEMETRY_BACKEND: 'postgres' })).key).toBe('PGW_TELEMETRY_DSN');
  });

  it('an explicit PROBE_TTL below the slowest timeout + grace says the floor', () => {
    const error = settingsErrorOf(() => load({ LLM__SOURCE__MAIN__TIMEOUT_S: '200', LLM__PROBE_TTL_S: '220' }));
    expect(error.key).toBe('LLM__PROBE_TTL_S');
    expect(error.problem).toContain('230 s');
  });

  it('a scope without sources names the BASE_URL key to set', () => {
    const error = settingsErrorOf(() => loadGatewaySettings('Embed', { env: {}, warn: () => {} }));
    expect(error.key).toBe('EMBED__SOURCE__<NAME>__BASE_URL');
  });

  it('a source without MODEL or BASE_URL names the missing key', () => {
    expect(settingsErrorOf(() => loadGatewaySettings('LLM', { env: { LLM__SOURCE__Q__BASE_URL: 'http://h' } })).key).toBe(
      'LLM__SOURCE__Q__MODEL',
    );
    expect(settingsErrorOf(() => loadGatewaySettings('LLM', { env: { LLM__SOURCE__Q__MODEL: 'q' } })).key).toBe(
      'LLM__SOURCE__Q__BASE_URL',
    );
  });

  it('{SCOPE}__SOURCES naming an unconfigured, empty or repeated source names the key', () => {
    for (const list of ['main,ghost', 'main,,main', 'main,MAIN']) {
      expect(settingsErrorOf(() => load({ LLM__SOURCES: list })).key).toBe('LLM__SOURCES');
    }
  });

  it('the same source field spelled in two cases is an error, not a silent pick', () => {
    const error = settingsErrorOf(() => load({ LLM__SOURCE__Main__MODEL: 'other' }));
    expect(error.message).toMatch(/LLM__SOURCE__(Main|MAIN)__MODEL/);
  });

  it('the legacy alias disagreeing with the new key is an error naming both', () => {
    const error = settingsErrorOf(() => load({ LLM_CIRCUIT_BREAKER_COOLDOWN: '90', LLM__BREAKER__COOLDOWN_S: '60' }));
    expect(error.key).toBe('LLM__BREAKER__COOLDOWN_S');
    expect(error.problem).toContain('LLM_CIRCUIT_BREAKER_COOLDOWN');
  });

  it('a malformed legacy alias names the alias', () => {
    expect(settingsErrorOf(() => load({ LLM_CIRCUIT_BREAKER_COOLDOWN: '0' })).key).toBe('LLM_CIRCUIT_BREAKER_COOLDOWN');
  });

  it('echoes numeric values but never a URL, key, DSN or body', () => {
    expect(settingsErrorOf(() => load({ LLM__MAX_ATTEMPTS: '0' })).message).toContain('"0"');
    const secrets = {
      LLM__SOURCE__MAIN__BASE_URL: 'ftp://user:hunter2@h',
      REDIS_URL: 'http://:hunter2@h',
      PGW_TELEMETRY_DSN: 'mysql://u:hunter2@h/db',
      LLM__SOURCE__MAIN__EXTRA_BODY: '{"token":"hunter2"',
    };
    for (const [key, raw] of Object.entries(secrets)) {
      expect(settingsErrorOf(() => load({ [key]: raw, PGW_TELEMETRY_BACKEND: 'postgres' })).message).not.toContain('hunter2');
    }
  });

  it('rejects a scope name that cannot be a key prefix', () => {
    for (const scope of ['', 'L L M', 'LLM__X', '_LLM']) {
      expect(settingsErrorOf(() => loadGatewaySettings(scope, { env: BASE })).key).toBe('scope');
    }
  });
});

describe('unknown keys under the scope prefix', () => {
  it('produce one warning naming them all, and nothing else', () => {
    const warn = vi.fn();
    const s = load(
      {
        LLM__SELECTR: 'ordered',
        LLM__SOURCE__MAIN__MODLE: 'x',
        LLM__SOURCE__MAIN: 'x',
        LLM__BATCH_SIZE: '8',
        EMBED__WHATEVER: '1',
        LLMX__FOO: '1',
      },
      warn,
    );
    expect(s.selector).toBe('health_aware');
    expect(warn).toHaveBeenCalledTimes(1);
    const message = String(warn.mock.calls[0]![0]);
    for (const key of ['LLM__SELECTR', 'LLM__SOURCE__MAIN__MODLE', 'LLM__SOURCE__MAIN', 'LLM__BATCH_SIZE']) {
      expect(message).toContain(key);
    }
    expect(message).not.toContain('EMBED__WHATEVER');
    expect(message).not.toContain('LLMX__FOO');
  });

  it('structured keys are unknown in an embedding scope', () => {
    const warn = vi.fn();
    loadEmbeddingSettings('EMBED', {
      env: { EMBED__SOURCE__E__BASE_URL: 'http://h', EMBED__SOURCE__E__MODEL: 'e', EMBED__STRUCTURED__MAX_RETRIES: '2' },
      warn,
    });
    expect(String(warn.mock.calls[0]![0])).toContain('EMBED__STRUCTURED__MAX_RETRIES');
  });

  it('keys of a source left out by {SCOPE}__SOURCES are not reported', () => {
    const warn = vi.fn();
    load({ LLM__SOURCES: 'main', LLM__SOURCE__SPARE__BASE_URL: 'http://s', LLM__SOURCE__SPARE__MODEL: 's' }, warn);
    expect(warn).not.toHaveBeenCalled();
  });
});

describe('both paths produce the same value', () => {
  it('minimal configuration', () => {
    const fromEnv = load();
    const direct = gatewaySettings({ scope: 'llm', sources: [{ name: 'MAIN', baseUrl: 'http://127.0.0.1:9/v1', model: 'm-1' }] });
    expect(direct).toStrictEqual(fromEnv);
    expect(Object.isFrozen(direct.sources)).toBe(true);
  });

  it('every key set', () => {
    const fromEnv = load({
      LLM__SOURCE__B__BASE_URL: 'https://b.example/v1',
      LLM__SOURCE__B__MODEL: 'b',
      LLM__SOURCE__B__API_KEY: 'k',
      LLM__SOURCE__B__PROVIDER: 'anthropic_compat',
      LLM__SOURCE__B__RPM: '1',
      LLM__SOURCE__B__TPM: '2',
      LLM__SOURCE__B__MAX_CONCURRENCY: '3',
      LLM__SOURCE__B__EST_TOKENS: '4',
      LLM__SOURCE__B__TIMEOUT_S: '5',
      LLM__SOURCE__B__WEIGHT: '6',
      LLM__SOURCE__B__EXTRA_BODY: '{"x":1}',
      LLM__SOURCES: 'b,main',
      LLM__SELECTOR: 'weighted',
      LLM__QUOTA_FULL: 'fail_fast',
      LLM__CIRCUIT_OPEN: 'wait',
      LLM__CALL_DEADLINE_S: '9',
      LLM__MAX_ATTEMPTS: '5',
      LLM__RETRY__BACKOFF_BASE_S: '1',
      LLM__RETRY__BACKOFF_MAX_S: '2',
      LLM__BREAKER__COOLDOWN_S: '3',
      LLM__BREAKER__FAILURE_THRESHOLD: '4',
      LLM__BREAKER__FAILURE_RATE: '0.25',
      LLM__BREAKER__WINDOW_S: '6',
      LLM__BREAKER__MIN_SAMPLES: '7',
      LLM__BREAKER__MAX_COOLDOWN_S: '8',
      LLM__PROBE_TTL_S: '151',
      LLM__LEASE_TTL_S: '152',
      LLM__BACKPRESSURE__STALL_WINDOW_S: '11',
      LLM__GLOBAL__RPM: '12',
      LLM__GLOBAL__TPM: '13',
      LLM__GLOBAL__MAX_CONCURRENCY: '14',
      LLM__CACHE__NAMESPACE: 'ns',
      LLM__CACHE__ISOLATION: 'namespace',
      LLM__CACHE__TTL_S: '15',
      LLM__CACHE__SALT: 's',
      LLM__STRUCTURED__MAX_RETRIES: '2',
      LLM__STRUCTURED__STRATEGY: 'json_schema',
      LLM__STRUCTURED__ESCALATION: 'json_repair',
      LLM__TELEMETRY__TEXT_CAP: '16',
      LLM__MAX_REQUEST_MB: '17',
      LLM__PRICING_PATH: 'p.json',
      PGW_LIMITER_BACKEND: 'redis',
      PGW_BREAKER_BACKEND: 'memory',
      PGW_CACHE_BACKEND: 'none',
      PGW_TELEMETRY_BACKEND: 'postgres',
      REDIS_URL: 'redis://r:6379',
      PGW_TELEMETRY_DSN: 'postgresql://p/db',
    });
    const direct = gatewaySettings({
      scope: 'LLM',
      sources: [
        {
          name: 'b',
          baseUrl: 'https://b.example/v1',
          model: 'b',
          apiKey: 'k',
          provider: 'anthropic_compat',
          rpm: 1,
          tpm: 2,
          maxConcurrency: 3,
          estTokens: 4,
          timeoutMs: 5000,
          weight: 6,
          extraBody: { x: 1 },
        },
        { name: 'main', baseUrl: 'http://127.0.0.1:9/v1/', model: 'm-1' },
      ],
      selector: 'weighted',
      quotaFull: 'fail_fast',
      circuitOpen: 'wait',
      callDeadlineMs: 9000,
      retry: { maxAttempts: 5, backoffBaseMs: 1000, backoffMaxMs: 2000 },
      breaker: {
        cooldownMs: 3000,
        failureThreshold: 4,
        failureRate: 0.25,
        windowMs: 6000,
        minSamples: 7,
        maxCooldownMs: 8000,
        probeTtlMs: 151_000,
      },
      leaseTtlMs: 152_000,
      stallWindowMs: 11_000,
      global: { rpm: 12, tpm: 13, maxConcurrency: 14 },
      cache: { namespace: 'ns', isolation: 'namespace', ttlMs: 15_000, salt: 's' },
      structured: { maxRetries: 2, strategy: 'json_schema', escalation: 'json_repair' },
      telemetryTextCap: 16,
      maxRequestMb: 17,
      pricingPath: 'p.json',
      backends: {
        limiter: 'redis',
        breaker: 'memory',
        cache: 'none',
        telemetry: 'postgres',
        redisUrl: 'redis://r:6379',
        telemetryDsn: 'postgresql://p/db',
      },
    });
    expect(direct).toStrictEqual(fromEnv);
  });

  it('embedding and OCR settings', () => {
    const env = { EMBED__SOURCE__E__BASE_URL: 'http://e/v1', EMBED__SOURCE__E__MODEL: 'e', EMBED__EXPECTED_DIM: '8' };
    expect(embeddingSettings({ scope: 'EMBED', sources: [{ name: 'e', baseUrl: 'http://e/v1', model: 'e' }], expectedDim: 8 })).toStrictEqual(
      loadEmbeddingSettings('EMBED', { env }),
    );
    expect(ocrSettings({ scope: 'OCR', sources: [{ name: 'm', baseUrl: 'http://o' }] })).toStrictEqual(
      loadOcrSettings('OCR', { env: { OCR__SOURCE__M__BASE_URL: 'http://o' } }),
    );
  });

  it('direct construction names the same env key, plus the settings field', () => {
    const error = settingsErrorOf(() =>
      gatewaySettings({ scope: 'llm', sources: [{ name: 'qwen', baseUrl: 'http://h', model: 'q', rpm: -1 }] }),
    );
    expect(error.key).toBe('LLM__SOURCE__QWEN__RPM');
    expect(error.field).toBe('sources[0].rpm');
    expect(error.message).toContain('sources[0].rpm');
    const deadline = settingsErrorOf(() =>
      gatewaySettings({ scope: 'llm', sources: [{ name: 'q', baseUrl: 'http://h', model: 'q' }], callDeadlineMs: Number.NaN }),
    );
    expect(deadline.key).toBe('LLM__CALL_DEADLINE_S');
  });

  it('direct construction refuses an unknown field (typo protection) and a duplicate source', () => {
    const source = { name: 'q', baseUrl: 'http://h', model: 'q' };
    const typo = settingsErrorOf(() =>
      gatewaySettings({ scope: 'LLM', sources: [source], retry: { maxAtempts: 2 } } as unknown as Parameters<typeof gatewaySettings>[0]),
    );
    expect(typo.key).toBe('retry.maxAtempts');
    const twice = settingsErrorOf(() => gatewaySettings({ scope: 'LLM', sources: [source, { ...source, name: 'Q' }] }));
    expect(twice.key).toBe('LLM__SOURCES');
  });

  it('direct construction does not freeze the caller\'s own objects', () => {
    const extraBody = { top_k: 1 };
    const s = gatewaySettings({ scope: 'LLM', sources: [{ name: 'q', baseUrl: 'http://h', model: 'q', extraBody }] });
    expect(Object.isFrozen(extraBody)).toBe(false);
    expect(s.sources[0]!.extraBody).toEqual(extraBody);
  });
});
