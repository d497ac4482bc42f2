/** An OpenAI embeddings request → the embedding client's texts, checked by a zod schema; its answer → OpenAI's list shape (floats or base64). */
import type { EmbedResult } from '@pgw/core';
import { z } from 'zod';
import { nullish, parseRequest, userField } from './request-schema.js';

export interface EmbedCall {
  model: string;
  texts: string[];
  base64: boolean;
  user?: string;
}

const embedBody = z.looseObject({
  model: z.string().min(1),
  input: z.union([z.string(), z.array(z.string()).min(1)], { error: 'must be a string or a non-empty array of strings (token arrays are not accepted)' }),
  encoding_format: nullish(z.enum(['float', 'base64'])),
  // The vector size is the source's (EXTRA_BODY), not the caller's: a per-call size would split one scope's vectors.
  dimensions: z.null({ error: "is set by the scope's source (EXTRA_BODY), not per request" }).optional(),
  user: userField,
});

export function embedCall(body: unknown): EmbedCall {
  const { model, input, encoding_format: format, user } = parseRequest(embedBody, body);
  return { model, texts: typeof input === 'string' ? [input] : input, base64: format === 'base64', ...(user !== undefined && { user }) };
}

export function embeddingList(response: EmbedResult, base64: boolean): Record<string, unknown> {
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
