/** Retry loop × real memory breaker and limiter: dead sources, half-open probes, cancelled probes, cooldown waits. */
import { InMemoryBreaker, InMemoryLimiter } from '@pgw/backend-memory';
import { SourceDeadError } from '@pgw/core';
import { TEST_BREAKER_POLICY, UNLIMITED } from '@pgw/testkit';
import { describe, expect, it } from 'vitest';
import { chatResult, HANG, ManualClock, source } from './helpers/fakes.js';
import { chatHarness } from './helpers/harness.js';

const POLICY = { ...TEST_BREAKER_POLICY, cooldownMs: 10_000, maxCooldownMs: 60_000, probeTtlMs: 180_000 };

function realBackends(names: string[], clock: ManualClock) {
  const breaker = new InMemoryBreaker({ scope: 'LLM', sources: names, policy: POLICY, now: clock.now });
  const limits = Object.fromEntries(names.map((name) => [name, { rpm: 0, tpm: 0, maxConcurrency: 4 }]));
  const limiter = new InMemoryLimiter({
    scope: 'LLM',
    sources: limits,
    global: UNLIMITED,
    leaseTtlMs: 600_000,
    now: clock.now,
  });
  return { clock, breaker, limiter };
}

const dead = () => new SourceDeadError({ message: '401', statusCode: 401 });

describe('breaker interplay (memory backends)', () => {
  it('a dead source opens at once; later calls skip it until its cooldown ends, then probe it', async () => {
    const { clock, breaker, limiter } = realBackends(['a', 'b'], new ManualClock());
    const h = chatHarness([dead(), chatResult('b1'), chatResult('b2'), chatResult('a-probe')], { clock, breaker, limiter });
    await expect(h.run()).resolves.toMatchObject({ content: 'b1' });
    expect((await breaker.snapshot('a')).state).toBe('open');
    await expect(h.run()).resolves.toMatchObject({ content: 'b2', callStats: { sourcesTried: ['b'] } });
    clock.advance(10_000);
    await expect(h.run()).resolves.toMatchObject({ content: 'a-probe', source: 'a' });
    expect((await breaker.snapshot('a')).state).toBe('closed');
    const [a, b] = await Promise.all([limiter.sourceStats('a'), limiter.sourceStats('b')]);
    expect(a.inflight + b.inflight).toBe(0);
  });

  it('a cancelled probe is released, so the next call may probe again', async () => {
    const { clock, breaker, limiter } = realBackends(['a'], new ManualClock());
    const h = chatHarness([dead(), HANG, chatResult('recovered')], {
      clock,
      breaker,
      limiter,
      sources: [source('a')],
      settings: { retry: { maxAttempts: 1, backoffBaseMs: 1, backoffMaxMs: 1 } },
    });
    await expect(h.run()).rejects.toMatchObject({ name: 'AllSourcesExhausted' });
    clock.advance(10_000);
    const controller = new AbortController();
    // Taken before the call starts: a synchronous backend admits it and reaches the transport in the same tick.
    const entered = h.script.nextEntry();
    const probing = h.run({}, { signal: controller.signal });
    await entered;
    expect((await breaker.snapshot('a')).probeHeld).toBe(true);
    controller.abort();
    await expect(probing).rejects.toMatchObject({ name: 'AbortError' });
    expect((await breaker.snapshot('a')).probeHeld).toBe(false);
    await expect(h.run()).resolves.toMatchObject({ content: 'recovered' });
    expect((await breaker.snapshot('a')).state).toBe('closed');
  });

  it('CIRCUIT_OPEN=wait on a single-source scope sleeps out the cooldown, then probes', async () => {
    const { clock, breaker, limiter } = realBackends(['a'], new ManualClock());
    const h = chatHarness([dead(), chatResult('after cooldown')], {
      clock,
      breaker,
      limiter,
      sources: [source('a')],
      settings: { circuitOpen: 'wait', retry: { maxAttempts: 3, backoffBaseMs: 1, backoffMaxMs: 1 } },
    });
    await expect(h.run()).resolves.toMatchObject({ content: 'after cooldown', callStats: { attempts: 2 } });
    expect(h.sleep.calls).toEqual([10_000]);
  });
});
