import { providerProfile } from '@pgw/core/internal';
import { describe, expect, it } from 'vitest';
import { chatBody, embedBody } from '../src/request-body.js';
import { StrictResponseFormat } from '../src/strict-schema.js';

const messages = [{ role: 'user' as const, content: 'hi' }];
const wire = { model: 'mock-model', extraBody: {}, profile: providerProfile('openai'), stream: false, effortMap: {}, strict: new StrictResponseFormat(true, () => {}) };
const strictSchema = { type: 'object', properties: { a: { type: 'string' } }, required: ['a'], additionalProperties: false };

describe('chatBody', () => {
  it('overlays extraBody then sampling, keeping model, messages and stream flags the model’s', () => {
    const extraBody = { top_p: 0.5, temperature: 1, model: 'other', stream_options: { x: 1 } };
    const body = chatBody({ ...wire, extraBody }, { messages, sampling: { temperature: 0.2, stream: true } });
    expect(body).toEqual({ top_p: 0.5, temperature: 0.2, model: 'mock-model', messages, stream: false });
  });

  it('asks a stream for its usage chunk', () => {
    const body = chatBody({ ...wire, stream: true }, { messages, sampling: {} });
    expect(body).toMatchObject({ stream: true, stream_options: { include_usage: true } });
  });

  it('puts a native response format on the wire only for a profile with json_schema', () => {
    const schema = { type: 'object', properties: { a: { type: 'string' } } };
    const request = { messages, sampling: {}, responseFormat: { type: 'json_schema' as const, name: 'answer', schema } };
    expect(chatBody(wire, request)['response_format']).toEqual({ type: 'json_schema', json_schema: { name: 'answer', schema } });
    expect(chatBody({ ...wire, profile: providerProfile('qwen') }, request)).not.toHaveProperty('response_format');
  });

  it('asks strict adherence for a schema that meets the strict-mode rules, unless the source turned it off', () => {
    const request = { messages, sampling: {}, responseFormat: { type: 'json_schema' as const, name: 'answer', schema: strictSchema } };
    expect(chatBody(wire, request)['response_format']).toEqual({ type: 'json_schema', json_schema: { name: 'answer', schema: strictSchema, strict: true } });
    const warnings: string[] = [];
    const off = { ...wire, strict: new StrictResponseFormat(false, (m) => warnings.push(m)) };
    expect(chatBody(off, request)['response_format']).toEqual({ type: 'json_schema', json_schema: { name: 'answer', schema: strictSchema } });
    expect(warnings).toEqual([]);
  });

  it('sends a schema strict mode cannot take without strict, and says so once per model', () => {
    const warnings: string[] = [];
    const loose = { ...wire, strict: new StrictResponseFormat(true, (m) => warnings.push(m)) };
    const schema = { type: 'object', properties: { a: { type: 'string' }, b: { type: 'number' } }, required: ['a'], additionalProperties: false };
    const request = { messages, sampling: {}, responseFormat: { type: 'json_schema' as const, name: 'answer', schema } };
    expect(chatBody(loose, request)['response_format']).toEqual({ type: 'json_schema', json_schema: { name: 'answer', schema } });
    chatBody(loose, request);
    expect(warnings).toEqual([
      "json_schema_not_strict: response format 'answer' is sent without strict (properties.b is not required); later schemas that cannot be strict are not reported",
    ]);
  });

  it('maps an effort by the source\'s effort map before the profile writes it', () => {
    const mapped = { ...wire, effortMap: { max: 'high', xhigh: 'high' } as const };
    expect(chatBody(mapped, { messages, sampling: {}, reasoningEffort: 'max' })['reasoning_effort']).toBe('high');
    expect(chatBody(mapped, { messages, sampling: {}, reasoningEffort: 'minimal' })['reasoning_effort']).toBe('minimal');
    expect(chatBody(wire, { messages, sampling: {}, reasoningEffort: 'max' })['reasoning_effort']).toBe('max');
  });

  it('lets the provider profile put the effort on the wire', () => {
    expect(chatBody(wire, { messages, sampling: {}, reasoningEffort: 'low' })['reasoning_effort']).toBe('low');
    const qwen = chatBody({ ...wire, profile: providerProfile('qwen') }, { messages, sampling: {}, reasoningEffort: 'none' });
    expect(qwen['enable_thinking']).toBe(false);
  });
});

describe('embedBody', () => {
  it('sends model and input over extraBody', () => {
    const body = embedBody('mock-model', { dimensions: 256, input: 'stray' }, { texts: ['a', 'b'] });
    expect(body).toEqual({ dimensions: 256, model: 'mock-model', input: ['a', 'b'] });
  });
});
