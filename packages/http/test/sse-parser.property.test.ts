import fc from 'fast-check';
import { createParser } from 'eventsource-parser';
import { describe, expect, it } from 'vitest';
import { SseParser } from '../src/index.js';

/** A valid stream as its parts: the data each event must yield, and its wire text. */
interface Stream {
  expected: string[];
  text: string;
}

const lineValue = fc.string({ unit: 'grapheme', maxLength: 12 }).map((s) => s.replace(/[\r\n]/g, ''));
const noise = fc.oneof(
  lineValue.map((v) => `: ${v}`),
  lineValue.map((v) => `event: ${v}`),
  fc.constantFrom('id: 1', 'retry: 100'),
);
const eventLines = fc
  .tuple(fc.array(lineValue, { minLength: 1, maxLength: 4 }), fc.array(noise, { maxLength: 2 }))
  .map(([data, extra]) => ({ data, lines: [...extra, ...data.map((v) => `data: ${v}`)] }));
// One ending per stream, or LF and CRLF mixed (a lone CR before an LF-ended blank line would read as CRLF).
const endings = fc.oneof(
  fc.constantFrom('\n', '\r\n', '\r').map((eol) => () => fc.constant(eol)),
  fc.constant(() => fc.constantFrom('\n', '\r\n')),
);

const streams: fc.Arbitrary<Stream> = fc
  .tuple(fc.array(eventLines, { minLength: 1, maxLength: 6 }), endings)
  .chain(([events, ending]) => {
    const lines = events.flatMap((e) => [...e.lines, '']);
    return fc.array(ending(), { minLength: lines.length, maxLength: lines.length }).map((eols) => ({
      expected: events.map((e) => e.data.join('\n')),
      text: lines.map((line, i) => line + eols[i]).join(''),
    }));
  });

function splitAt<T extends { slice(start: number, end?: number): T; length: number }>(whole: T, cuts: number[]): T[] {
  const points = [...new Set(cuts.map((c) => c % (whole.length + 1)))].sort((a, b) => a - b);
  const parts: T[] = [];
  let from = 0;
  for (const point of points) {
    parts.push(whole.slice(from, point));
    from = point;
  }
  parts.push(whole.slice(from));
  return parts;
}

function ours(chunks: string[], typed = false): string[] {
  const events: string[] = [];
  const parser = new SseParser((event) => events.push(typed ? `${event.event}|${event.data}` : event.data));
  for (const chunk of chunks) parser.feed(chunk);
  parser.end();
  return events;
}

function oracle(chunks: string[]): string[] {
  const events: string[] = [];
  const parser = createParser({ onEvent: (event) => events.push(`${event.event || 'message'}|${event.data}`) });
  for (const chunk of chunks) parser.feed(chunk);
  // eventsource-parser holds a final CR until it sees the next byte; an LF completes it as CRLF (same meaning).
  if (chunks.join('').endsWith('\r')) parser.feed('\n');
  return events;
}

const cuts = fc.array(fc.nat(), { maxLength: 30 });

describe('SseParser (property)', () => {
  it('yields the same events however the stream is split', () => {
    fc.assert(
      fc.property(streams, cuts, (stream, at) => {
        expect(ours(splitAt(stream.text, at))).toEqual(stream.expected);
      }),
      { numRuns: 500 },
    );
  });

  it('agrees with eventsource-parser on event types and data of the same chunks', () => {
    fc.assert(
      fc.property(streams, cuts, (stream, at) => {
        const chunks = splitAt(stream.text, at);
        expect(ours(chunks, true)).toEqual(oracle(chunks));
      }),
      { numRuns: 500 },
    );
  });

  it('yields the same events when UTF-8 bytes are split mid-character and decoded in stream mode', () => {
    fc.assert(
      fc.property(streams, cuts, (stream, at) => {
        const decoder = new TextDecoder();
        const chunks = splitAt(new TextEncoder().encode(stream.text), at).map((bytes) => decoder.decode(bytes, { stream: true }));
        expect(ours([...chunks, decoder.decode()])).toEqual(stream.expected);
      }),
      { numRuns: 300 },
    );
  });
});
