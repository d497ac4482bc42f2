import { setImmediate as turn } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { LineBatch } from '../src/operations/access-log.js';

describe('LineBatch', () => {
  it('writes the lines of one turn in one write, in their order, and the next turn’s in the next', async () => {
    const writes: string[] = [];
    const batch = new LineBatch((text) => writes.push(text));
    batch.line('{"a":1}');
    batch.line('{"b":2}');
    expect(writes).toEqual([]);
    await turn();
    batch.line('{"c":3}');
    await turn();
    expect(writes).toEqual(['{"a":1}\n{"b":2}\n', '{"c":3}\n']);
  });

  it('writes what is gathered at once when flushed (the process exits), and nothing twice', async () => {
    const writes: string[] = [];
    const batch = new LineBatch((text) => writes.push(text));
    batch.line('last words');
    batch.flush();
    expect(writes).toEqual(['last words\n']);
    await turn();
    batch.flush();
    expect(writes).toEqual(['last words\n']);
  });
});
