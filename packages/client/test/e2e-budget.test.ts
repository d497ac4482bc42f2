/**
 * Spend budgets end to end: fromEnv against the loopback mock, on memory and on Redis. Prices are
 * round on purpose: 0.01 USD per prompt token, 0.02 per answer token, 0.005 per cached prompt
 * token, 0.04 per reasoning token. A call `user: hi` (2 estimated prompt tokens) with max_tokens 10
 * reserves 0.02 + 10 × 0.02 = 0.22 USD (0.42 where reasoning is priced); the mock bills 10 + 5 tokens.
 */
import type { GatewaySubscriber } from '@pgw/core';
import { describe, expect, it } from 'vitest';
import { BudgetExceededError, EmbeddingClient, GatewayClient, SettingsError, gatewaySettings, loadOcrSettings } from '../src/index.js';
import { BACKENDS, MockFixture, outcome, scopeKeys, throwingModel, uniqueScope } from './helpers/e2e.js';

const fixture = MockFixture.use();

const PRICE = { inputPerMTok: 10_000, cachedInputPerMTok: 5_000, outputPerMTok: 20_000 };
const BILLED = { prompt_tokens: 10, completion_tokens: 5 };
/** 10 × 0.01 + 5 × 0.02. */
const BILLED_USD = 0.2;
const RESERVED_USD = 0.22;
const HI = [{ role: 'user' as const, content: 'hi' }];
const BOUNDED = { sampling: { max_tokens: 10 } };
const FAST = { RETRY__BACKOFF_BASE_S: '0.01', RETRY__BACKOFF_MAX_S: '0.02' };

const nextUtcMidnight = (now: number) => {
  const d = new Date(now);
  return Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate() + 1);
};

describe.each(BACKENDS)('spend budgets through fromEnv on $name backends', (backend) => {
  async function withClient<T>(
    budget: Record<string, string>,
    script: Parameters<MockFixture['source']>[1],
    run: (client: GatewayClient, source: string) => Promise<T>,
    options: { price?: object; subscribers?: GatewaySubscriber[]; keys?: Record<string, string> } = {},
  ): Promise<T> {
    const scope = uniqueScope('budget');
    const source = fixture.source('priced', { usage: BILLED, ...script });
    const env = {
      ...backend.env,
      PGW_CACHE_BACKEND: 'none',
      ...scopeKeys(scope, { ...FAST, ...budget, ...options.keys }),
      ...fixture.sourceKeys(scope, source, { PRICING: JSON.stringify(options.price ?? PRICE) }),
    };
    const client = await GatewayClient.fromEnv(scope, { env, warn: () => {}, ...(options.subscribers && { subscribers: options.subscribers }) });
    try {
      return await run(client, source);
    } finally {
      await client.close();
    }
  }

  it('spends up to within one reservation, then refuses at once with BudgetExceededError (QUOTA_FULL=wait), never retried', async () => {
    const refused: unknown[] = [];
    await withClient(
      { BUDGET__USD: '1', QUOTA_FULL: 'wait' },
      {},
      async (client, source) => {
        for (let i = 0; i < 4; i++) expect((await client.chat(HI, BOUNDED)).costUsd).toBeCloseTo(BILLED_USD, 9);
        const before = Date.now();
        const { error, elapsedMs } = await outcome(() => client.chat(HI, BOUNDED));
        expect(error).toBeInstanceOf(BudgetExceededError);
        const exceeded = error as BudgetExceededError;
        expect(exceeded).toMatchObject({ scope: client.settings.scope, budgetUsd: 1, tenantId: undefined });
        expect(exceeded.spentUsd).toBeCloseTo(0.8, 9);
        expect(exceeded.resetAt).toBe(nextUtcMidnight(before));
        expect(exceeded.retryAfterMs).toBeGreaterThan(0);
        expect(exceeded.retryAfterMs).toBeLessThanOrEqual(exceeded.resetAt! - before);
        expect(elapsedMs).toBeLessThan(5_000); // not a wait for room: a refusal
        expect(fixture.mock.counters(source).chat).toBe(4);
        const status = await client.budgetStatus();
        expect(status).toMatchObject({ scope: client.settings.scope, budgetUsd: 1, reservedUsd: 0, resetAt: exceeded.resetAt });
        expect(status!.spentUsd).toBeCloseTo(0.8, 9);
        expect(refused).toHaveLength(1);
        expect(refused[0]).toMatchObject({ scope: client.settings.scope, budgetUsd: 1, resetAt: exceeded.resetAt });
      },
      { subscribers: [{ onBudgetRefused: (event) => refused.push(event) }] },
    );
  });

  it('a cache hit costs nothing and is served when the budget is spent', async () => {
    const scope = uniqueScope('budget');
    const source = fixture.source('priced', { usage: BILLED });
    const env = {
      ...backend.env,
      ...scopeKeys(scope, { BUDGET__USD: '0.3', CACHE__NAMESPACE: scope }),
      ...fixture.sourceKeys(scope, source, { PRICING: JSON.stringify(PRICE) }),
    };
    const client = await GatewayClient.fromEnv(scope, { env, warn: () => {} });
    try {
      await client.chat(HI, BOUNDED);
      await expect(client.chat([{ role: 'user', content: 'another' }], BOUNDED)).rejects.toBeInstanceOf(BudgetExceededError);
      const again = await client.chat(HI, BOUNDED);
      expect(again.cached).toBe(true);
      expect((await client.budgetStatus())!.spentUsd).toBeCloseTo(BILLED_USD, 9);
      expect(fixture.mock.counters(source).chat).toBe(1);
    } finally {
      await client.close();
    }
  });

  it('per tenant: each tenant has a budget of its own, calls without a tenant share one', async () => {
    await withClient({ BUDGET__USD: '0.3', BUDGET__PER: 'tenant' }, {}, async (client) => {
      await client.chat(HI, { ...BOUNDED, tenantId: 'acme' });
      await expect(client.chat(HI, { ...BOUNDED, tenantId: 'acme' })).rejects.toMatchObject({ name: 'BudgetExceededError', tenantId: 'acme' });
      await client.chat(HI, { ...BOUNDED, tenantId: 'beta' });
      await client.chat(HI, BOUNDED);
      await expect(client.chat(HI, BOUNDED)).rejects.toMatchObject({ name: 'BudgetExceededError', tenantId: undefined });
      expect(await client.budgetStatus({ tenantId: 'beta' })).toMatchObject({ tenantId: 'beta', budgetUsd: 0.3 });
      expect((await client.budgetStatus({ tenantId: 'gamma' }))!.spentUsd).toBe(0);
    });
  });

  describe('settlement in dollars (docs/architecture.md#settlement)', () => {
    const spentAfter = async (client: GatewayClient) => (await client.budgetStatus())!.spentUsd;

    it('S4: a known usage is billed as the telemetry row prices it, cached prompt tokens at the cached price', async () => {
      await withClient({ BUDGET__USD: '5' }, { usage: { ...BILLED, cached_tokens: 4 } }, async (client) => {
        const response = await client.chat(HI, BOUNDED);
        expect(response.costUsd).toBeCloseTo(0.06 + 0.02 + 0.1, 9);
        expect(await spentAfter(client)).toBeCloseTo(response.costUsd!, 9);
      });
    });

    it('S4: reasoning tokens at the reasoning price, and the reservation at the reasoning price too', async () => {
      const price = { ...PRICE, reasoningPerMTok: 40_000 };
      await withClient(
        { BUDGET__USD: '0.4' },
        { usage: { ...BILLED, reasoning_tokens: 3 } },
        async (client) => {
          // 0.42 reserved > 0.4: refused before anything is sent.
          await expect(client.chat(HI, BOUNDED)).rejects.toBeInstanceOf(BudgetExceededError);
          const response = await client.chat(HI, { sampling: { max_tokens: 5 } });
          expect(response.costUsd).toBeCloseTo(0.1 + 0.04 + 0.12, 9);
          expect(await spentAfter(client)).toBeCloseTo(response.costUsd!, 9);
        },
        { price },
      );
    });

    it('without max_tokens the source’s EST_TOKENS bounds the answer', async () => {
      const scope = uniqueScope('budget');
      const source = fixture.source('priced', { usage: BILLED });
      const env = {
        ...backend.env,
        PGW_CACHE_BACKEND: 'none',
        ...scopeKeys(scope, { BUDGET__USD: '1' }),
        ...fixture.sourceKeys(scope, source, { PRICING: JSON.stringify(PRICE), EST_TOKENS: '100' }),
      };
      const client = await GatewayClient.fromEnv(scope, { env, warn: () => {} });
      try {
        // 0.02 + 100 × 0.02 = 2.02 > 1: refused before anything is sent.
        await expect(client.chat(HI)).rejects.toBeInstanceOf(BudgetExceededError);
        expect(fixture.mock.counters(source).chat).toBe(0);
        expect((await client.chat(HI, BOUNDED)).costUsd).toBeCloseTo(BILLED_USD, 9);
      } finally {
        await client.close();
      }
    });

    it('S5: a transient failure keeps its reservation (it may have been billed), the retry is billed', async () => {
      await withClient({ BUDGET__USD: '5' }, { steps: [{ kind: 'status', status: 500 }] }, async (client) => {
        await client.chat(HI, BOUNDED);
        expect(await spentAfter(client)).toBeCloseTo(RESERVED_USD + BILLED_USD, 9);
      });
    });

    it.each([
      ['a dead source', { kind: 'status', status: 401 }],
      ['a rejected request', { kind: 'status', status: 400 }],
    ] as const)('S5: %s costs nothing', async (_label, step) => {
      await withClient({ BUDGET__USD: '5', MAX_ATTEMPTS: '1' }, { otherwise: step }, async (client) => {
        await expect(client.chat(HI, BOUNDED)).rejects.toBeDefined();
        expect(await client.budgetStatus()).toMatchObject({ spentUsd: 0, reservedUsd: 0 });
      });
    });

    it('S3: a call cancelled with its request in flight keeps its reservation', async () => {
      await withClient({ BUDGET__USD: '5' }, { otherwise: { kind: 'hang' } }, async (client, source) => {
        const controller = new AbortController();
        const call = client.chat(HI, { ...BOUNDED, signal: controller.signal }).catch((error: unknown) => error);
        await fixture.inflight(source);
        expect((await client.budgetStatus())!.reservedUsd).toBeCloseTo(RESERVED_USD, 9);
        controller.abort();
        expect(await call).toMatchObject({ name: 'AbortError' });
        await expect.poll(() => spentAfter(client), { timeout: 10_000 }).toBeCloseTo(RESERVED_USD, 9);
        expect((await client.budgetStatus())!.reservedUsd).toBe(0);
      });
    });

    it('S2: a call cancelled while it waits for room holds nothing and costs nothing', async () => {
      await withClient({ BUDGET__USD: '0.3' }, { otherwise: { kind: 'hang' } }, async (client, source) => {
        const holder = new AbortController();
        const first = client.chat(HI, { ...BOUNDED, signal: holder.signal }).catch((error: unknown) => error);
        await fixture.inflight(source);
        const waiter = new AbortController();
        const waiting = client.chat(HI, { ...BOUNDED, signal: waiter.signal }).catch((error: unknown) => error);
        await new Promise((resolve) => setTimeout(resolve, 100));
        expect(fixture.mock.counters(source).chat).toBe(1);
        waiter.abort();
        expect(await waiting).toMatchObject({ name: 'AbortError' });
        holder.abort();
        await first;
        await expect.poll(() => spentAfter(client), { timeout: 10_000 }).toBeCloseTo(RESERVED_USD, 9);
        expect((await client.budgetStatus())!.reservedUsd).toBe(0);
      });
    });

    it('a caller waits while another’s reservation holds the room, and is served once it settles', async () => {
      await withClient({ BUDGET__USD: '0.45' }, { latencyMs: 200 }, async (client, source) => {
        const [a, b] = await Promise.all([client.chat(HI, BOUNDED), client.chat(HI, BOUNDED)]);
        expect(a.costUsd! + b.costUsd!).toBeCloseTo(2 * BILLED_USD, 9);
        expect(fixture.mock.counters(source).chat).toBe(2);
        expect((await client.budgetStatus())!.spentUsd).toBeCloseTo(2 * BILLED_USD, 9);
      });
    });

    it('S1: a breaker refusal takes no reservation and costs nothing', async () => {
      await withClient({ BUDGET__USD: '5', MAX_ATTEMPTS: '1' }, { otherwise: { kind: 'status', status: 401 } }, async (client, source) => {
        await expect(client.chat(HI, BOUNDED)).rejects.toBeDefined(); // 401: the source is dead, its breaker opens
        await expect(client.chat(HI, BOUNDED)).rejects.toMatchObject({ name: 'CircuitOpenError' });
        expect(fixture.mock.counters(source).chat).toBe(1);
        expect(await client.budgetStatus()).toMatchObject({ spentUsd: 0, reservedUsd: 0 });
      });
    });

    it('S4 over S5: an invalid result whose usage is known is billed that usage (an embedding of the wrong dimension)', async () => {
      const scope = uniqueScope('budget');
      const source = fixture.source('embedder', { otherwise: { kind: 'wrong_dim', dim: 3 } });
      const env = {
        ...backend.env,
        ...scopeKeys(scope, { BUDGET__USD: '5', EXPECTED_DIM: '4' }),
        ...fixture.sourceKeys(scope, source, { PRICING: JSON.stringify(PRICE) }),
      };
      const client = await EmbeddingClient.fromEnv(scope, { env, warn: () => {} });
      try {
        await expect(client.embed(['alpha'])).rejects.toMatchObject({ name: 'ResultInvalidError' });
        // The mock bills 1 prompt token for `alpha`: 0.01 USD, a fact the invalid answer does not undo.
        expect(await client.budgetStatus()).toMatchObject({ spentUsd: 0.01, reservedUsd: 0 });
      } finally {
        await client.close();
      }
    });

    it('S7: an embedding is billed its prompt tokens', async () => {
      const scope = uniqueScope('budget');
      const source = fixture.source('embedder', {});
      const env = {
        ...backend.env,
        ...scopeKeys(scope, { BUDGET__USD: '5' }),
        ...fixture.sourceKeys(scope, source, { PRICING: JSON.stringify(PRICE) }),
      };
      const client = await EmbeddingClient.fromEnv(scope, { env, warn: () => {} });
      try {
        const response = await client.embed(['alpha beta', 'gamma']);
        expect(response.costUsd).toBeGreaterThan(0);
        expect((await client.budgetStatus())!.spentUsd).toBeCloseTo(response.costUsd!, 9);
      } finally {
        await client.close();
      }
    });
  });
});

describe('settlement in dollars of an unclassified exception (S8), on the in-memory governor', () => {
  it('a bug escaping the model costs nothing and leaves nothing reserved', async () => {
    const model = throwingModel(new TypeError('a bug in the model'));
    const settings = gatewaySettings({ scope: 'S8', sources: [{ name: 'a', model, price: PRICE }], budget: { usd: 5 } });
    const client = await GatewayClient.fromSettings(settings, { warn: () => {} });
    try {
      await expect(client.chat(HI, BOUNDED)).rejects.toBeInstanceOf(TypeError);
      expect(await client.budgetStatus()).toMatchObject({ spentUsd: 0, reservedUsd: 0 });
    } finally {
      await client.close();
    }
  });
});

describe('budget settings', () => {
  const base = (scope: string, keys: Record<string, string>, price = true) => ({
    ...scopeKeys(scope, keys),
    [`${scope}__SOURCE__A__BASE_URL`]: 'http://127.0.0.1:9/v1',
    [`${scope}__SOURCE__A__MODEL`]: 'unpriced-model',
    ...(price && { [`${scope}__SOURCE__A__PRICING`]: JSON.stringify(PRICE) }),
  });

  it.each([
    ['BUDGET__USD', '0'],
    ['BUDGET__USD', '-1'],
    ['BUDGET__USD', 'lots'],
    ['BUDGET__PERIOD', 'week'],
    ['BUDGET__PER', 'user'],
  ])('%s=%s is a SettingsError naming the key', async (key, value) => {
    const scope = uniqueScope('budget');
    const keys = { BUDGET__USD: '1', [key]: value };
    const error = await GatewayClient.fromEnv(scope, { env: base(scope, keys) }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(SettingsError);
    expect(error).toMatchObject({ key: `${scope}__${key}` });
  });

  it('a budgeted scope whose source has no price is a SettingsError naming the source', async () => {
    const scope = uniqueScope('budget');
    const error = await GatewayClient.fromEnv(scope, { env: base(scope, { BUDGET__USD: '1' }, false) }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(SettingsError);
    expect(error).toMatchObject({ key: `${scope}__SOURCE__A__PRICING` });
  });

  it('an OCR scope refuses a budget: it has no tokens to price', () => {
    const scope = uniqueScope('ocr');
    const env = { ...scopeKeys(scope, { BUDGET__USD: '1' }), [`${scope}__SOURCE__A__BASE_URL`]: 'http://127.0.0.1:9' };
    expect(() => loadOcrSettings(scope, { env })).toThrow(expect.objectContaining({ name: 'SettingsError', key: `${scope}__BUDGET__USD` }));
  });

  it('budget.tenants in code sets per-tenant sizes; without per tenant it is refused', async () => {
    const settings = {
      scope: 'BUDGETED',
      sources: [{ name: 'a', baseUrl: 'http://127.0.0.1:9/v1', model: 'gpt-4o' }],
    };
    expect(gatewaySettings({ ...settings, budget: { usd: 100, per: 'tenant', tenants: { acme: 200 } } }).budget).toEqual({
      usd: 100,
      period: 'day',
      per: 'tenant',
      tenants: { acme: 200 },
    });
    expect(() => gatewaySettings({ ...settings, budget: { usd: 100, tenants: { acme: 200 } } })).toThrow(SettingsError);
  });
});
