/**
 * Usage as the upstream bills it, end to end through fromEnv and the mock: prompt-cache hits priced
 * at the cached input price (in the response and in both stores' rows, SQLite file and real
 * Postgres), and the context-window fallback.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { summarize as summarizePg } from '@pgw/telemetry-pg';
import { summarize as summarizeSqlite } from '@pgw/telemetry-sqlite';
import { afterAll, describe, expect, it } from 'vitest';
import type { TelemetrySummary } from '@pgw/core';
import { ContextLengthExceededError, GatewayClient } from '../src/index.js';
import { MockFixture, PG_DSN, scopeKeys, uniqueScope } from './helpers/e2e.js';
import { telemetryStores } from './helpers/stores.js';

interface StoredRow {
  source: string;
  prompt_tokens: number;
  completion_tokens: number;
  reasoning_tokens: number | null;
  cached_prompt_tokens: number | null;
  cost_usd: number;
  cache_saving_usd: number | null;
}

const COLUMNS = 'source, prompt_tokens, completion_tokens, reasoning_tokens, cached_prompt_tokens, cost_usd, cache_saving_usd';
const dir = mkdtempSync(join(tmpdir(), 'pgw-client-usage-'));
const STORES = telemetryStores(dir);
/** Postgres holds every scope's rows: its summary is read for this test's time range (the source names are unique). */
const SUMMARIES = {
  sqlite: (scope: string): Promise<TelemetrySummary> => summarizeSqlite({ path: STORES[0].sqlitePath(scope) }),
  postgres: (): Promise<TelemetrySummary> => summarizePg({ dsn: PG_DSN }, { since: Date.now() - 60_000 }),
};

const fixture = MockFixture.use();
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

const HI = [{ role: 'user' as const, content: 'a long shared system prompt, then a question' }];
/** 10 000 prompt tokens of which 8 000 cached; 2 000 completion tokens of which 500 reasoning. */
const USAGE = { prompt_tokens: 10_000, completion_tokens: 2_000, reasoning_tokens: 500, cached_tokens: 8_000 };
/** 2 000 × 3 + 8 000 × 0.3 + 1 500 × 15 + 500 × 20 = 40 900 USD per million tokens. */
const PRICE = { inputPerMTok: 3, cachedInputPerMTok: 0.3, outputPerMTok: 15, reasoningPerMTok: 20 };
const COST_USD = 0.0409;
/** 8 000 × (3 − 0.3) per million. */
const SAVING_USD = 0.0216;

describe('prompt-cache hits priced as the upstream bills them', () => {
  const CASES = STORES.flatMap((store) =>
    [
      ['OpenAI usage form, streamed, priced by PRICING_PATH', 'openai', 'true', 'table'],
      ['DeepSeek usage form, one JSON body, priced by the source key PRICING', 'deepseek', 'false', 'source'],
    ].map(([what, form, stream, pricing]) => [store.name, what!, form as 'openai' | 'deepseek', stream!, pricing!, store] as const),
  );

  it.each(CASES)('into %s: %s', async (_store, _what, form, stream, pricing, store) => {
    const scope = uniqueScope('usage');
    const source = fixture.source('cached', { usage: { ...USAGE, cache_form: form } });
    const pricingPath = join(dir, `${scope}.pricing.json`);
    // The model's table price is what a source price must override: a wrong one would show.
    writeFileSync(pricingPath, JSON.stringify({ 'mock-model': pricing === 'table' ? PRICE : { inputPerMTok: 99, outputPerMTok: 99 } }));
    const env = {
      ...store.env(scope),
      ...fixture.sourceKeys(scope, source, { STREAM: stream, ...(pricing === 'source' && { PRICING: JSON.stringify(PRICE) }) }),
      ...scopeKeys(scope, { PRICING_PATH: pricingPath, CACHE__NAMESPACE: scope }),
    };
    const client = await GatewayClient.fromEnv(scope, { env, warn: () => {} });
    try {
      const response = await client.chat(HI, { tenantId: `tenant-${scope}` });
      expect(response.usage).toEqual({
        promptTokens: 10_000,
        completionTokens: 2_000,
        reasoningTokens: 500,
        cachedPromptTokens: 8_000,
        usageSource: 'measured',
      });
      expect(response.costUsd).toBeCloseTo(COST_USD, 12);
    } finally {
      await client.close();
    }

    const [row, ...others] = await store.rows<StoredRow>(scope, COLUMNS, "event_kind = 'attempt'");
    expect(others).toEqual([]);
    expect(row).toMatchObject({ source, prompt_tokens: 10_000, completion_tokens: 2_000, reasoning_tokens: 500, cached_prompt_tokens: 8_000 });
    // To the micro-dollar and beyond: the stores keep the double as computed.
    expect(row!.cost_usd).toBeCloseTo(COST_USD, 12);
    expect(row!.cache_saving_usd).toBeCloseTo(SAVING_USD, 12);

    const summary = await SUMMARIES[store.name](scope);
    expect(summary.promptCacheBySource[source]).toEqual({ promptTokens: 10_000, cachedPromptTokens: 8_000, cacheWritePromptTokens: 0, savingUsd: expect.closeTo(SAVING_USD, 12) });
    expect(summary.promptCacheByTenant[`tenant-${scope}`]).toMatchObject({ promptTokens: 10_000, cachedPromptTokens: 8_000 });
  });
});

describe('context-window fallback through fromEnv', () => {
  const TOO_LONG = { steps: [{ kind: 'context_length_exceeded' as const, contextWindow: 4096 }] };

  function sources(windows: boolean) {
    const scope = uniqueScope('window');
    const small = fixture.source('small', TOO_LONG);
    const unknown = fixture.source('unknown', TOO_LONG);
    const large = fixture.source('large');
    const env = {
      ...fixture.sourceKeys(scope, small, windows ? { CONTEXT_WINDOW: '4096' } : {}),
      ...fixture.sourceKeys(scope, unknown),
      ...fixture.sourceKeys(scope, large, windows ? { CONTEXT_WINDOW: '131072' } : {}),
      ...scopeKeys(scope, { SELECTOR: 'ordered', SOURCES: [small, unknown, large].join(','), CACHE__NAMESPACE: scope }),
    };
    return { scope, env, small, unknown, large };
  }

  it('a context-length 400 on a small-window source moves on to the large-window one (a source without a window is skipped)', async () => {
    const { scope, env, small, unknown, large } = sources(true);
    const client = await GatewayClient.fromEnv(scope, { env, warn: () => {} });
    try {
      const response = await client.chat(HI);
      expect(response.source).toBe(large);
      expect(response.callStats.sourcesTried).toEqual([small, large]);
    } finally {
      await client.close();
    }
    expect([small, unknown, large].map((name) => fixture.mock.counters(name).chat)).toEqual([1, 0, 1]);
  });

  it('without declared windows the ContextLengthExceededError reaches the caller, nothing else is tried', async () => {
    const { scope, env, small, unknown, large } = sources(false);
    const client = await GatewayClient.fromEnv(scope, { env, warn: () => {} });
    try {
      const error = await client.chat(HI).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ContextLengthExceededError);
      expect(error).toMatchObject({ sourceName: small, statusCode: 400 });
    } finally {
      await client.close();
    }
    expect([small, unknown, large].map((name) => fixture.mock.counters(name).chat)).toEqual([1, 0, 0]);
  });
});
