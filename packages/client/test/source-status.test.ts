/**
 * `client.sourceStatus()` on the default assembly (memory and real Redis): each source's breaker as
 * the governor's books have it (open with its end time after a dead source, closed again after its
 * probe) and its quota use against the bounds of its settings.
 */
import { describe, expect, it } from 'vitest';
import { GatewayClient } from '../src/index.js';
import { BACKENDS, MockFixture, scopeKeys, uniqueScope } from './helpers/e2e.js';

const fixture = MockFixture.use();

describe.each(BACKENDS)('sourceStatus on $name', (backend) => {
  it('shows a dead source open until its cooldown ends, then closed after a good probe, with its bounds', async () => {
    const scope = uniqueScope('status');
    const source = fixture.source('status', { steps: [{ kind: 'status', status: 401 }] });
    const env = {
      ...backend.env,
      PGW_CACHE_BACKEND: 'none',
      ...fixture.sourceKeys(scope, source, { RPM: '600', MAX_CONCURRENCY: '3' }),
      ...scopeKeys(scope, { MAX_ATTEMPTS: '1', CIRCUIT_OPEN: 'wait', BREAKER__COOLDOWN_S: '1', BREAKER__MAX_COOLDOWN_S: '2' }),
    };
    const client = await GatewayClient.fromEnv(scope, { env, warn: () => {} });
    try {
      const [fresh] = await client.sourceStatus();
      expect(fresh).toMatchObject({ source, breaker: { state: 'closed', openUntil: 0 }, rpm: { used: 0, bound: 600 }, concurrency: { used: 0, bound: 3 }, tpm: { bound: 0 } });
      const before = Date.now();
      await expect(client.chat([{ role: 'user', content: 'hi' }])).rejects.toMatchObject({ name: 'AllSourcesExhausted' });
      const [tripped] = await client.sourceStatus();
      expect(tripped?.breaker?.state).toBe('open');
      expect(tripped?.breaker?.openUntil).toBeGreaterThan(before);
      expect(tripped?.rpm.used).toBe(1);
      await client.chat([{ role: 'user', content: 'hi' }]);
      const [recovered] = await client.sourceStatus();
      expect(recovered).toMatchObject({ breaker: { state: 'closed' }, rpm: { used: 2 }, concurrency: { used: 0 } });
    } finally {
      await client.close();
    }
  });

  it('refuses once the client is closed', async () => {
    const scope = uniqueScope('status');
    const source = fixture.source('status-closed', {});
    const client = await GatewayClient.fromEnv(scope, { env: { ...backend.env, ...fixture.sourceKeys(scope, source) }, warn: () => {} });
    await client.close();
    expect(() => client.sourceStatus()).toThrow(/sourceStatus/);
  });
});
