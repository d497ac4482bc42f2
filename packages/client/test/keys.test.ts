/**
 * A stored key's bounds through the client's `key` option: its gates hold beside its tenant's (a
 * full one is the caller's own bound: `tenant_quota_full` naming the key's gate), each key on its
 * own, its budget ends a call with BudgetExceededError carrying the key's id, and `keyStatus` reads
 * its use. Real backends (memory, Redis), the loopback mock.
 */
import { describe, expect, it } from 'vitest';
import type { KeyBounds } from '@pgw/core';
import { BudgetExceededError, GatewayClient, GatewayUnavailableError, type BudgetRefusedEvent } from '../src/index.js';
import { BACKENDS, MockFixture, scopeKeys, uniqueScope } from './helpers/e2e.js';

const fixture = MockFixture.use();

async function withClient<T>(
  backend: (typeof BACKENDS)[number],
  keys: Record<string, string>,
  run: (client: GatewayClient, source: string) => Promise<T>,
  latencyMs = 100,
  refusals: BudgetRefusedEvent[] = [],
): Promise<T> {
  const scope = uniqueScope('keys');
  const source = fixture.source('keys', { latencyMs, usage: { prompt_tokens: 10, completion_tokens: 5 } });
  const env = {
    ...backend.env,
    PGW_CACHE_BACKEND: 'none',
    ...scopeKeys(scope, { SOURCES: source, QUOTA_FULL: 'fail_fast', ...keys }),
    ...fixture.sourceKeys(scope, source, { PRICING: JSON.stringify({ inputPerMTok: 10_000, outputPerMTok: 20_000 }) }),
  };
  const client = await GatewayClient.fromEnv(scope, { env, warn: () => {}, subscribers: [{ onBudgetRefused: (event) => void refusals.push(event) }] });
  try {
    return await run(client, source);
  } finally {
    await client.close();
  }
}

const hi = (text = 'hi') => [{ role: 'user' as const, content: text }];
const keyOf = (id: string, bounds: Partial<Omit<KeyBounds, 'id'>>): KeyBounds => ({ id, rpm: 0, tpm: 0, maxConcurrency: 0, ...bounds });

describe.each(BACKENDS)('stored keys on $name', (backend) => {
  it('holds a key’s concurrency as the caller’s own bound, leaves another key of the tenant alone, and frees it once', async () => {
    await withClient(backend, {}, async (client, source) => {
      const key = keyOf('key_conc', { maxConcurrency: 1 });
      const held = client.chat(hi(), { tenantId: 'acme', key });
      await fixture.inflight(source, 1);
      const refused = await client.chat(hi(), { tenantId: 'acme', key }).catch((error: unknown) => error);
      expect(refused).toBeInstanceOf(GatewayUnavailableError);
      expect(refused).toMatchObject({ reason: 'tenant_quota_full' });
      expect((refused as Error).message).toContain('key_concurrency');
      expect((refused as Error).message).toContain('key_conc');
      expect(await client.keyStatus(key)).toMatchObject({ inflight: 1, rpmUsed: 1 });
      await expect(client.chat(hi(), { tenantId: 'acme', key: keyOf('key_other', { maxConcurrency: 1 }) })).resolves.toMatchObject({ content: expect.any(String) });
      await held;
      expect(await client.keyStatus(key)).toMatchObject({ inflight: 0, rpmUsed: 1, tpmUsed: 15 });
    });
  });

  it('holds a key’s RPM with a retry hint', async () => {
    await withClient(
      backend,
      {},
      async (client) => {
        const key = keyOf('key_rpm', { rpm: 2 });
        await client.chat(hi(), { key });
        await client.chat(hi(), { key });
        const refused = await client.chat(hi(), { key }).catch((error: unknown) => error);
        expect(refused).toMatchObject({ reason: 'tenant_quota_full' });
        expect((refused as GatewayUnavailableError).retryAfterMs).toBeGreaterThan(0);
        expect((refused as Error).message).toContain('key_rpm');
      },
      5,
    );
  });

  it('ends a call over the key’s budget with BudgetExceededError marked with the key’s id', async () => {
    const refusals: BudgetRefusedEvent[] = [];
    await withClient(
      backend,
      {},
      async (client) => {
        // `hi` with max_tokens 10 reserves 0.22 USD and is billed 0.20 (10 + 5 tokens).
        const key = keyOf('key_budget', { budget: { usd: 0.5, window: 'day' } });
        await client.chat(hi(), { key, sampling: { max_tokens: 10 } });
        await client.chat(hi(), { key, sampling: { max_tokens: 10 } });
        const refused = await client.chat(hi(), { key, sampling: { max_tokens: 10 } }).catch((error: unknown) => error);
        expect(refused).toBeInstanceOf(BudgetExceededError);
        expect(refused).toMatchObject({ keyId: 'key_budget', budgetUsd: 0.5 });
        const status = await client.keyStatus(key);
        expect(status.spentUsd).toBeCloseTo(0.4, 9);
        expect(status.resetAt).toBeGreaterThan(Date.now());
        expect(refusals).toMatchObject([{ keyId: 'key_budget', budgetUsd: 0.5 }]);
      },
      5,
      refusals,
    );
  });

  it('refuses a malformed key option with a TypeError naming the field, on every kind of call', async () => {
    await withClient(backend, {}, async (client) => {
      await expect(client.chat(hi(), { key: { ...keyOf('k', {}), rpm: -1 } })).rejects.toThrow(/^chat\(key\)\.rpm must be/);
      await expect(client.chat(hi(), { key: { id: 'k' } as never })).rejects.toThrow(TypeError);
      await expect(client.chat(hi(), { key: keyOf('k', { budget: { usd: 1, window: 'week' as never } }) })).rejects.toThrow(/chat\(key\)\.budget\.window/);
      await expect(client.keyStatus({ id: '' } as never)).rejects.toThrow(/keyStatus\(bounds\)\.id/);
    });
  });
});
