import { describe, expect, it } from 'vitest';
import { EARLY_S, stageTable, type StampedRequest } from '../src/serve-stages.js';

const START = 1_000_000;
const rowOf = (lines: string[], name: string) => lines.find((line) => line.startsWith(`| ${name}`))?.split(' | ');

describe('stageTable', () => {
  it('splits each stage by when the answer left, and measures later requests from the previous answer', () => {
    const early = START + 1000;
    const late = START + EARLY_S * 1000 + 500;
    const stamped: StampedRequest[] = [
      // A connection's first request: accepted at +0, parsed 40 ms later, admitted after 10 ms, upstream 5 ms, answered 1 ms after.
      [early - 56, early - 16, early - 6, early - 1, early, 1],
      // The next one on a connection: 2 ms from the previous answer to its headers; never sent upstream (a refusal).
      [late - 10, late - 8, null, null, late, 0],
    ];
    const lines = stageTable(START, [{ atMs: early, latencyMs: 70 }, { atMs: late, latencyMs: 9 }], stamped, 100);
    expect(rowOf(lines, 'accepted → parsed')?.slice(1, 3)).toEqual(['1', '40.0']);
    expect(rowOf(lines, 'accepted → parsed')?.[6]).toBe('0');
    expect(rowOf(lines, 'previous answer → parsed')?.slice(6, 8)).toEqual(['1', '2.0']);
    expect(rowOf(lines, 'parsed → sent upstream')?.slice(1, 3)).toEqual(['1', '10.0']);
    expect(rowOf(lines, 'parsed → sent upstream')?.[6]).toBe('0');
    expect(rowOf(lines, 'parsed → answered')?.slice(1, 3)).toEqual(['1', '16.0']);
    expect(rowOf(lines, 'parsed → answered')?.slice(6, 8)).toEqual(['1', '8.0']);
    expect(rowOf(lines, '**the load generator’s latency**')?.slice(1, 3)).toEqual(['1', '70.0']);
    expect(rowOf(lines, '**the load generator’s latency**')?.slice(6, 8)).toEqual(['1', '9.0']);
  });
});
