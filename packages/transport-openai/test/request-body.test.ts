import { describe, expect, it } from 'vitest';
import { chatBody, embedBody } from '../src/request-body.js';
import { sourceConfig } from './helpers.js';

const messages = [{ role: 'user' as const, content: 'hi' }];

describe('chatBody', () => {
  it('overlays extraBody then sampling, keeping model, messages and stream flags the transport’s', () => {
    const source = sourceConfig({ extraBody: { top_p: 0.5, temperature: 1, model: 'other', stream_options: { x: 1 } } });
    const body = chatBody(source, { messages, sampling: { temperature: 0.2, stream: true } });
    expect(body).toEqual({ top_p: 0.5, temperature: 0.2, model: 'mock-model', messages, stream: false });
  });

  it('asks a stream for its usage chunk', () => {
    const body = chatBody(sourceConfig(), { messages, sampling: {}, stream: true });
    expect(body).toMatchObject({ stream: true, stream_options: { include_usage: true } });
  });

  it('puts a native response format on the wire', () => {
    const schema = { type: 'object', properties: { a: { type: 'string' } } };
    const body = chatBody(sourceConfig(), { messages, sampling: {}, responseFormat: { type: 'json_schema', name: 'answer', schema } });
    expect(body['response_format']).toEqual({ type: 'json_schema', json_schema: { name: 'answer', schema } });
  });

  it('lets the provider profile put the effort on the wire', () => {
    expect(chatBody(sourceConfig(), { messages, sampling: {}, reasoningEffort: 'low' })['reasoning_effort']).toBe('low');
    const qwen = chatBody(sourceConfig({ provider: 'qwen' }), { messages, sampling: {}, reasoningEffort: 'none' });
    expect(qwen['enable_thinking']).toBe(false);
  });
});

describe('embedBody', () => {
  it('sends model and input over extraBody', () => {
    const body = embedBody(sourceConfig({ extraBody: { dimensions: 256, input: 'stray' } }), { texts: ['a', 'b'] });
    expect(body).toEqual({ dimensions: 256, model: 'mock-model', input: ['a', 'b'] });
  });
});
