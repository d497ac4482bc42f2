/** Cache isolation end to end: one tenant is never served another tenant's answer unless the scope says they share. */
import { describe, expect, it } from 'vitest';
import { GatewayClient } from '../src/index.js';
import { BACKENDS, MockFixture, scopeKeys, uniqueScope } from './helpers/e2e.js';

const fixture = MockFixture.use();

const QUESTION = [{ role: 'user' as const, content: 'what is our revenue?' }];

async function clientFor(backend: (typeof BACKENDS)[number], isolation?: string): Promise<GatewayClient> {
  const scope = uniqueScope('iso');
  const source = fixture.source('iso', { content: 'made for acme' });
  const env = {
    ...backend.env,
    ...fixture.sourceKeys(scope, source),
    ...scopeKeys(scope, { CACHE__NAMESPACE: scope, ...(isolation === undefined ? {} : { CACHE__ISOLATION: isolation }) }),
  };
  return GatewayClient.fromEnv(scope, { env, warn: () => {} });
}

describe.each(BACKENDS.map((b) => [b.name, b] as const))('cache isolation on the %s cache', (_, backend) => {
  it('by default (tenant) serves an entry only to the tenant it was made for', async () => {
    const client = await clientFor(backend);
    try {
      expect((await client.chat(QUESTION, { tenantId: 'acme' })).cached).toBe(false);
      expect((await client.chat(QUESTION, { tenantId: 'globex' })).cached).toBe(false);
      expect((await client.chat(QUESTION)).cached).toBe(false);
      expect((await client.chat(QUESTION, { tenantId: 'acme' })).cached).toBe(true);
      expect((await client.chat(QUESTION, { tenantId: 'globex' })).cached).toBe(true);
      // Calls without a tenant share their own partition.
      expect((await client.chat(QUESTION)).cached).toBe(true);
    } finally {
      await client.close();
    }
  });

  it('with CACHE__ISOLATION=namespace serves every tenant of the namespace', async () => {
    const client = await clientFor(backend, 'namespace');
    try {
      expect((await client.chat(QUESTION, { tenantId: 'acme' })).cached).toBe(false);
      expect(await client.chat(QUESTION, { tenantId: 'globex' })).toMatchObject({ cached: true, content: 'made for acme' });
      expect((await client.chat(QUESTION)).cached).toBe(true);
    } finally {
      await client.close();
    }
  });
});
