import { getEventListeners } from 'node:events';
import { describe, expect, it } from 'vitest';
import { FakeClock, FakeSleep } from '../src/fake-clock.js';

describe('FakeClock', () => {
  it('starts at a fixed epoch and moves only when told', () => {
    const clock = new FakeClock();
    const { now } = clock;
    expect(now()).toBe(1_700_000_000_000);
    clock.advance(1500);
    expect(now()).toBe(1_700_000_001_500);
    clock.set(42);
    expect(now()).toBe(42);
    expect(new FakeClock(7).now()).toBe(7);
  });

  it.each([-1, Number.NaN, Number.POSITIVE_INFINITY])('refuses to advance by %s', (ms) => {
    expect(() => new FakeClock().advance(ms)).toThrow(RangeError);
  });
});

describe('FakeSleep (auto)', () => {
  it('records each delay and advances the clock by it', async () => {
    const clock = new FakeClock(0);
    const { sleep, delays } = new FakeSleep(clock);
    await sleep(100);
    await sleep(2500);
    expect(delays).toEqual([100, 2500]);
    expect(clock.now()).toBe(2600);
  });

  it('resolves on a microtask, not synchronously', async () => {
    const clock = new FakeClock(0);
    const fake = new FakeSleep(clock);
    let woke = false;
    const slept = fake.sleep(10).then(() => (woke = true));
    expect(woke).toBe(false);
    await slept;
    expect(woke).toBe(true);
  });

  it('rejects with an AbortError carrying the reason when the signal is or gets aborted', async () => {
    const clock = new FakeClock(0);
    const fake = new FakeSleep(clock);
    const before = new AbortController();
    before.abort('early');
    await expect(fake.sleep(10, before.signal)).rejects.toMatchObject({ name: 'AbortError', cause: 'early' });

    const during = new AbortController();
    const slept = fake.sleep(10, during.signal);
    during.abort('late');
    await expect(slept).rejects.toMatchObject({ name: 'AbortError', cause: 'late' });
    expect(clock.now()).toBe(0);
    expect(fake.delays).toEqual([10, 10]);
  });
});

describe('FakeSleep (manual)', () => {
  it('keeps sleeps pending until advance reaches their wake time, waking them in order', async () => {
    const clock = new FakeClock(0);
    const fake = new FakeSleep(clock, { manual: true });
    const woke: number[] = [];
    const long = fake.sleep(300).then(() => woke.push(300));
    const short = fake.sleep(100).then(() => woke.push(100));
    expect(fake.pending).toBe(2);
    fake.advance(99);
    await Promise.resolve();
    expect(woke).toEqual([]);
    fake.advance(201);
    await Promise.all([long, short]);
    expect(woke).toEqual([100, 300]);
    expect(fake.pending).toBe(0);
    expect(clock.now()).toBe(300);
  });

  it('flush moves the clock to the last wake time and wakes everything', async () => {
    const clock = new FakeClock(1000);
    const fake = new FakeSleep(clock, { manual: true });
    const sleeps = [fake.sleep(50), fake.sleep(700)];
    fake.flush();
    await Promise.all(sleeps);
    expect(clock.now()).toBe(1700);
    fake.flush();
    expect(clock.now()).toBe(1700);
  });

  it('nextSleep pins the moment the code under test starts waiting', async () => {
    const clock = new FakeClock(0);
    const fake = new FakeSleep(clock, { manual: true });
    const controller = new AbortController();
    const waiting = fake.nextSleep();
    const task = (async () => {
      await Promise.resolve();
      await fake.sleep(5000, controller.signal);
    })();
    expect(await waiting).toBe(5000);
    expect(getEventListeners(controller.signal, 'abort')).toHaveLength(1);
    controller.abort(new Error('cancelled'));
    await expect(task).rejects.toMatchObject({ name: 'AbortError' });
    expect(fake.pending).toBe(0);
    expect(getEventListeners(controller.signal, 'abort')).toHaveLength(0);
  });

  it('removes its abort listener when woken', async () => {
    const clock = new FakeClock(0);
    const fake = new FakeSleep(clock, { manual: true });
    const controller = new AbortController();
    const slept = fake.sleep(10, controller.signal);
    fake.advance(10);
    await slept;
    expect(getEventListeners(controller.signal, 'abort')).toHaveLength(0);
  });
});
