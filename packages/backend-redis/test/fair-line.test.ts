/**
 * The RedisGovernor's fleet-wide line between tenants and classes: start-time fair queuing by tags,
 * interactive turns before batch turns, and a turn refused at its own tenant's gates out of the way.
 */
import { afterAll, expect, it } from 'vitest';
import type { Caller, GlobalLimits, SourceLimits, TenantPolicy } from '@pgw/core';
import { FakeClock, TEST_BREAKER_POLICY, UNLIMITED } from '@pgw/testkit';
import { RedisGovernor } from '../src/index.js';
import { connectionPool, uniqueScope } from './redis.js';

const pool = connectionPool();
const governors: RedisGovernor[] = [];
afterAll(async () => {
  for (const governor of governors) await governor.close();
  await pool.closeAll();
});

const NO_BOUNDS = { rpm: 0, tpm: 0, maxConcurrency: 0 };
const of = (tenantId: string, priority: Caller['priority'] = 'interactive'): Caller => ({ tenantId, priority });

function governor(options: { source?: SourceLimits; global?: GlobalLimits; tenants?: Partial<TenantPolicy> }) {
  // The clock stands still: no turn lapses while a test holds it.
  const clock = new FakeClock();
  const made = new RedisGovernor({
    redis: pool.open(),
    scope: uniqueScope('fair-line'),
    sources: { a: options.source ?? UNLIMITED },
    global: options.global ?? UNLIMITED,
    tenants: { bounds: NO_BOUNDS, tenants: {}, batchShare: 0.8, ...options.tenants },
    leaseTtlMs: 30_000,
    policy: TEST_BREAKER_POLICY,
    now: clock.now,
  });
  governors.push(made);
  return made;
}

async function admitted(g: RedisGovernor, caller: Caller, turn?: string) {
  const answer = await g.admit('a', 1, turn, undefined, caller);
  if (!answer.ok) throw new Error(`expected an admission, refused: ${JSON.stringify(answer)}`);
  return answer;
}

/**
 * Turns of a source that holds one call at a time, each joining the line in the order given while
 * a holder blocks it; then, call by call, every waiting turn tries (in name order) until one is
 * admitted and finishes. Answers the turns in the order they were served.
 */
async function served(g: RedisGovernor, turns: ReadonlyArray<readonly [string, Caller]>): Promise<string[]> {
  const holder = await admitted(g, of('holder'));
  for (const [turn, caller] of turns) expect((await g.admit('a', 1, turn, undefined, caller)).ok).toBe(false);
  await holder.finish('success', 1);
  const waiting = new Map(turns);
  const order: string[] = [];
  while (waiting.size > 0) {
    let admittedOne = false;
    for (const [turn, caller] of [...waiting].sort(([x], [y]) => x.localeCompare(y))) {
      const answer = await g.admit('a', 1, turn, undefined, caller);
      if (answer.ok) {
        order.push(turn);
        waiting.delete(turn);
        await answer.finish('success', 1);
        admittedOne = true;
        break;
      }
    }
    if (!admittedOne) throw new Error(`nobody of ${[...waiting.keys()].join(', ')} was admitted`);
  }
  return order;
}

const one = { ...UNLIMITED, maxConcurrency: 1 };

it('serves a tenant that joins later interleaved with one that waits with many turns', async () => {
  const g = governor({ source: one });
  const many = ['a1', 'a2', 'a3', 'a4', 'a5', 'a6'].map((turn) => [turn, of('A')] as const);
  const later = ['b1', 'b2', 'b3'].map((turn) => [turn, of('B')] as const);
  expect(await served(g, [...many, ...later])).toEqual(['a1', 'b1', 'a2', 'b2', 'a3', 'b3', 'a4', 'a5', 'a6']);
});

it('serves tenants in proportion to their weights', async () => {
  const g = governor({ source: one, tenants: { tenants: { A: { weight: 2 } } } });
  const turns = [1, 2, 3, 4, 5, 6].flatMap((i) => [[`a${i}`, of('A')] as const, [`b${i}`, of('B')] as const]);
  const first = (await served(g, turns)).slice(0, 9);
  expect(first.filter((turn) => turn.startsWith('a'))).toHaveLength(6);
  expect(first.filter((turn) => turn.startsWith('b'))).toHaveLength(3);
});

it('serves every interactive turn before any batch turn, whenever it joined', async () => {
  const g = governor({ source: one });
  const order = await served(g, [
    ['b1', of('A', 'batch')],
    ['b2', of('B', 'batch')],
    ['i1', of('A')],
    ['i2', of('C')],
  ]);
  expect(order.slice(0, 2).sort()).toEqual(['i1', 'i2']);
});

it('queues a call without a turn only behind turns of its class or a more urgent one', async () => {
  const g = governor({ global: { ...UNLIMITED, maxConcurrency: 4 }, tenants: { batchShare: 0.25 } });
  await admitted(g, of('A', 'batch'));
  expect(await g.admit('a', 1, 'waiting-batch', undefined, of('B', 'batch'))).toMatchObject({ ok: false, gate: 'batch_concurrency' });
  expect((await g.admit('a', 1, undefined, undefined, of('C'))).ok).toBe(true);
  expect(await g.admit('a', 1, undefined, undefined, of('C', 'batch'))).toMatchObject({ ok: false, queued: true });
});

it('takes a turn refused at its own tenant’s gates out of the line, and lets it join again', async () => {
  const g = governor({ tenants: { bounds: { ...NO_BOUNDS, maxConcurrency: 1 } } });
  const held = await admitted(g, of('X'));
  expect(await g.admit('a', 1, 'x-turn', undefined, of('X'))).toMatchObject({ ok: false, gate: 'tenant_concurrency' });
  // With x-turn still at the head, these would be queued behind it.
  const other = await admitted(g, of('Y'), 'y-turn');
  await admitted(g, of('Z'));
  await other.finish('success', 1);
  expect(await g.admit('a', 1, 'x-turn', undefined, of('X'))).toMatchObject({ ok: false, gate: 'tenant_concurrency' });
  await held.finish('success', 1);
  expect((await g.admit('a', 1, 'x-turn', undefined, of('X'))).ok).toBe(true);
});
