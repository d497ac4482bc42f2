import {
  type AttemptContext,
  AllSourcesExhausted,
  CircuitOpenError,
  ContextLengthExceededError,
  GatewayUnavailableError,
  GovernanceBackendError,
  RequestRejectedError,
  ResultInvalidError,
  SourceDeadError,
  SourceNotConfiguredError,
  TransientError,
  type ChatRequest,
  type ChatResult,
  type Limiter,
  type Permit,
} from '@pgw/core';
import { ThinkingContradictions } from '@pgw/core/internal';
import { getEventListeners } from 'node:events';
import { describe, expect, it, vi } from 'vitest';
import { chatOperation, type Selector } from './helpers/internals.js';
import { AccountingLimiter, chatResult, embedResult, HANG, ScriptedBreaker, source, usage, type Script } from './helpers/fakes.js';
import { chatHarness, embedHarness, HI, loopHarness } from './helpers/harness.js';
import { settled } from './helpers/walks.js';

const rateLimited = (retryAfterMs?: number) =>
  new TransientError({ message: '429', statusCode: 429, transientKind: 'rate_limited', retryAfterMs });
const serverError = () => new TransientError({ message: '503', statusCode: 503, transientKind: 'server_error' });
const dead = () => new SourceDeadError({ message: '401', statusCode: 401 });
const chatOp = (_script: Script<ChatResult>) => chatOperation(new ThinkingContradictions(() => undefined));
const REQUEST: ChatRequest = { messages: HI, sampling: {} };

describe('retry loop: failover and accounting', () => {
  it('fails over to another source first after a failure', async () => {
    const h = chatHarness([serverError(), chatResult('from b')]);
    const response = await h.run();
    expect(h.script.sources()).toEqual(['a', 'b']);
    expect(response.source).toBe('b');
    expect(response.callStats.sourcesTried).toEqual(['a', 'b']);
  });

  it('comes back to a failed source only when nothing else is eligible', async () => {
    const h = chatHarness([serverError(), serverError(), chatResult()], { settings: { retry: { maxAttempts: 5, backoffBaseMs: 10, backoffMaxMs: 100 } } });
    await h.run();
    // a fails, b fails: a (least recently failed) is next.
    expect(h.script.sources()).toEqual(['a', 'b', 'a']);
  });

  it('registers attempts before the transport, with their own callIds, and reads latency from the injected clock', async () => {
    const h = chatHarness([
      serverError(),
      (ctx) => {
        h.clock.advance(1_234);
        expect(ctx.logicalCallId).toBeTruthy();
        return chatResult();
      },
    ]);
    const response = await h.run();
    expect(response.callStats.attempts).toBe(2);
    const ids = h.script.calls.map((c) => c.callId);
    expect(new Set(ids).size).toBe(2);
    // 50 ms of jittered backoff (rng 0.5 × base 100) plus the 1234 ms attempt, all on the injected clock.
    expect(response.callStats.totalLatencyMs).toBe(1_284);
  });

  it("hands the model the attempt's source name and that source's per-attempt timeout", async () => {
    const seen: Array<[string, number]> = [];
    const h = chatHarness(
      [serverError(), chatResult()].map((end) => (ctx: AttemptContext) => {
        seen.push([ctx.sourceName, ctx.timeoutMs]);
        if (end instanceof Error) throw end;
        return end;
      }),
      { sources: [source('a', { timeoutMs: 7_000 }), source('b', { timeoutMs: 9_000 })] },
    );
    await h.run();
    expect(seen).toEqual([
      ['a', 7_000],
      ['b', 9_000],
    ]);
  });

  it('records the outcome with the ticket the attempt was admitted under (epoch fencing)', async () => {
    const breaker = new ScriptedBreaker();
    breaker.epoch = 42;
    const h = chatHarness([serverError(), chatResult()], { breaker });
    await h.run();
    expect(breaker.records.map((r) => [r.source, r.outcome, r.epoch])).toEqual([
      ['a', 'failure', 42],
      ['b', 'success', 42],
    ]);
  });

  it('SourceDeadError records dead and switches at once, without backoff', async () => {
    const h = chatHarness([dead(), chatResult()]);
    await h.run();
    expect((h.breaker as ScriptedBreaker).outcomes()).toEqual(['a:dead', 'b:success']);
    expect(h.sleep.calls).toEqual([]);
  });

  it('RequestRejectedError propagates without retry or switch', async () => {
    const rejected = new RequestRejectedError({ message: '400', statusCode: 400 });
    const h = chatHarness([rejected, chatResult()]);
    await expect(h.run()).rejects.toBe(rejected);
    expect(h.script.calls).toHaveLength(1);
  });

  it('ResultInvalidError propagates and records invalid to the breaker', async () => {
    const invalid = new ResultInvalidError({ message: 'no choices' });
    const h = chatHarness([invalid, chatResult()]);
    await expect(h.run()).rejects.toBe(invalid);
    expect((h.breaker as ScriptedBreaker).outcomes()).toEqual(['a:invalid']);
  });

  it('AllSourcesExhausted names every source and carries the last Retry-After', async () => {
    const h = chatHarness([serverError(), dead(), new TransientError({ message: '504', statusCode: 504, retryAfterMs: 7_000 })]);
    const error = await h.run().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AllSourcesExhausted);
    const exhausted = error as AllSourcesExhausted;
    expect(exhausted.reason).toBe('retry_exhausted');
    expect(exhausted.retryAfterMs).toBe(7_000);
    expect(exhausted.perSourceReasons).toEqual({ a: 'transient:server_error 504', b: 'dead 401' });
  });

  it('a cancelled call surfaces an AbortError, never an upstream category error', async () => {
    const controller = new AbortController();
    const h = chatHarness([
      () => {
        controller.abort();
        throw new TransientError({ message: 'timeout', transientKind: 'timeout' });
      },
    ]);
    await expect(h.run({}, { signal: controller.signal })).rejects.toMatchObject({ name: 'AbortError' });
  });

  it('a transport that ignores its signal does not hold a cancelled call; the attempt leaves no listener on the call', async () => {
    const controller = new AbortController();
    const signals: AbortSignal[] = [];
    const h = chatHarness([
      (attempt) => {
        signals.push(attempt.signal);
        return chatResult();
      },
      (attempt) => {
        signals.push(attempt.signal);
        return new Promise<ChatResult>(() => undefined);
      },
    ]);
    await h.run({}, { signal: controller.signal });
    expect(getEventListeners(signals[0]!, 'abort')).toHaveLength(0);
    const running = h.run({}, { signal: controller.signal });
    await vi.waitFor(() => expect(signals).toHaveLength(2));
    expect(getEventListeners(signals[1]!, 'abort')).toHaveLength(1);
    controller.abort();
    await expect(running).rejects.toMatchObject({ name: 'AbortError' });
    expect(getEventListeners(signals[1]!, 'abort')).toHaveLength(0);
  });

  it('an already-aborted call starts nothing', async () => {
    const h = chatHarness([chatResult()]);
    const controller = new AbortController();
    controller.abort();
    await expect(h.run({}, { signal: controller.signal })).rejects.toMatchObject({ name: 'AbortError' });
    expect((h.limiter as AccountingLimiter).enterCalls).toBe(0);
  });
});

describe('retry loop: backoff and the 429 budget', () => {
  it('backs off with full jitter capped by backoffMax', async () => {
    const h = chatHarness([serverError(), serverError(), serverError(), chatResult()], {
      sources: [source('a')],
      settings: { retry: { maxAttempts: 4, backoffBaseMs: 1_000, backoffMaxMs: 3_000 } },
      rng: () => 0.999,
    });
    await h.run();
    expect(h.sleep.calls.map(Math.round)).toEqual([999, 1_998, 2_997]);
  });

  it('honours a Retry-After of 3600 s in full even with backoffMax 30 s', async () => {
    const h = chatHarness([rateLimited(3_600_000), chatResult()], {
      sources: [source('a')],
      settings: { retry: { maxAttempts: 3, backoffBaseMs: 1_000, backoffMaxMs: 30_000 }, stallWindowMs: 300_000 },
    });
    const response = await h.run();
    expect(h.sleep.calls).toEqual([3_600_000]);
    expect(response.content).toBe('ok');
  });

  it('chat: 429 rate limits do not consume the attempt budget', async () => {
    const h = chatHarness([rateLimited(), rateLimited(), rateLimited(), rateLimited(), rateLimited(), chatResult()], {
      settings: { retry: { maxAttempts: 2, backoffBaseMs: 10, backoffMaxMs: 100 } },
    });
    const response = await h.run();
    expect(response.callStats.attempts).toBe(6);
  });

  it('chat: other failures still spend the budget between 429s', async () => {
    const h = chatHarness([rateLimited(), serverError(), rateLimited(), serverError(), chatResult()], {
      settings: { retry: { maxAttempts: 2, backoffBaseMs: 10, backoffMaxMs: 100 } },
    });
    await expect(h.run()).rejects.toBeInstanceOf(AllSourcesExhausted);
    expect(h.script.calls).toHaveLength(4);
  });

  it('embed: every 429 consumes the attempt budget', async () => {
    const h = embedHarness([rateLimited(), rateLimited(), embedResult(1)], {
      settings: { retry: { maxAttempts: 2, backoffBaseMs: 10, backoffMaxMs: 100 } },
    });
    await expect(h.pipeline.run(['x'])).rejects.toBeInstanceOf(AllSourcesExhausted);
    expect(h.script.calls).toHaveLength(2);
  });

  it('the pacer halves a source cap on 429 and raises it by one on success', async () => {
    const h = loopHarness<ChatRequest, ChatResult>(chatOp, [rateLimited(), rateLimited(), chatResult()], {
      sources: [source('a', { maxConcurrency: 8 })],
    });
    await h.start(REQUEST).done;
    expect(h.pacer.snapshot('a')).toEqual({ cap: 3, inflight: 0 }); // 8 → 4 → 2, then +1
  });
});

describe('retry loop: what it tells the selector', () => {
  /** The selector the loop was given, logging what the loop tells it. */
  function listen(selector: Selector, log: string[]): Selector {
    return {
      walk: () => selector.walk(),
      entering: (s, est) => {
        log.push(`entering ${s.name} ${est}`);
        const entry = selector.entering(s, est);
        return { refused: () => (log.push(`refused ${s.name}`), entry.refused()), left: () => (log.push(`left ${s.name}`), entry.left()) };
      },
    };
  }

  it('each source it asks for admission, each refusal and each attempt that gave its permit back', async () => {
    const limiter = new AccountingLimiter();
    limiter.deny.set('a', { gate: 'source_rpm', retryAfterMs: 5 });
    const h = loopHarness<ChatRequest, ChatResult>(chatOp, [serverError(), chatResult()], { limiter, sources: [source('a'), source('b')] });
    const log: string[] = [];
    h.deps.selector = listen(h.deps.selector, log);
    await h.start(REQUEST).done;
    expect(log).toEqual(['entering a 100', 'refused a', 'entering b 100', 'left b', 'entering a 100', 'refused a', 'entering b 100', 'left b']);
  });

  it('an admission that throws counts as refused', async () => {
    const limiter = new AccountingLimiter();
    limiter.failWith = new GovernanceBackendError({ scope: 'LLM', message: 'redis down' });
    const h = loopHarness<ChatRequest, ChatResult>(chatOp, [chatResult()], { limiter });
    const log: string[] = [];
    h.deps.selector = listen(h.deps.selector, log);
    await expect(h.start(REQUEST).done).rejects.toBeInstanceOf(GovernanceBackendError);
    expect(log).toEqual(['entering a 100', 'refused a']);
  });

  it('health_aware: a burst spreads over the sources with room, each call admitted by its first pick', async () => {
    const sources = ['a', 'b', 'c'].map((name) => source(name, { maxConcurrency: 1 }));
    const h = loopHarness<ChatRequest, ChatResult>(chatOp, [HANG, HANG, HANG], { sources, settings: { selector: 'health_aware' } });
    const log: string[] = [];
    h.deps.selector = listen(h.deps.selector, log);
    const abort = new AbortController();
    const calls = [0, 1, 2].map(() => h.start(REQUEST, abort.signal).done);
    while (h.script.calls.length < 3) await settled();
    expect(h.script.sources().sort()).toEqual(['a', 'b', 'c']);
    expect(log.filter((line) => line.startsWith('refused'))).toEqual([]);
    abort.abort();
    await Promise.allSettled(calls);
  });
});

describe('retry loop: quota and breaker policies', () => {
  it('QUOTA_FULL=wait naps (bounded by the denial hint) until a source admits', async () => {
    const limiter = new AccountingLimiter();
    limiter.deny.set('a', { gate: 'source_rpm', retryAfterMs: 5 });
    limiter.deny.set('b', { gate: 'source_tpm', retryAfterMs: 40 });
    const h = chatHarness([chatResult()], { limiter });
    let naps = 0;
    h.sleep.onSleep = () => {
      naps += 1;
      if (naps === 2) limiter.deny.delete('b');
    };
    const response = await h.run();
    expect(h.sleep.calls).toEqual([25, 25]); // min hint 5 ms, raised to the 25 ms floor
    expect(response.source).toBe('b');
  });

  it('QUOTA_FULL=fail_fast throws quota_full with the smallest denial hint', async () => {
    const limiter = new AccountingLimiter();
    limiter.deny.set('a', { gate: 'source_rpm', retryAfterMs: 9_000 });
    limiter.deny.set('b', { gate: 'global_concurrency', retryAfterMs: 2_000 });
    const h = chatHarness([chatResult()], { limiter, settings: { quotaFull: 'fail_fast' } });
    const error = (await h.run().catch((e: unknown) => e)) as GatewayUnavailableError;
    expect(error).toBeInstanceOf(GatewayUnavailableError);
    expect(error.reason).toBe('quota_full');
    expect(error.retryAfterMs).toBe(2_000);
    expect(error.perSourceReasons).toEqual({ a: 'quota:source_rpm', b: 'quota:global_concurrency' });
  });

  it('a probe ticket taken for a source whose quota is full is released', async () => {
    const limiter = new AccountingLimiter();
    limiter.deny.set('a', { gate: 'source_rpm', retryAfterMs: 100 });
    const breaker = new ScriptedBreaker();
    breaker.probing.add('a');
    const h = chatHarness([chatResult()], { limiter, breaker });
    await h.run();
    expect(breaker.probeReleases).toEqual(['a']);
  });

  it('CIRCUIT_OPEN=fail_fast throws CircuitOpenError with the earliest reopen', async () => {
    const breaker = new ScriptedBreaker();
    breaker.open.set('a', 8_000);
    breaker.open.set('b', 3_000);
    const h = chatHarness([chatResult()], { breaker });
    const error = (await h.run().catch((e: unknown) => e)) as CircuitOpenError;
    expect(error).toBeInstanceOf(CircuitOpenError);
    expect(error.retryAfterMs).toBe(3_000);
    expect(h.script.calls).toHaveLength(0);
  });

  it('CIRCUIT_OPEN=wait sleeps until the earliest cooldown ends, then tries again', async () => {
    const breaker = new ScriptedBreaker();
    breaker.open.set('a', 8_000);
    breaker.open.set('b', 3_000);
    const h = chatHarness([chatResult()], { breaker, settings: { circuitOpen: 'wait' } });
    h.sleep.onSleep = () => breaker.open.delete('b');
    const response = await h.run();
    expect(h.sleep.calls).toEqual([3_000]);
    expect(response.source).toBe('b');
  });

  it('a governance store failure in admission propagates (fail-closed) and holds nothing', async () => {
    const limiter = new AccountingLimiter();
    limiter.failWith = new GovernanceBackendError({ scope: 'LLM', message: 'redis down' });
    const breaker = new ScriptedBreaker();
    breaker.probing.add('a');
    const h = chatHarness([chatResult()], { limiter, breaker });
    await expect(h.run()).rejects.toBeInstanceOf(GovernanceBackendError);
    expect(breaker.probeReleases).toEqual(['a']);
    expect(h.script.calls).toHaveLength(0);

    const brokenBreaker = new ScriptedBreaker();
    brokenBreaker.failWith = new GovernanceBackendError({ scope: 'LLM', message: 'redis down' });
    await expect(chatHarness([chatResult()], { breaker: brokenBreaker }).run()).rejects.toBeInstanceOf(GovernanceBackendError);
  });

  it('SourceNotConfiguredError propagates', async () => {
    const limiter = new AccountingLimiter();
    limiter.failWith = new SourceNotConfiguredError({ scope: 'LLM', sourceName: 'a' });
    await expect(chatHarness([chatResult()], { limiter }).run()).rejects.toBeInstanceOf(SourceNotConfiguredError);
  });

  it('a failing write-back after the attempt degrades to one warning; the answer stands', async () => {
    const breaker = new ScriptedBreaker();
    breaker.record = async () => {
      throw new GovernanceBackendError({ scope: 'LLM', message: 'redis blip' });
    };
    const h = chatHarness([chatResult(), chatResult()], { breaker });
    await expect(h.run()).resolves.toMatchObject({ content: 'ok' });
    await expect(h.run()).resolves.toMatchObject({ content: 'ok' });
    expect(h.warnings.filter((w) => w.includes('governor.finish'))).toHaveLength(1);
  });
});

describe('retry loop: a permit that settles and releases in one step', () => {
  /** AccountingLimiter permits, plus the optional combined step; the two separate steps are counted. */
  function combinedLimiter(combined: (permit: Permit, actual: number) => Promise<void>) {
    const inner = new AccountingLimiter();
    const separate = { settles: 0, releases: 0 };
    const limiter: Limiter = {
      tryEnter: async (name, est) => {
        const admission = await inner.tryEnter(name, est);
        if (!admission.ok) return admission;
        const { permit } = admission;
        return {
          ok: true,
          permit: {
            source: permit.source,
            estTokens: permit.estTokens,
            settle: async (actual) => {
              separate.settles += 1;
              await permit.settle(actual);
            },
            release: async () => {
              separate.releases += 1;
              await permit.release();
            },
            settleAndRelease: (actual) => combined(permit, actual),
          },
        };
      },
      sourceStats: (name) => inner.sourceStats(name),
    };
    return { inner, separate, limiter };
  }

  it('uses the combined step instead of the two separate ones', async () => {
    const { inner, separate, limiter } = combinedLimiter(async (permit, actual) => {
      await permit.settle(actual);
      await permit.release();
    });
    const h = chatHarness([chatResult('ok', { usage: usage(30, 12) })], { limiter });
    await expect(h.run()).resolves.toMatchObject({ content: 'ok' });
    expect(separate).toEqual({ settles: 0, releases: 0 });
    expect(inner.lastPermit()).toMatchObject({ settled: [42], releases: 1 });
  });

  it('a failing combined step degrades to one warning; the answer stands', async () => {
    const { limiter } = combinedLimiter(async () => {
      throw new GovernanceBackendError({ scope: 'LLM', message: 'redis blip' });
    });
    const h = chatHarness([chatResult(), chatResult()], { limiter });
    await expect(h.run()).resolves.toMatchObject({ content: 'ok' });
    await expect(h.run()).resolves.toMatchObject({ content: 'ok' });
    expect(h.warnings.filter((w) => w.includes('governor.finish'))).toHaveLength(1);
  });
});

describe('retry loop: stall verdict (both conditions)', () => {
  const stallSettings = { stallWindowMs: 1_000, retry: { maxAttempts: 3, backoffBaseMs: 400, backoffMaxMs: 400 } };

  it('stalls when the call waited the window AND the scope made no progress for it', async () => {
    const h = chatHarness([], { sources: [source('a')], settings: stallSettings, rng: () => 1 }, rateLimited());
    const error = (await h.run().catch((e: unknown) => e)) as GatewayUnavailableError;
    expect(error).toBeInstanceOf(GatewayUnavailableError);
    expect(error.reason).toBe('stalled');
    expect(h.sleep.total).toBe(1_200); // 3 × 400 ms: the verdict falls before the wait that would pass the window
  });

  it('does not stall while the scope makes progress elsewhere, however long this call waits', async () => {
    const steps = [...Array.from({ length: 10 }, () => rateLimited()), chatResult()];
    const h = loopHarness<ChatRequest, ChatResult>(chatOp, steps, { sources: [source('a')], settings: stallSettings, rng: () => 1 });
    h.sleep.onSleep = () => queueMicrotask(() => h.progress.markProgress()); // another call succeeds meanwhile
    await h.start(REQUEST).done;
    expect(h.sleep.total).toBe(4_000);
  });

  it('does not stall when the scope is idle but the call itself waited less than the window', async () => {
    const h = chatHarness([rateLimited(), chatResult()], { sources: [source('a')], settings: stallSettings, rng: () => 1 });
    h.clock.advance(10_000_000); // no progress anywhere for ages
    await expect(h.run()).resolves.toMatchObject({ content: 'ok' });
  });

  it('one long attempt never counts as waiting', async () => {
    const h = chatHarness(
      [
        () => {
          h.clock.advance(50_000); // a slow but live attempt, 50 × the window
          throw rateLimited();
        },
        chatResult(),
      ],
      { sources: [source('a')], settings: stallSettings, rng: () => 1 },
    );
    await expect(h.run()).resolves.toMatchObject({ content: 'ok' });
  });

  it('quota polling and breaker waits count as non-productive waiting', async () => {
    const limiter = new AccountingLimiter();
    limiter.deny.set('a', { gate: 'source_concurrency', retryAfterMs: 1_000 });
    const quota = chatHarness([chatResult()], { limiter, sources: [source('a')], settings: { stallWindowMs: 3_000 } });
    await expect(quota.run()).rejects.toMatchObject({ reason: 'stalled' });
    expect(quota.sleep.total).toBe(3_000);

    const breaker = new ScriptedBreaker();
    breaker.open.set('a', 2_000);
    const circuit = chatHarness([chatResult()], { breaker, sources: [source('a')], settings: { stallWindowMs: 3_000, circuitOpen: 'wait' } });
    await expect(circuit.run()).rejects.toMatchObject({ reason: 'stalled' });
    expect(circuit.sleep.total).toBe(4_000);
  });
});

describe('retry loop: context-window fallback', () => {
  const tooLong = () => new ContextLengthExceededError({ message: 'maximum context length', statusCode: 400, sourceName: 'x' });
  const windows = (...sizes: Array<number | undefined>) =>
    sizes.map((contextWindow, i) => source(String.fromCharCode(97 + i), contextWindow === undefined ? {} : { contextWindow }));

  it('moves on once to the first source (selector order) whose declared window is larger, without budget or breaker', async () => {
    const breaker = new ScriptedBreaker();
    const h = chatHarness([tooLong(), chatResult('from c')], { breaker, sources: windows(8_000, 4_000, 32_000, 128_000), settings: { retry: { maxAttempts: 1, backoffBaseMs: 10, backoffMaxMs: 100 } } });
    const response = await h.run();
    expect(h.script.sources()).toEqual(['a', 'c']);
    expect(response.source).toBe('c');
    expect(breaker.outcomes()).toEqual(['c:success']);
    expect(h.sleep.calls).toEqual([]);
  });

  it('keeps to larger windows for the retries that follow', async () => {
    const h = chatHarness([tooLong(), serverError(), chatResult()], { sources: windows(8_000, 4_000, 32_000, 128_000) });
    await h.run();
    expect(h.script.sources()).toEqual(['a', 'c', 'd']);
  });

  it('moves on only once: a second too-long prompt reaches the caller', async () => {
    const second = tooLong();
    const h = chatHarness([tooLong(), second, chatResult()], { sources: windows(8_000, 32_000, 128_000) });
    await expect(h.run()).rejects.toBe(second);
    expect(h.script.sources()).toEqual(['a', 'b']);
  });

  it.each([
    ['no source declares a window', [undefined, undefined]],
    ['the failing source declares none', [undefined, 128_000]],
    ['no other window is larger', [32_000, 32_000, 8_000]],
  ])('the error reaches the caller as before when %s', async (_case, sizes) => {
    const error = tooLong();
    const breaker = new ScriptedBreaker();
    const h = chatHarness([error, chatResult()], { breaker, sources: windows(...sizes) });
    await expect(h.run()).rejects.toBe(error);
    expect(h.script.calls).toHaveLength(1);
    expect(breaker.outcomes()).toEqual([]);
  });
});
