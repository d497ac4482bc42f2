/**
 * The tables of AI SDK and wire names: each direction agrees with the other for every entry, the
 * mappings are the ones the package had before they became one table each, and an ambiguous table
 * is refused.
 */
import { describe, expect, it } from 'vitest';
import { callOptions } from '../src/request-settings.js';
import { FINISH_REASONS, SAMPLING_KEYS, twoWay, type TwoWay } from '../src/wire-names.js';

const TABLES: Array<[string, TwoWay<string, string>]> = [
  ['SAMPLING_KEYS', SAMPLING_KEYS],
  ['FINISH_REASONS', FINISH_REASONS],
];

describe.each(TABLES)('%s read both ways', (_name, table) => {
  it('every wire name is read as its AI SDK name, and that name is sent as a wire name read back the same', () => {
    for (const [wire, aiSdk] of table.fromWire) {
      expect(table.aiSdkName(wire)).toBe(aiSdk);
      const sent = table.wireName(aiSdk);
      expect(sent).toBeDefined();
      expect(table.aiSdkName(sent!)).toBe(aiSdk);
    }
  });

  it('every AI SDK name is sent as one of its wire names; a name with one wire name goes back to it', () => {
    for (const [aiSdk, wire] of table.toWire) {
      expect(table.wireName(aiSdk)).toBe(wire);
      expect(table.aiSdkName(wire)).toBe(aiSdk);
      const wires = table.fromWire.filter(([, name]) => name === aiSdk).map(([w]) => w);
      expect(wires).toContain(wire);
    }
    expect(new Set(table.toWire.map(([aiSdk]) => aiSdk)).size).toBe(table.toWire.length);
  });

  it('knows no name outside the table, an object key included', () => {
    for (const name of ['nope', 'constructor', 'toString', '__proto__']) {
      expect(table.wireName(name)).toBeUndefined();
      expect(table.aiSdkName(name)).toBeUndefined();
    }
  });
});

describe('the mappings the package had', () => {
  it('sampling settings are sent under these wire keys', () => {
    expect(SAMPLING_KEYS.toWire).toEqual([
      ['maxOutputTokens', 'max_tokens'],
      ['temperature', 'temperature'],
      ['topP', 'top_p'],
      ['topK', 'top_k'],
      ['stopSequences', 'stop'],
      ['seed', 'seed'],
      ['presencePenalty', 'presence_penalty'],
      ['frequencyPenalty', 'frequency_penalty'],
    ]);
  });

  it('wire sampling keys are read as these settings', () => {
    expect(Object.fromEntries(SAMPLING_KEYS.fromWire)).toEqual({
      max_tokens: 'maxOutputTokens',
      max_completion_tokens: 'maxOutputTokens',
      temperature: 'temperature',
      top_p: 'topP',
      top_k: 'topK',
      stop: 'stopSequences',
      seed: 'seed',
      presence_penalty: 'presencePenalty',
      frequency_penalty: 'frequencyPenalty',
    });
  });

  it('a request carrying both max_tokens and max_completion_tokens is read as the newer one; one stop string is a list', () => {
    const signal = new AbortController().signal;
    const options = callOptions({ messages: [], sampling: { max_tokens: 5, max_completion_tokens: 7, stop: 'END', top_k: 'not a number' } }, signal);
    expect(options).toMatchObject({ maxOutputTokens: 7, stopSequences: ['END'] });
    expect(options).not.toHaveProperty('topK');
    expect(callOptions({ messages: [], sampling: { stop: ['a', 'b'], seed: 3 } }, signal)).toMatchObject({ stopSequences: ['a', 'b'], seed: 3 });
    expect(callOptions({ messages: [], sampling: { stop: 3 } }, signal)).not.toHaveProperty('stopSequences');
  });

  it('wire finish reasons are read as these AI SDK reasons (any other is other)', () => {
    expect(Object.fromEntries(FINISH_REASONS.fromWire)).toEqual({
      stop: 'stop',
      length: 'length',
      tool_calls: 'tool-calls',
      function_call: 'tool-calls',
      content_filter: 'content-filter',
    });
  });

  it('AI SDK finish reasons are sent as these wire reasons', () => {
    expect(Object.fromEntries(FINISH_REASONS.toWire)).toEqual({ stop: 'stop', length: 'length', 'tool-calls': 'tool_calls', 'content-filter': 'content_filter' });
    for (const unnamed of ['error', 'other', 'unknown']) expect(FINISH_REASONS.wireName(unnamed)).toBeUndefined();
  });
});

describe('twoWay refuses an ambiguous table', () => {
  it('a wire name listed twice', () => {
    expect(() => twoWay([['a', 'x'], ['b', 'x']])).toThrow('the wire name x is listed twice');
  });

  it('an AI SDK name with several wire names and no preferred one', () => {
    expect(() => twoWay([['a', 'x'], ['a', 'y']])).toThrow('a has the wire names x, y and no preferred one');
  });

  it('a preferred wire name that is not one of the several', () => {
    expect(() => twoWay([['a', 'x'], ['a', 'y']], { a: 'z' })).toThrow('the preferred wire name z of a');
    expect(() => twoWay([['a', 'x']], { a: 'x' })).toThrow('the preferred wire name x of a');
  });

  it('sends a preferred wire name and reads every one', () => {
    const table = twoWay([['a', 'x'], ['a', 'y'], ['b', 'z']], { a: 'y' });
    expect(table.toWire).toEqual([['a', 'y'], ['b', 'z']]);
    expect(table.fromWire).toEqual([['x', 'a'], ['y', 'a'], ['z', 'b']]);
  });
});
