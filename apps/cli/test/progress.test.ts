import { expect, test } from 'vitest';
import { Progress, type ProgressStream } from '../src/progress.js';

function sink(isTTY: boolean): ProgressStream & { text: string } {
  return {
    isTTY,
    columns: 100,
    text: '',
    write(chunk: string) {
      this.text += chunk;
    },
  };
}

test('on a terminal the bar is redrawn in place with count, percentage, rate and eta', () => {
  let now = 0;
  const stream = sink(true);
  const progress = new Progress({ label: 'embedded', total: 10, stream, now: () => now });
  now = 1_000;
  progress.advance(4);
  expect(stream.text).toBe(`\r\u001b[2Kembedded [${'█'.repeat(10)}${'░'.repeat(14)}] 4/10 40% 4.0/s eta 2 s`);
  now = 2_500;
  progress.advance(6);
  progress.finish();
  expect(stream.text.endsWith('\r\u001b[2Kembedded 10/10 in 2.5 s\n')).toBe(true);
});

test('elsewhere it writes plain lines, at most one per interval, and a final line', () => {
  let now = 0;
  const stream = sink(false);
  const progress = new Progress({ label: 'embedded', total: 100, stream, now: () => now, lineIntervalMs: 2_000 });
  now = 500;
  progress.advance(10);
  now = 2_000;
  progress.advance(10);
  now = 3_000;
  progress.advance(10);
  now = 4_100;
  progress.advance(10);
  progress.finish();
  expect(stream.text).toBe('embedded 20/100 (20%)\nembedded 40/100 (40%)\nembedded 40/100 in 4.1 s\n');
});

test('a resumed job starts at its earlier count, left out of the rate, with its detail after the bar', () => {
  let now = 0;
  const stream = sink(true);
  const progress = new Progress({ label: 'job', total: 100, stream, now: () => now, startAt: 50 });
  now = 1_000;
  progress.set(60, 'failed 1 · in flight 4 · $0.01');
  expect(stream.text).toBe(`\r\u001b[2Kjob [${'█'.repeat(14)}${'░'.repeat(10)}] 60/100 60% failed 1 · in flight 4 · $0.01 10.0/s eta 4 s`);
});
