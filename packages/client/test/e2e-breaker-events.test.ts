/**
 * Breaker transitions on the default assembly (one governor per backend, memory and real Redis),
 * through the client: a source that dies on a 401, cools down, fails its first probe and recovers
 * through its second reports every step, half-open included.
 */
import type { BreakerStateEvent } from '@pgw/core';
import { describe, expect, it } from 'vitest';
import { GatewayClient } from '../src/index.js';
import { BACKENDS, MockFixture, scopeKeys, uniqueScope } from './helpers/e2e.js';

const fixture = MockFixture.use();

describe.each(BACKENDS)('breaker events on the default assembly ($name)', (backend) => {
  it('reports closed→open→half_open→open→half_open→closed for a failed, then a successful probe', async () => {
    const scope = uniqueScope('breaker');
    const source = fixture.source('probe', { steps: [{ kind: 'status', status: 401 }, { kind: 'status', status: 401 }] });
    const transitions: Pick<BreakerStateEvent, 'source' | 'from' | 'to' | 'reason'>[] = [];
    const env = {
      ...backend.env,
      PGW_CACHE_BACKEND: 'none',
      ...fixture.sourceKeys(scope, source),
      ...scopeKeys(scope, { MAX_ATTEMPTS: '1', CIRCUIT_OPEN: 'wait', BREAKER__COOLDOWN_S: '0.2', BREAKER__MAX_COOLDOWN_S: '1' }),
    };
    const client = await GatewayClient.fromEnv(scope, {
      env,
      warn: () => {},
      subscribers: [{ onBreakerStateChange: ({ source, from, to, reason }) => void transitions.push({ source, from, to, reason }) }],
    });
    try {
      const ask = () => client.chat([{ role: 'user', content: 'hi' }]);
      await expect(ask()).rejects.toMatchObject({ name: 'AllSourcesExhausted' });
      await expect(ask()).rejects.toMatchObject({ name: 'AllSourcesExhausted' });
      await expect(ask()).resolves.toMatchObject({ source });
      expect(transitions).toEqual([
        { source, from: 'closed', to: 'open', reason: 'source_dead' },
        { source, from: 'open', to: 'half_open', reason: 'cooldown_elapsed' },
        { source, from: 'half_open', to: 'open', reason: 'probe_failed' },
        { source, from: 'open', to: 'half_open', reason: 'cooldown_elapsed' },
        { source, from: 'half_open', to: 'closed', reason: 'probe_succeeded' },
      ]);
    } finally {
      await client.close();
    }
  });
});
