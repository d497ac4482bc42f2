/** docs/architecture.md#settlement: what each permit is settled with, one test per row, plus slot/probe release exactly once. */
import {
  RequestRejectedError,
  ResultInvalidError,
  SourceDeadError,
  TransientError,
  type LimitAdmission,
  type ChatRequest,
  type ChatResult,
  type EmbedResult,
  type Limiter,
} from '@pgw/core';
import { ThinkingContradictions } from '@pgw/core/internal';
import { deferred } from '@pgw/testkit';
import { describe, expect, it } from 'vitest';
import { chatOperation, embedOperation, ocrTextOperation } from './helpers/internals.js';
import {
  AccountingLimiter,
  chatResult,
  drain,
  embedResult,
  HANG,
  ScriptedBreaker,
  source,
  usage,
  type Script,
} from './helpers/fakes.js';
import { HI, loopHarness } from './helpers/harness.js';

const EST = 400;
const one = [source('a', { estTokens: EST })];
const chatOp = (_script: Script<ChatResult>) => chatOperation(new ThinkingContradictions(() => undefined));
const REQUEST: ChatRequest = { messages: HI, sampling: {} };

function chatLoop(steps: Parameters<typeof loopHarness<ChatRequest, ChatResult>>[1], breaker = new ScriptedBreaker()) {
  breaker.probing.add('a'); // every attempt holds the half-open probe, so its release is observable
  const h = loopHarness<ChatRequest, ChatResult>(chatOp, steps, { sources: one, breaker });
  return { ...h, limiter: h.limiter as AccountingLimiter, breaker };
}

/** Pacer slot, permit and probe each given back exactly once. */
function expectReleasedOnce(h: ReturnType<typeof chatLoop>, verdicts: number): void {
  expect(h.pacer.snapshot('a').inflight).toBe(0);
  for (const permit of h.limiter.permits) {
    expect(permit.settled).toHaveLength(1);
    expect(permit.releases).toBe(1);
  }
  expect(h.limiter.inflight.get('a') ?? 0).toBe(0);
  // The probe ends either with one verdict or with one release, never both, never neither.
  expect(h.breaker.records.length + h.breaker.probeReleases.length).toBe(verdicts);
}

describe('settlement matrix (docs/architecture.md#settlement)', () => {
  it('S1: abort during admission settles 0 — a late grant is handed back whole', async () => {
    const grant = deferred<LimitAdmission>();
    const entered = deferred();
    const inner = new AccountingLimiter();
    const limiter: Limiter = {
      tryEnter: () => {
        entered.resolve();
        return grant.promise;
      },
      sourceStats: (name) => inner.sourceStats(name),
    };
    const h = loopHarness<ChatRequest, ChatResult>(chatOp, [chatResult()], { sources: one, limiter });
    const controller = new AbortController();
    const { done } = h.start(REQUEST, controller.signal);
    await entered.promise;
    controller.abort();
    await expect(done).rejects.toMatchObject({ name: 'AbortError' });
    grant.resolve(await inner.tryEnter('a', EST)); // the store answers after the caller left
    await drain();
    expect(inner.lastPermit().settled).toEqual([0]);
    expect(inner.lastPermit().releases).toBe(1);
    expect(inner.tpm.get('a')).toBe(0);
    expect(h.script.calls).toHaveLength(0);
    expect(h.pacer.snapshot('a').inflight).toBe(0);
  });

  it('S1: a breaker refusal takes no permit at all', async () => {
    const breaker = new ScriptedBreaker();
    breaker.open.set('a', 5_000);
    const h = loopHarness<ChatRequest, ChatResult>(chatOp, [chatResult()], { sources: one, breaker });
    await expect(h.start(REQUEST).done).rejects.toMatchObject({ name: 'CircuitOpenError' });
    expect((h.limiter as AccountingLimiter).permits).toHaveLength(0);
    expect(h.script.calls).toHaveLength(0);
  });

  it('S2: abort during a backoff wait holds no permit (the failed attempt was settled before the wait)', async () => {
    const h = chatLoop([new TransientError({ message: '502', statusCode: 502, transientKind: 'server_error' }), chatResult()]);
    h.sleep.hang = true;
    const controller = new AbortController();
    const slept = h.sleep.nextCall();
    const { done } = h.start(REQUEST, controller.signal);
    await slept;
    expect(h.limiter.permits).toHaveLength(1);
    expect(h.limiter.lastPermit().settled).toEqual([EST]);
    controller.abort();
    await expect(done).rejects.toMatchObject({ name: 'AbortError' });
    expect(h.limiter.permits).toHaveLength(1); // nothing was admitted for the wait
    expect(h.limiter.tpm.get('a')).toBe(EST);
    expectReleasedOnce(h, 1);
  });

  it('S3: abort with the transport in flight and usage unknown keeps the reservation (est)', async () => {
    const h = chatLoop([HANG]);
    const controller = new AbortController();
    const { done } = h.start(REQUEST, controller.signal);
    await h.script.nextEntry();
    controller.abort();
    await expect(done).rejects.toMatchObject({ name: 'AbortError' });
    expect(h.limiter.lastPermit().settled).toEqual([EST]);
    expect(h.limiter.tpm.get('a')).toBe(EST);
    expect(h.reports.map((r) => r.status)).toEqual(['cancelled']);
    expect(h.breaker.probeReleases).toEqual(['a']);
    expectReleasedOnce(h, 1);
  });

  it('S4: abort after usage became known settles the known usage, not est', async () => {
    const usageKnown = deferred();
    const h = chatLoop([
      (ctx) => {
        ctx.onUsage?.(usage(7, 3)); // a streamed usage chunk, then the stream stalls
        usageKnown.resolve();
        return new Promise<ChatResult>(() => undefined);
      },
    ]);
    const controller = new AbortController();
    const { done } = h.start(REQUEST, controller.signal);
    await usageKnown.promise;
    controller.abort();
    await expect(done).rejects.toMatchObject({ name: 'AbortError' });
    expect(h.limiter.lastPermit().settled).toEqual([10]);
    expectReleasedOnce(h, 1);
  });

  it('S4: abort while the success verdict is being written keeps the measured usage', async () => {
    const breaker = new ScriptedBreaker();
    breaker.hangRecord = true;
    const h = chatLoop([chatResult('ok', { usage: usage(12, 3) })], breaker);
    const controller = new AbortController();
    const { done } = h.start(REQUEST, controller.signal);
    await breaker.recordEntered.promise;
    controller.abort();
    await expect(done).rejects.toMatchObject({ name: 'AbortError' });
    expect(h.limiter.lastPermit().settled).toEqual([15]);
    expect(breaker.outcomes()).toEqual(['a:success']);
    expect(h.reports.map((r) => r.status)).toEqual(['ok']); // one row for the attempt, not a second 'cancelled'
    expectReleasedOnce(h, 1);
  });

  it('real zero usage settles 0 — on success and when cancelled afterwards', async () => {
    const zero = chatResult('', { usage: usage(0, 0) });
    const plain = chatLoop([zero]);
    await plain.start(REQUEST).done;
    expect(plain.limiter.lastPermit().settled).toEqual([0]);

    const breaker = new ScriptedBreaker();
    breaker.hangRecord = true;
    const h = chatLoop([zero], breaker);
    const controller = new AbortController();
    const { done } = h.start(REQUEST, controller.signal);
    await breaker.recordEntered.promise;
    controller.abort();
    await expect(done).rejects.toMatchObject({ name: 'AbortError' });
    expect(h.limiter.lastPermit().settled).toEqual([0]); // a fact, never turned into est
  });

  it('usage the upstream could not report settles est', async () => {
    const h = chatLoop([chatResult('ok', { usage: usage(0, 0, 'unavailable') })]);
    await h.start(REQUEST).done;
    expect(h.limiter.lastPermit().settled).toEqual([EST]);
  });

  describe('S5: abort inside a handled failure branch keeps that branch value', () => {
    const cases = [
      ['source dead → 0', new SourceDeadError({ message: '401', statusCode: 401 }), 0, 'a:dead'],
      ['transient → est', new TransientError({ message: '503', statusCode: 503 }), EST, 'a:failure'],
      ['result invalid → 0', new ResultInvalidError({ message: 'no choices' }), 0, 'a:invalid'],
    ] as const;
    for (const [label, error, expected, verdict] of cases) {
      it(label, async () => {
        const breaker = new ScriptedBreaker();
        breaker.hangRecord = true;
        const h = chatLoop([error], breaker);
        const controller = new AbortController();
        const { done } = h.start(REQUEST, controller.signal);
        await breaker.recordEntered.promise;
        controller.abort();
        await expect(done).rejects.toMatchObject({ name: 'AbortError' });
        expect(h.limiter.lastPermit().settled).toEqual([expected]);
        expect(breaker.outcomes()).toEqual([verdict]);
        expect(h.reports.map((r) => r.status)).toEqual(['error']);
        expectReleasedOnce(h, 1);
      });
    }

    it('without a cancellation the same branches settle the same values', async () => {
      const dead = chatLoop(Array.from({ length: 3 }, () => new SourceDeadError({ message: '403', statusCode: 403 })));
      await expect(dead.start(REQUEST).done).rejects.toMatchObject({ name: 'AllSourcesExhausted' });
      expect(dead.limiter.permits.flatMap((p) => p.settled).every((v) => v === 0)).toBe(true);

      const rejected = chatLoop([new RequestRejectedError({ message: '400', statusCode: 400 })]);
      await expect(rejected.start(REQUEST).done).rejects.toBeInstanceOf(RequestRejectedError);
      expect(rejected.limiter.lastPermit().settled).toEqual([0]);
      expect(rejected.breaker.records).toHaveLength(0); // a bad request says nothing about the source
      expectReleasedOnce(rejected, 1);
    });
  });

  it('S6: OCR reserves its estimate at admission and settles 0 anywhere, in flight included', async () => {
    const ocrSource = [source('a', { estTokens: EST })];
    const h = loopHarness((script: Script<{ text: string }>) => ocrTextOperation(), [HANG], {
      sources: ocrSource,
      operation: 'ocr_text',
    });
    const controller = new AbortController();
    const { done } = h.start({ image: new Uint8Array([1]), options: {} }, controller.signal);
    await h.script.nextEntry();
    controller.abort();
    await expect(done).rejects.toMatchObject({ name: 'AbortError' });
    const limiter = h.limiter as AccountingLimiter;
    expect(limiter.lastPermit()).toMatchObject({ est: EST, settled: [0], releases: 1 });
    expect(limiter.tpm.get('a')).toBe(0);
  });

  it('S7: embedding follows S3/S4 — est in flight, measured usage on success', async () => {
    const embed = (script: Script<EmbedResult>) => embedOperation(undefined);
    const inflight = loopHarness(embed, [HANG], { sources: one, operation: 'embed' });
    const controller = new AbortController();
    const { done } = inflight.start({ texts: ['x'] }, controller.signal);
    await inflight.script.nextEntry();
    controller.abort();
    await expect(done).rejects.toMatchObject({ name: 'AbortError' });
    expect((inflight.limiter as AccountingLimiter).lastPermit().settled).toEqual([EST]);

    const ok = loopHarness(embed, [embedResult(1, 3, { usage: usage(9, 0) })], { sources: one, operation: 'embed' });
    await ok.start({ texts: ['x'] }).done;
    expect((ok.limiter as AccountingLimiter).lastPermit().settled).toEqual([9]);
  });

  it('S8: an unclassified error settles 0 and propagates unchanged', async () => {
    const bug = new RangeError('bug in a transport');
    const h = chatLoop([bug]);
    await expect(h.start(REQUEST).done).rejects.toBe(bug);
    expect(h.limiter.lastPermit().settled).toEqual([0]);
    expect(h.breaker.probeReleases).toEqual(['a']);
    expectReleasedOnce(h, 1);
  });

  it('unclassified error settles 0 even when it escapes from result validation', async () => {
    const h = loopHarness(
      (script: Script<EmbedResult>) => ({
        ...embedOperation(undefined),
        validate: () => {
          throw new TypeError('validator bug');
        },
        usageOf: () => undefined,
      }),
      [embedResult(1)],
      { sources: one, operation: 'embed' },
    );
    await expect(h.start({ texts: ['x'] }).done).rejects.toBeInstanceOf(TypeError);
    expect((h.limiter as AccountingLimiter).lastPermit().settled).toEqual([0]);
  });
});
