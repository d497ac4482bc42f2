import { describe, expect, it } from 'vitest';
import { SseParser } from '../src/index.js';

function parse(chunks: string[], end = true): string[] {
  const events: string[] = [];
  const parser = new SseParser((event) => events.push(event.data));
  for (const chunk of chunks) parser.feed(chunk);
  if (end) parser.end();
  return events;
}

describe('SseParser', () => {
  it('dispatches one event per blank-line-terminated block', () => {
    expect(parse(['data: a\n\ndata: b\n\n'])).toEqual(['a', 'b']);
  });

  it('joins multi-line data with \\n', () => {
    expect(parse(['data: line 1\ndata: line 2\ndata:\n\n'])).toEqual(['line 1\nline 2\n']);
  });

  it('accepts LF, CRLF and CR line ends, mixed', () => {
    expect(parse(['data: a\r\n\r\ndata: b\r\rdata: c\n\n'])).toEqual(['a', 'b', 'c']);
  });

  it('reassembles events split anywhere, including between CR and LF', () => {
    expect(parse(['da', 'ta: hel', 'lo\r', '\n', '\r', '\ndata: x\r', '\r'])).toEqual(['hello', 'x']);
  });

  it('does not mistake a CR line end followed by an empty chunk and an LF for one line end', () => {
    // "data: a\r" + "" + "\n" : the empty chunk must not forget the pending CR.
    expect(parse(['data: a\r', '', '\n', 'data: b\n\n'])).toEqual(['a\nb']);
  });

  it('ignores one byte order mark opening the stream, not a later one', () => {
    expect(parse(['', '\uFEFFdata: a\n\n', '\uFEFFdata: b\n\ndata: c\n\n'])).toEqual(['a', 'c']);
    expect(parse(['\uFEFF', 'data: a\n\n'])).toEqual(['a']);
  });

  it('names each event by its last event: line, else message, and resets the type per event', () => {
    const events: Array<[string, string]> = [];
    const parser = new SseParser((event) => events.push([event.event, event.data]));
    parser.feed('event: error\ndata: {"error":{}}\n\ndata: x\n\nevent: a\nevent: b\ndata: y\n\nevent:\ndata: z\n\n');
    expect(events).toEqual([['error', '{"error":{}}'], ['message', 'x'], ['b', 'y'], ['message', 'z']]);
  });

  it('forgets the type of a block without data lines', () => {
    const types: string[] = [];
    const parser = new SseParser((event) => types.push(event.event));
    parser.feed('event: error\n\ndata: x\n\n');
    expect(types).toEqual(['message']);
  });

  it('ignores comments, id, retry and unknown fields', () => {
    expect(parse([': keep-alive\nevent: message\nid: 7\nretry: 10\nfoo: bar\ndata: x\n\n'])).toEqual(['x']);
  });

  it('strips exactly one space after the colon and treats a bare field name as empty data', () => {
    expect(parse(['data:  two spaces\n\ndata\n\n'])).toEqual([' two spaces', '']);
  });

  it('keeps colons inside the value and passes [DONE] through as data', () => {
    expect(parse(['data: {"a":"b:c"}\n\ndata: [DONE]\n\n'])).toEqual(['{"a":"b:c"}', '[DONE]']);
  });

  it('dispatches nothing for a block without data lines', () => {
    expect(parse([': ping\n\nevent: x\n\n\n\n'])).toEqual([]);
  });

  it('on end, dispatches an event missing its blank line but drops an unterminated line', () => {
    expect(parse(['data: complete\n'])).toEqual(['complete']);
    expect(parse(['data: {"cut'])).toEqual([]);
    expect(parse(['data: a\ndata: {"cut'])).toEqual(['a']);
  });

  it('dispatches nothing before the blank line arrives', () => {
    expect(parse(['data: a\n'], false)).toEqual([]);
  });
});
