import { describe, expect, it } from 'vitest';
import { timeOrderedId } from '../src/time-ordered-id.js';

const V7 = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

describe('timeOrderedId', () => {
  it('has the UUIDv7 layout, with the milliseconds in its first 48 bits', () => {
    const id = timeOrderedId(0x0123_4567_89ab);
    expect(id).toMatch(V7);
    expect(id.slice(0, 13)).toBe('01234567-89ab');
  });

  it('sorts by time: a later millisecond gives a larger id', () => {
    const ids = [5, 1_000, 1_700_000_000_000, 1_700_000_000_001, 2 ** 47].map((ms) => timeOrderedId(ms));
    expect([...ids].sort()).toEqual(ids);
  });

  it('differs within one millisecond, across more ids than one batch of random bytes', () => {
    const ids = Array.from({ length: 2_000 }, () => timeOrderedId(1_700_000_000_000));
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids.every((id) => V7.test(id))).toBe(true);
  });

  it('draws every random digit: each of the 18 random positions takes all 16 values, the variant all four', () => {
    const ids = Array.from({ length: 4_000 }, () => timeOrderedId(1_700_000_000_000));
    const randomPositions = [15, 16, 17, 20, 21, 22, ...Array.from({ length: 12 }, (_, i) => 24 + i)];
    for (const position of randomPositions) expect(new Set(ids.map((id) => id[position])).size).toBe(16);
    expect(new Set(ids.map((id) => id[19]))).toEqual(new Set(['8', '9', 'a', 'b']));
  });
});
