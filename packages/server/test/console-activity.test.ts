/**
 * What the console keeps of this process's calls (unit logic, injected clock): 5-second buckets over
 * five minutes with their percentiles, the last failed calls (bounded, newest first, nothing of a
 * prompt), attempts in flight per source, recent error classes that age out, and the tenants of
 * recent calls (bounded, most recent first). The feed's one timer runs only while a console watches.
 */
import { EventEmitter } from 'node:events';
import type { ServerResponse } from 'node:http';
import type { AttemptEndEvent, AttemptStartEvent, CallEndEvent } from '@pgw/client';
import { describe, expect, it } from 'vitest';
import { BUCKET_MS, ConsoleActivity } from '../src/console/activity.js';
import { ConsoleFeed } from '../src/console/feed.js';
import type { ConsoleState } from '../src/console/state.js';

const T0 = 1_800_000_000_000;

function recorder() {
  let now = T0;
  const activity = new ConsoleActivity(() => now);
  const call = (id: string, tenantId?: string) => ({ logicalCallId: id, scope: 'LLM', operation: 'chat' as const, startedAt: now, ...(tenantId !== undefined && { tenantId }) });
  const end = (id: string, latencyMs: number, error?: Error, tenantId?: string) =>
    activity.subscriber.onCallEnd!({ call: call(id, tenantId), status: error ? 'error' : 'ok', error, attempts: 1, totalLatencyMs: latencyMs, sourcesTried: ['main'] } as CallEndEvent);
  const attempt = (id: string, error?: Error) => {
    activity.subscriber.onAttemptStart!({ call: call(id), source: 'main' } as AttemptStartEvent);
    return () => activity.subscriber.onAttemptEnd!({ call: call(id), source: 'main', status: error ? 'error' : 'ok', error } as AttemptEndEvent);
  };
  return { activity, end, attempt, advance: (ms: number) => void (now += ms) };
}

describe('ConsoleActivity', () => {
  it('counts calls and errors per 5-second bucket, with nearest-rank p50 and p99, over five minutes', () => {
    const { activity, end, advance } = recorder();
    for (let i = 1; i <= 100; i += 1) end(`c${i}`, i, i % 10 === 0 ? new RangeError('x') : undefined);
    advance(BUCKET_MS);
    end('late', 7);
    const series = activity.series();
    expect(series).toHaveLength(60);
    expect(series.at(-2)).toMatchObject({ calls: 100, errors: 10, p50Ms: 50, p99Ms: 99 });
    expect(series.at(-1)).toMatchObject({ calls: 1, errors: 0, p50Ms: 7, p99Ms: 7 });
    expect(series.at(-3)).toMatchObject({ calls: 0, p50Ms: undefined });
    advance(60 * BUCKET_MS);
    expect(activity.series().every((point) => point.calls === 0)).toBe(true);
  });

  it('keeps the last 50 failed calls, newest first, by class and id only', () => {
    const { activity, end } = recorder();
    for (let i = 0; i < 60; i += 1) end(`f${i}`, 1, new TypeError('upstream said: secret'));
    const failures = activity.failures();
    expect(failures).toHaveLength(50);
    expect(failures[0]).toEqual({ at: T0, scope: 'LLM', source: 'main', errorClass: 'TypeError', callId: 'f59' });
    expect(JSON.stringify(failures)).not.toContain('secret');
  });

  it('counts attempts in flight here and recent error classes per source, which age out', () => {
    const { activity, attempt, advance } = recorder();
    const first = attempt('a', new RangeError('x'));
    const second = attempt('b');
    expect(activity.source('LLM', 'main').inflightHere).toBe(2);
    first();
    second();
    expect(activity.source('LLM', 'main')).toEqual({ inflightHere: 0, recentErrors: [{ errorClass: 'RangeError', count: 1 }] });
    advance(61 * BUCKET_MS);
    expect(activity.source('LLM', 'main').recentErrors).toEqual([]);
  });

  it('keeps the 50 most recent tenants, most recent first', () => {
    const { activity, end } = recorder();
    for (let i = 0; i < 60; i += 1) end(`t${i}`, 1, undefined, `tenant-${i}`);
    end('again', 1, undefined, 'tenant-20');
    const seen = activity.seenTenants();
    expect(seen).toHaveLength(50);
    expect(seen.slice(0, 2)).toEqual(['tenant-20', 'tenant-59']);
    expect(seen).not.toContain('tenant-5');
  });
});

describe('ConsoleFeed', () => {
  const timers = () => process.getActiveResourcesInfo().filter((kind) => kind === 'Timeout').length;
  /** What the feed uses of a ServerResponse. */
  class FakeStream extends EventEmitter {
    readonly writableLength = 0;
    readonly written: string[] = [];
    write(text: string): boolean {
      this.written.push(text);
      return true;
    }
    end(): void {
      this.emit('close');
    }
  }
  const stream = () => new FakeStream();

  it('runs one timer while a stream is open, sends the state at once, and clears it when the last one goes', async () => {
    const before = timers();
    const feed = new ConsoleFeed(async () => ({ draining: false }) as ConsoleState, (error) => { throw error; });
    const a = stream();
    const b = stream();
    feed.add(a as unknown as ServerResponse);
    feed.add(b as unknown as ServerResponse);
    expect(timers()).toBe(before + 1);
    await new Promise((resolve) => setImmediate(resolve));
    expect(a.written[0]).toBe('event: state\ndata: {"draining":false}\n\n');
    a.emit('close');
    expect([feed.streams, timers()]).toEqual([1, before + 1]);
    b.emit('close');
    expect([feed.streams, timers()]).toEqual([0, before]);
  });

  it('ends every stream on close and any stream added after it', () => {
    const before = timers();
    const feed = new ConsoleFeed(async () => ({}) as ConsoleState, () => {});
    const a = stream();
    let ended = 0;
    a.on('close', () => (ended += 1));
    feed.add(a as unknown as ServerResponse);
    feed.close();
    const late = stream();
    late.on('close', () => (ended += 1));
    feed.add(late as unknown as ServerResponse);
    expect([ended, feed.streams, timers()]).toEqual([2, 0, before]);
  });
});
