import { describe, expect, it, vi } from 'vitest';
import { CancelHandle } from '../src/cancel-handle.js';

describe('CancelHandle', () => {
  it('runs each abort listener once, with the reason set before they run', () => {
    const handle = new CancelHandle();
    const reasons: unknown[] = [];
    handle.once('abort', () => reasons.push(handle.reason));
    handle.on('abort', () => reasons.push(handle.aborted));
    const reason = new Error('stop');
    handle.abort(reason);
    handle.abort(new Error('again'));
    expect(reasons).toEqual([reason, true]);
    expect(handle.reason).toBe(reason);
  });

  it('does not run a removed listener, nor one added after the abort', () => {
    const handle = new CancelHandle();
    const removed = vi.fn();
    handle.once('abort', removed);
    handle.removeListener('abort', removed);
    handle.abort('x');
    const late = vi.fn();
    handle.once('abort', late);
    expect(removed).not.toHaveBeenCalled();
    expect(late).not.toHaveBeenCalled();
  });

  it('runs the listeners left after one of several is removed, in the order they were added', () => {
    const handle = new CancelHandle();
    const order: string[] = [];
    const first = () => order.push('first');
    const second = () => order.push('second');
    handle.on('abort', first);
    handle.on('abort', second);
    handle.on('abort', first);
    handle.removeListener('abort', first);
    handle.abort('x');
    expect(order).toEqual(['second', 'first']);
  });

  it('ignores other events', () => {
    const handle = new CancelHandle();
    const other = vi.fn();
    handle.on('close', other);
    handle.abort('x');
    expect(other).not.toHaveBeenCalled();
  });
});
