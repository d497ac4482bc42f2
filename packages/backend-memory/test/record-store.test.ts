import { expect, it } from 'vitest';
import { InMemoryRecordStore } from '../src/index.js';

it('drops the oldest records beyond maxRecords, so a flood of writes cannot grow the heap without bound', async () => {
  const store = new InMemoryRecordStore({ maxRecords: 2 });
  await store.set('a', '1', 60_000);
  await store.set('b', '2', 60_000);
  await store.set('a', '1 again', 60_000); // a rewrite is the newest record
  await store.set('c', '3', 60_000);
  expect([await store.get('a'), await store.get('b'), await store.get('c')]).toEqual(['1 again', undefined, '3']);
});

it('refuses a bound that is not a positive whole number', () => {
  expect(() => new InMemoryRecordStore({ maxRecords: 0 })).toThrow(RangeError);
});
