import { describe, expect, it } from 'vitest';
import { BatchInputError, parseBatchInput } from '../src/index.js';

const chat = (customId: string, extra: Record<string, unknown> = {}) =>
  JSON.stringify({ custom_id: customId, method: 'POST', url: '/v1/chat/completions', body: { model: 'm', messages: [{ role: 'user', content: 'hi' }] }, ...extra });

function refusal(text: string, knowsModel?: (url: string, model: string) => boolean): BatchInputError {
  try {
    parseBatchInput(text, knowsModel ? { knowsModel } : {});
  } catch (error) {
    expect(error).toBeInstanceOf(BatchInputError);
    return error as BatchInputError;
  }
  throw new Error('the input was accepted');
}

describe('batch input', () => {
  it('reads chat, embedding and OCR lines with their line numbers, skipping blank lines', () => {
    const text = [
      chat('a'),
      '',
      JSON.stringify({ custom_id: 'b', method: 'POST', url: '/v1/embeddings', body: { model: 'e', input: ['x', 'y'] } }),
      JSON.stringify({ custom_id: 'c', url: '/pgw/v1/ocr', body: { file: 'page.png', mode: 'layout' } }),
      JSON.stringify({ custom_id: 'd', url: '/v1/responses', body: { model: 'm', input: 'hi' } }),
      JSON.stringify({ custom_id: 'e', url: '/v1/messages', body: { model: 'm', max_tokens: 16, messages: [{ role: 'user', content: 'hi' }] } }),
    ].join('\n');
    expect(parseBatchInput(text).map(({ customId, url, line }) => [customId, url, line])).toEqual([
      ['a', '/v1/chat/completions', 1],
      ['b', '/v1/embeddings', 3],
      ['c', '/pgw/v1/ocr', 4],
      ['d', '/v1/responses', 5],
      ['e', '/v1/messages', 6],
    ]);
  });

  it('refuses a duplicate custom_id on the line that repeats it', () => {
    const error = refusal([chat('a'), chat('b'), chat('a')].join('\n'));
    expect([error.line, error.field]).toEqual([3, 'custom_id']);
  });

  it.each([
    ['not json', '{"custom_id": ', 'line'],
    ['an array', '[1]', 'line'],
    ['no custom_id', JSON.stringify({ url: '/v1/chat/completions', body: {} }), 'custom_id'],
    ['a GET', chat('a', { method: 'GET' }), 'method'],
    ['an unknown url', chat('a', { url: '/v1/images' }), 'url'],
    ['no body', chat('a', { body: 'x' }), 'body'],
    ['no messages', chat('a', { body: { model: 'm', messages: [] } }), 'body.messages'],
    ['no model', chat('a', { body: { messages: [{ role: 'user', content: 'x' }] } }), 'body.model'],
    ['token arrays as input', JSON.stringify({ custom_id: 'a', url: '/v1/embeddings', body: { model: 'e', input: [[1, 2]] } }), 'body.input'],
    ['a responses line without input', JSON.stringify({ custom_id: 'a', url: '/v1/responses', body: { model: 'm', input: [] } }), 'body.input'],
    ['a responses line with a numeric input', JSON.stringify({ custom_id: 'a', url: '/v1/responses', body: { model: 'm', input: 42 } }), 'body.input'],
    ['a messages line without max_tokens', JSON.stringify({ custom_id: 'a', url: '/v1/messages', body: { model: 'm', messages: [{ role: 'user', content: 'x' }] } }), 'body.max_tokens'],
    ['a messages line without messages', JSON.stringify({ custom_id: 'a', url: '/v1/messages', body: { model: 'm', max_tokens: 8, messages: [] } }), 'body.messages'],
    ['an OCR mode', JSON.stringify({ custom_id: 'a', url: '/pgw/v1/ocr', body: { file: 'p.png', mode: 'tables' } }), 'body.mode'],
  ])('refuses %s, naming the field and the line', (_, line, field) => {
    const error = refusal([chat('first'), line].join('\n'));
    expect([error.line, error.field]).toEqual([2, field]);
    expect(error.message).toContain('line 2');
  });

  it('refuses a model the gateway does not serve', () => {
    const error = refusal([chat('a'), chat('b', { body: { model: 'other', messages: [{ role: 'user', content: 'x' }] } })].join('\n'), (_, model) => model === 'm');
    expect([error.line, error.field]).toEqual([2, 'body.model']);
  });

  it('refuses an empty input', () => {
    expect(refusal('\n\n').field).toBe('input');
  });
});
