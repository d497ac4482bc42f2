/** The governed path's events: every kind, their order and payloads, many subscribers, a throwing one. */
import { InMemoryCache, InMemoryBreaker, InMemoryLimiter } from '@pgw/backend-memory';
import {
  GATEWAY_EVENT_NAMES,
  NoopRecorder,
  RequestRejectedError,
  SourceDeadError,
  TransientError,
  type GatewayEventName,
  type GatewayEvents,
  type GatewaySubscriber,
} from '@pgw/core';
import { TEST_BREAKER_POLICY, UNLIMITED } from '@pgw/testkit';
import { describe, expect, it } from 'vitest';
import { AccountingLimiter, chatResult, ManualClock, usage } from './helpers/fakes.js';
import { chatHarness } from './helpers/harness.js';

type Seen = { [K in GatewayEventName]: { name: K; event: GatewayEvents[K] } }[GatewayEventName];

/** Listens to every event and keeps them in order. */
function recorder(): GatewaySubscriber & { seen: Seen[]; names: () => string[]; of: <K extends GatewayEventName>(name: K) => GatewayEvents[K][] } {
  const seen: Seen[] = [];
  const subscriber = Object.fromEntries(
    GATEWAY_EVENT_NAMES.map((name) => [name, (event: never) => seen.push({ name, event } as Seen)]),
  ) as GatewaySubscriber;
  return {
    ...subscriber,
    seen,
    names: () => seen.map((entry) => entry.name),
    of: <K extends GatewayEventName>(name: K) => seen.filter((entry) => entry.name === name).map((entry) => entry.event as GatewayEvents[K]),
  };
}

describe('events', () => {
  it('a retried call: call start, attempt start/end ×2 with outcome and status, retry scheduled, call end with the result', async () => {
    const events = recorder();
    const h = chatHarness(
      [
        new TransientError({ message: '503', statusCode: 503, transientKind: 'server_error', retryAfterMs: 2000 }),
        () => {
          h.clock.advance(40);
          return chatResult('fine', { model: 'gpt-4o', usage: usage(10, 5) });
        },
      ],
      { subscribers: [events], pricing: { 'gpt-4o': { inputPerMTok: 1, outputPerMTok: 1 } } },
    );
    const response = await h.run({}, { tenantId: 'acme', logicalCallId: 'L1' });
    expect(events.names()).toEqual([
      'onCallStart',
      'onAttemptStart',
      'onAttemptEnd',
      'onRetryScheduled',
      'onAttemptStart',
      'onAttemptEnd',
      'onCallEnd',
    ]);
    const [failed, ok] = events.of('onAttemptEnd');
    expect(failed).toMatchObject({ attempt: 1, source: 'a', status: 'error', outcome: 'transient', statusCode: 503, retryAfterMs: 2000 });
    expect(failed!.call).toMatchObject({ logicalCallId: 'L1', tenantId: 'acme', scope: 'LLM', operation: 'chat' });
    expect(ok).toMatchObject({ attempt: 2, source: 'b', status: 'ok', outcome: 'success', latencyMs: 40, usage: usage(10, 5) });
    expect(ok!.content.responseText).toBe('fine');
    expect(events.of('onRetryScheduled')).toEqual([
      expect.objectContaining({ attempt: 1, source: 'a', delayMs: 2000, reason: 'transient:server_error 503' }),
    ]);
    expect(events.of('onCallStart')[0]!.models).toEqual(['model-a', 'model-b']);
    expect(events.of('onCallEnd')).toEqual([
      expect.objectContaining({
        status: 'ok',
        attempts: 2,
        sourcesTried: ['a', 'b'],
        result: { source: 'b', model: 'gpt-4o', usage: usage(10, 5), costUsd: response.costUsd, cached: false },
      }),
    ]);
  });

  it('a failed call ends once with its error; a rejected attempt is categorised', async () => {
    const events = recorder();
    const h = chatHarness([new RequestRejectedError({ message: 'bad', statusCode: 400 })], { subscribers: [events] });
    await expect(h.run()).rejects.toBeInstanceOf(RequestRejectedError);
    expect(events.of('onAttemptEnd')[0]).toMatchObject({ outcome: 'rejected', statusCode: 400 });
    expect(events.of('onCallEnd')).toEqual([expect.objectContaining({ status: 'error', error: expect.any(RequestRejectedError), attempts: 1 })]);
  });

  it('cache miss then hit', async () => {
    const events = recorder();
    const h = chatHarness([chatResult('stored')], { subscribers: [events], cache: new InMemoryCache() });
    await h.run();
    await h.run();
    expect(events.of('onCacheMiss')).toHaveLength(1);
    expect(events.of('onCacheHit')).toEqual([expect.objectContaining({ source: 'a', content: 'stored' })]);
    expect(events.of('onCallEnd')[1]!.result).toMatchObject({ cached: true });
  });

  it('the first streamed token of an attempt, once', async () => {
    const events = recorder();
    const h = chatHarness([
      (attempt) => {
        h.clock.advance(15);
        attempt.onDelta!({ reasoningContent: 'hmm' });
        attempt.onDelta!({ content: 'he' });
        attempt.onDelta!({ content: 'llo' });
        return chatResult('hello');
      },
    ], { subscribers: [events] });
    const stream = h.stream();
    await stream.response;
    expect(events.of('onFirstToken')).toEqual([expect.objectContaining({ source: 'a', ttftMs: 15 })]);
  });

  it('quota waits start and end around the sleep', async () => {
    const events = recorder();
    const limiter = new AccountingLimiter();
    const h = chatHarness([chatResult()], { subscribers: [events], limiter });
    limiter.deny.set('a', { gate: 'source_rpm', retryAfterMs: 200 });
    limiter.deny.set('b', { gate: 'source_rpm', retryAfterMs: 300 });
    h.sleep.onSleep = () => limiter.deny.clear();
    await h.run();
    const starts = events.of('onQuotaWaitStart');
    expect(starts.length).toBeGreaterThan(0);
    expect(starts[0]).toMatchObject({ reason: 'quota_full', delayMs: expect.any(Number) });
    expect(events.of('onQuotaWaitEnd')).toHaveLength(starts.length);
    expect(events.of('onQuotaWaitEnd')[0]).toMatchObject({ reason: 'quota_full', waitedMs: starts[0]!.delayMs });
  });

  it('breaker transitions: closed → open on a dead source, open → half_open at the probe, half_open → closed on its success', async () => {
    const events = recorder();
    const clock = new ManualClock();
    const policy = { ...TEST_BREAKER_POLICY, cooldownMs: 10_000, maxCooldownMs: 60_000, probeTtlMs: 180_000 };
    const breaker = new InMemoryBreaker({ scope: 'LLM', sources: ['a', 'b'], policy, now: clock.now });
    const limits = { rpm: 0, tpm: 0, maxConcurrency: 4 };
    const limiter = new InMemoryLimiter({ scope: 'LLM', sources: { a: limits, b: limits }, global: UNLIMITED, leaseTtlMs: 600_000, now: clock.now });
    const h = chatHarness([new SourceDeadError({ message: '401', statusCode: 401 }), chatResult('b'), chatResult('a-probe')], {
      subscribers: [events],
      clock,
      breaker,
      limiter,
    });
    await h.run();
    clock.advance(10_000);
    await h.run();
    expect(events.of('onBreakerStateChange')).toEqual([
      { scope: 'LLM', source: 'a', from: 'closed', to: 'open', reason: 'source_dead' },
      { scope: 'LLM', source: 'a', from: 'open', to: 'half_open', reason: 'cooldown_elapsed' },
      { scope: 'LLM', source: 'a', from: 'half_open', to: 'closed', reason: 'probe_succeeded' },
    ]);
  });

  it('a subscriber that throws cannot break a call: caught, warned once, the others still served', async () => {
    const events = recorder();
    const h = chatHarness([new TransientError({ message: '503' }), chatResult(), chatResult()], {
      subscribers: [
        {
          name: 'broken',
          onAttemptEnd: () => {
            throw new Error('boom');
          },
          onCallStart: () => {
            throw new Error('boom again');
          },
        },
        events,
      ],
    });
    await expect(h.run()).resolves.toMatchObject({ content: 'ok' });
    await expect(h.run()).resolves.toMatchObject({ content: 'ok' });
    expect(events.of('onAttemptEnd')).toHaveLength(3);
    expect(h.recorder.kind('attempt')).toHaveLength(3);
    const warned = h.warnings.filter((w) => w.includes('subscriber broken'));
    expect(warned).toHaveLength(1);
    expect(warned[0]).toContain('boom');
  });

  it('a subscriber method that is not an event is refused at assembly', () => {
    expect(() => chatHarness([], { subscribers: [{ onAttemptDone: () => {} } as GatewaySubscriber] })).toThrow(/onAttemptDone/);
  });

  it('a subscriber that does not read attempt content costs no transcript', async () => {
    let reads = 0;
    const messages = [
      {
        role: 'user' as const,
        get content() {
          reads += 1;
          return 'hi';
        },
      },
    ];
    const quiet = chatHarness([new TransientError({ message: '503' }), chatResult()], {
      subscribers: [{ onAttemptEnd: () => {} }],
      recorder: new NoopRecorder(),
    });
    await quiet.run({ messages });
    expect(reads).toBe(0);
  });
});
