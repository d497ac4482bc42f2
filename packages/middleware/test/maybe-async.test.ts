import { describe, expect, it } from 'vitest';
import { andThen, tryThen, wentAsync } from './helpers/internals.js';

const fail = (error: unknown): string => `failed: ${(error as Error).message}`;

describe('the synchronous fast path (maybe-async)', () => {
  it('continues at once with a plain value: no promise', () => {
    const order: string[] = [];
    const result = andThen(2, (value) => (order.push('next'), value * 3));
    order.push('after');
    expect(result).toBe(6);
    expect(order).toEqual(['next', 'after']);
    expect(wentAsync(result)).toBe(false);
  });

  it('continues once a promise resolves, and answers with a promise', async () => {
    const result = andThen(Promise.resolve(2), (value) => value * 3);
    expect(wentAsync(result)).toBe(true);
    expect(await result).toBe(6);
  });

  it('hands a throw and a rejection to the same handler', async () => {
    const thrown = tryThen(
      (): number => {
        throw new Error('at once');
      },
      String,
      fail,
    );
    expect(thrown).toBe('failed: at once');
    const rejected = tryThen(() => Promise.reject<number>(new Error('later')), String, fail);
    expect(wentAsync(rejected)).toBe(true);
    expect(await rejected).toBe('failed: later');
  });

  it('does not hand the continuation’s own failure to the handler, in either form', async () => {
    const boom = (): never => {
      throw new Error('in next');
    };
    expect(() => tryThen(() => 1, boom, fail)).toThrow('in next');
    await expect(tryThen(() => Promise.resolve(1), boom, fail)).rejects.toThrow('in next');
  });

  it('a handler that rethrows fails the same way the step did', async () => {
    const rethrow = (error: unknown): never => {
      throw error;
    };
    expect(() =>
      tryThen(
        () => {
          throw new Error('kept');
        },
        String,
        rethrow,
      ),
    ).toThrow('kept');
    await expect(tryThen(() => Promise.reject(new Error('kept')), String, rethrow)).rejects.toThrow('kept');
  });
});
