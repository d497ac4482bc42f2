/** The RedisGovernor's fleet-wide line: turns served in arrival order, wake-ups on freed room, lapsed turns dropped. */
import { afterAll, expect, it } from 'vitest';
import { FakeClock, TEST_BREAKER_POLICY, UNLIMITED } from '@pgw/testkit';
import { RedisGovernor } from '../src/index.js';
import { connectionPool, uniqueScope } from './redis.js';

const pool = connectionPool();
const governors: RedisGovernor[] = [];
afterAll(async () => {
  for (const governor of governors) await governor.close();
  await pool.closeAll();
});

function governor(scope: string, clock?: FakeClock) {
  const made = new RedisGovernor({
    redis: pool.open(),
    scope,
    sources: { a: { ...UNLIMITED, maxConcurrency: 1 } },
    global: UNLIMITED,
    leaseTtlMs: 30_000,
    policy: TEST_BREAKER_POLICY,
    ...(clock && { now: clock.now }),
  });
  governors.push(made);
  return made;
}

it('serves turns in arrival order; a caller without one waits while anybody does', async () => {
  const scope = uniqueScope('line');
  const [one, two] = [governor(scope), governor(scope)];
  const holder = await one.admit('a', 1);
  if (!holder.ok) throw new Error('expected admission');
  expect(await one.admit('a', 1, 'first')).toMatchObject({ ok: false, gate: 'source_concurrency' });
  expect(await two.admit('a', 1, 'second')).toMatchObject({ ok: false, queued: true });
  expect(await two.admit('a', 1)).toMatchObject({ ok: false, queued: true });

  const woken = new Promise<void>((resolve) => two.onRoomFreed(resolve));
  await new Promise((resolve) => setTimeout(resolve, 200)); // the subscriber connects
  await holder.finish('success', 1);
  await woken; // room freed while others wait is announced to every process
  expect(await two.admit('a', 1, 'second')).toMatchObject({ ok: false, queued: true });
  const first = await one.admit('a', 1, 'first');
  expect(first.ok).toBe(true);
  if (first.ok) await first.finish('success', 1);
  const second = await two.admit('a', 1, 'second');
  expect(second.ok).toBe(true);
  if (second.ok) await second.finish('success', 1);
  expect((await two.admit('a', 1)).ok).toBe(true);
});

it('a turn given up, or one whose holder stopped trying, no longer holds the line', async () => {
  const clock = new FakeClock();
  const scope = uniqueScope('line');
  const g = governor(scope, clock);
  const holder = await g.admit('a', 1);
  if (!holder.ok) throw new Error('expected admission');
  await g.admit('a', 1, 'gone');
  await g.admit('a', 1, 'lapsing');
  await g.admit('a', 1, 'next');
  await holder.finish('success', 1);
  await g.leaveLine('gone');
  clock.advance(1_500); // 'lapsing' did not try again within its 1.5 s; 'next' tries now
  const next = await g.admit('a', 1, 'next');
  expect(next.ok).toBe(true);
});
