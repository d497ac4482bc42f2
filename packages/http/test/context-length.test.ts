import { ContextLengthExceededError, RequestRejectedError, TransientError } from '@pgw/core';
import { describe, expect, it } from 'vitest';
import { translateHttpFailure, translateInBandError } from '../src/index.js';

const ctx = { sourceName: 'small', secrets: ['sk-ctx-secret'], route: 'chat/completions', warn: () => {} };

/** The bodies common servers answer a too-long prompt with (one per server form). */
const FORMS: ReadonlyArray<[string, number, string]> = [
  [
    'OpenAI (code context_length_exceeded)',
    400,
    JSON.stringify({
      error: {
        message: "This model's maximum context length is 8192 tokens. However, your messages resulted in 8227 tokens.",
        type: 'invalid_request_error',
        param: 'messages',
        code: 'context_length_exceeded',
      },
    }),
  ],
  ['a relay keeping only the code', 400, JSON.stringify({ error: { message: 'bad request', code: 'context_length_exceeded' } })],
  [
    'vLLM "maximum context length"',
    400,
    JSON.stringify({
      object: 'error',
      message: "This model's maximum context length is 4096 tokens. However, you requested 5000 tokens (4000 in the messages, 1000 in the completion).",
      type: 'BadRequestError',
      param: null,
      code: 400,
    }),
  ],
  [
    'vLLM decoder prompt longer than the maximum model length',
    400,
    JSON.stringify({ error: { message: 'The decoder prompt (length 9000) is longer than the maximum model length of 8192.', type: 'BadRequestError', code: 400 } }),
  ],
  [
    'SGLang',
    400,
    JSON.stringify({ object: 'error', message: "The input (9000 tokens) is longer than the model's context length (8192 tokens).", code: 400 }),
  ],
  [
    'llama.cpp server',
    400,
    JSON.stringify({ error: { code: 400, message: 'the request exceeds the available context size, try increasing it', type: 'exceed_context_size_error', n_prompt_tokens: 5000, n_ctx: 4096 } }),
  ],
  [
    'Hugging Face TGI',
    422,
    JSON.stringify({ error: 'Input validation error: `inputs` tokens + `max_new_tokens` must be <= 4096. Given: 4000 `inputs` tokens and 500 `max_new_tokens`', error_type: 'validation' }),
  ],
  ['Anthropic compatible', 400, JSON.stringify({ type: 'error', error: { type: 'invalid_request_error', message: 'prompt is too long: 210000 tokens > 200000 maximum' } })],
  [
    'DashScope (Qwen) compatible',
    400,
    JSON.stringify({ error: { code: 'invalid_parameter_error', message: '<400> InternalError.Algo.InvalidParameter: Range of input length should be [1, 30720]', type: 'invalid_request_error' } }),
  ],
  [
    'Gemini compatible',
    400,
    JSON.stringify([{ error: { code: 400, message: 'The input token count (1200000) exceeds the maximum number of tokens allowed (1048576).', status: 'INVALID_ARGUMENT' } }]),
  ],
  ['a plain-text relay page', 400, 'Bad Request: maximum context length exceeded'],
];

describe('context length exceeded: every known server form', () => {
  it.each(FORMS)('HTTP: %s → ContextLengthExceededError', (_server, status, body) => {
    const error = translateHttpFailure({ status, headers: {}, body }, ctx);
    expect(error).toBeInstanceOf(ContextLengthExceededError);
    expect(error).toBeInstanceOf(RequestRejectedError);
    expect(error).toMatchObject({ name: 'ContextLengthExceededError', sourceName: 'small', statusCode: status });
    expect(error.message).toContain('context length exceeded');
  });

  it.each(FORMS.filter(([, , body]) => body.startsWith('{')))('in-band: %s → ContextLengthExceededError', (_server, _status, body) => {
    expect(translateInBandError(body, { ...ctx, status: 200 })).toBeInstanceOf(ContextLengthExceededError);
  });

  it('an in-band error with only the code string is one too (not a transient failure)', () => {
    const error = translateInBandError(JSON.stringify({ error: { code: 'context_length_exceeded', message: 'too long' } }), { ...ctx, status: 200 });
    expect(error).toBeInstanceOf(ContextLengthExceededError);
    expect(error).toMatchObject({ statusCode: 200 });
  });

  it('other rejections and other statuses keep their class', () => {
    expect(translateHttpFailure({ status: 400, headers: {}, body: '{"error":{"message":"temperature must be ≤ 2"}}' }, ctx)).not.toBeInstanceOf(
      ContextLengthExceededError,
    );
    const overloaded = translateHttpFailure({ status: 503, headers: {}, body: "maximum context length of the queue" }, ctx);
    expect(overloaded).toBeInstanceOf(TransientError);
  });
});
