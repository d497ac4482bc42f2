/** An OpenAI embeddings request → the embedding client's texts; its answer → OpenAI's list shape (floats or base64). */
import type { EmbeddingResponse } from '@pgw/client';
import { plainObject } from './chat-request.js';
import { InvalidRequestFieldError } from './request-error.js';

export interface EmbedCall {
  model: string;
  texts: string[];
  base64: boolean;
  user?: string;
}

export function embedCall(body: unknown): EmbedCall {
  const fields = plainObject(body, 'body');
  const { model, input, encoding_format: format, dimensions, user } = fields;
  if (typeof model !== 'string' || model === '') throw new InvalidRequestFieldError('model', 'must be a non-empty string');
  const texts = typeof input === 'string' ? [input] : input;
  if (!Array.isArray(texts) || texts.length === 0 || !texts.every((text) => typeof text === 'string')) {
    throw new InvalidRequestFieldError('input', 'must be a string or a non-empty array of strings (token arrays are not accepted)');
  }
  if (format !== undefined && format !== null && format !== 'float' && format !== 'base64') {
    throw new InvalidRequestFieldError('encoding_format', "must be 'float' or 'base64'");
  }
  // The vector size is the source's (EXTRA_BODY), not the caller's: a per-call size would split one scope's vectors.
  if (dimensions !== undefined && dimensions !== null) throw new InvalidRequestFieldError('dimensions', "is set by the scope's source (EXTRA_BODY), not per request");
  if (user !== undefined && user !== null && typeof user !== 'string') throw new InvalidRequestFieldError('user', 'must be a string');
  return { model, texts: texts as string[], base64: format === 'base64', ...(typeof user === 'string' && { user }) };
}

export function embeddingList(response: EmbeddingResponse, base64: boolean): Record<string, unknown> {
  return {
    object: 'list',
    data: response.vectors.map((vector, index) => ({ object: 'embedding', index, embedding: base64 ? float32Base64(vector) : vector })),
    model: response.model,
    usage: { prompt_tokens: response.usage.promptTokens, total_tokens: response.usage.promptTokens },
  };
}

/** OpenAI's base64 form: the vector's little-endian float32 bytes. */
function float32Base64(vector: readonly number[]): string {
  const floats = Float32Array.from(vector);
  return Buffer.from(floats.buffer, floats.byteOffset, floats.byteLength).toString('base64');
}
