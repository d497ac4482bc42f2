import { GatewayUnavailableError, type ChatRequest, type ChatResult } from '@pgw/core';
import { sleep, ThinkingContradictions } from '@pgw/core/internal';
import { deferred } from '@pgw/testkit';
import { describe, expect, it } from 'vitest';
import { chatOperation, WaitLine } from './helpers/internals.js';
import { AccountingLimiter, chatResult, source } from './helpers/fakes.js';
import { loopHarness } from './helpers/harness.js';

const REQUEST: ChatRequest = { messages: [{ role: 'user', content: 'hi' }], sampling: {} };
const chatOp = () => chatOperation(new ThinkingContradictions(() => undefined));

describe('WaitLine', () => {
  it('serves its head first, and hands the turn on when the head leaves', () => {
    const line = new WaitLine();
    expect(line.empty).toBe(true);
    const first = line.join();
    const second = line.join();
    expect([first.atHead, second.atHead]).toEqual([true, false]);
    first.leave();
    first.leave();
    expect(second.atHead).toBe(true);
    second.leave();
    expect(line.empty).toBe(true);
  });

  it('cuts the head’s wait short when room is freed (real time, a 10 s wait)', async () => {
    const line = new WaitLine();
    const head = line.join();
    const started = performance.now();
    const waiting = head.wait(10_000, new AbortController().signal, sleep);
    line.roomFreed();
    await waiting;
    expect(performance.now() - started).toBeLessThan(5_000);
    head.leave();
  });

  it('remembers a wake that came while the head was not asleep', async () => {
    const line = new WaitLine();
    const head = line.join();
    line.roomFreed();
    await head.wait(10_000, new AbortController().signal, () => new Promise(() => undefined));
    head.leave();
  });

  it('wakes the next waiter when the head leaves', async () => {
    const line = new WaitLine();
    const head = line.join();
    const next = line.join();
    const waiting = next.wait(10_000, new AbortController().signal, sleep);
    head.leave();
    await waiting;
    next.leave();
  });

  it('rejects with the call’s abort and leaves no listener behind', async () => {
    const line = new WaitLine();
    const waiter = line.join();
    const controller = new AbortController();
    const waiting = waiter.wait(10_000, controller.signal, sleep);
    controller.abort(new Error('stop'));
    await expect(waiting).rejects.toMatchObject({ name: 'AbortError', cause: new Error('stop') });
    waiter.leave();
  });
});

describe('retry loop: waiting in line', () => {
  it('brings the stall verdict to callers waiting behind the head too', async () => {
    const limiter = new AccountingLimiter();
    const h = loopHarness<ChatRequest, ChatResult>(chatOp, [], {
      sources: [source('a')],
      settings: { stallWindowMs: 3_000 },
      limiter,
    });
    limiter.deny.set('a', { gate: 'source_concurrency', retryAfterMs: 250 });
    const calls = [h.start(REQUEST), h.start(REQUEST), h.start(REQUEST)];
    const errors = await Promise.all(calls.map((call) => call.done.catch((error: unknown) => error)));
    for (const error of errors) {
      expect(error).toBeInstanceOf(GatewayUnavailableError);
      expect((error as GatewayUnavailableError).reason).toBe('stalled');
    }
    expect(h.deps.line.empty).toBe(true);
  });

  it('takes a cancelled waiter out of line, and serves those behind it', async () => {
    const entered = deferred();
    const release = deferred();
    const holding = async () => {
      entered.resolve();
      await release.promise;
      return chatResult();
    };
    const limiter = new AccountingLimiter();
    const h = loopHarness<ChatRequest, ChatResult>(chatOp, [holding, chatResult()], { sources: [source('a')], limiter });
    h.sleep.hang = true;
    const holder = h.start(REQUEST);
    await entered.promise;
    limiter.deny.set('a', { gate: 'source_concurrency', retryAfterMs: 250 });
    const cancelled = new AbortController();
    const first = h.start(REQUEST, cancelled.signal);
    const second = h.start(REQUEST);
    await h.sleep.nextCall();
    cancelled.abort(new Error('gone'));
    await expect(first.done).rejects.toMatchObject({ name: 'AbortError' });
    limiter.deny.delete('a');
    release.resolve();
    await holder.done;
    await expect(second.done).resolves.toMatchObject({ source: { name: 'a' } });
    expect(h.deps.line.empty).toBe(true);
  });
});

describe('WaitLine between tenants', () => {
  const caller = (tenantId: string, priority: 'interactive' | 'batch' = 'interactive') => ({ tenantId, priority });

  /** Serves the line's heads one by one, as admissions would: the tenants in the order served. */
  function serveAll(line: WaitLine, waiters: ReturnType<WaitLine['join']>[], tenantOf: Map<object, string>): string[] {
    const order: string[] = [];
    while (!line.empty) {
      const head = waiters.find((waiter) => waiter.atHead)!;
      order.push(tenantOf.get(head)!);
      head.served();
      head.leave();
    }
    return order;
  }

  it("serves a tenant that joins behind another's backlog in turn, not after it", () => {
    const line = new WaitLine();
    const tenantOf = new Map<object, string>();
    const waiters = [...Array.from({ length: 6 }, () => 'a'), ...Array.from({ length: 3 }, () => 'b')].map((tenant) => {
      const waiter = line.join(caller(tenant));
      tenantOf.set(waiter, tenant);
      return waiter;
    });
    expect(serveAll(line, waiters, tenantOf).join('')).toBe('abababaaa');
  });

  it('gives weights their share: 2:1', () => {
    const line = new WaitLine((tenant) => (tenant === 'heavy' ? 2 : 1));
    const tenantOf = new Map<object, string>();
    const waiters = ['heavy', 'light'].flatMap((tenant) =>
      Array.from({ length: 6 }, () => {
        const waiter = line.join(caller(tenant));
        tenantOf.set(waiter, tenant);
        return waiter;
      }),
    );
    const firstNine = serveAll(line, waiters, tenantOf).slice(0, 9);
    expect(firstNine.filter((tenant) => tenant === 'heavy')).toHaveLength(6);
  });

  it('serves interactive waiters before batch ones, whatever their arrival', () => {
    const line = new WaitLine();
    const batch = line.join(caller('a', 'batch'));
    expect(batch.atHead).toBe(true);
    const live = line.join(caller('b'));
    expect([live.atHead, batch.atHead]).toEqual([true, false]);
    live.leave();
    expect(batch.atHead).toBe(true);
    batch.leave();
  });

  it('gives a tenant that waited long no credit: it rejoins at the virtual time', () => {
    const line = new WaitLine();
    const early = line.join(caller('a'));
    early.served();
    early.leave();
    const tenantOf = new Map<object, string>();
    const busy = Array.from({ length: 4 }, () => {
      const waiter = line.join(caller('b'));
      tenantOf.set(waiter, 'b');
      return waiter;
    });
    busy[0]!.served();
    busy[0]!.leave();
    busy[1]!.served();
    busy[1]!.leave();
    const back = line.join(caller('a'));
    tenantOf.set(back, 'a');
    // a's earlier service left it no tag below b's next one: they alternate from here.
    expect(serveAll(line, [...busy.slice(2), back], tenantOf).join('')).toBe('bab');
  });

  it('a parked tenant steps aside: the next tenant is head, the parked one still tries for itself', () => {
    const line = new WaitLine();
    const capped = line.join(caller('capped'));
    const cappedNext = line.join(caller('capped'));
    const free = line.join(caller('free'));
    expect(capped.atHead).toBe(true);
    capped.park();
    expect([capped.atHead, cappedNext.atHead, free.atHead]).toEqual([true, false, true]);
    capped.unpark();
    expect([capped.atHead, free.atHead]).toEqual([true, false]);
    for (const waiter of [capped, cappedNext, free]) waiter.leave();
    expect(line.empty).toBe(true);
  });

  it('counts the waiters of a tenant in every class', () => {
    const line = new WaitLine();
    const waiters = [line.join(caller('a')), line.join(caller('a', 'batch')), line.join(caller('b'))];
    expect([line.waiting('a'), line.waiting('b'), line.waiting('c')]).toEqual([2, 1, 0]);
    for (const waiter of waiters) waiter.leave();
  });
});
