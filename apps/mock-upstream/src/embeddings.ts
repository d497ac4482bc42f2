import { errorBody, jsonPayload, rawJsonPayload, sendJson, type Exchange, type Payload } from './exchange.js';
import { hashString, mulberry32 } from './rng.js';
import { playStep, sendWholeOrCut, type RouteStep } from './steps.js';
import { countTokens } from './tokens.js';

const DEFAULT_DIM = 8;

/** A vector determined by the text alone, components in [-1, 1). */
export function mockEmbedding(text: string, dim: number): number[] {
  const random = mulberry32(hashString(text));
  return Array.from({ length: dim }, () => random() * 2 - 1);
}

/** `POST /{source}/v1/embeddings`. */
export async function handleEmbeddings(ex: Exchange, json: unknown): Promise<void> {
  const request = json as { input?: unknown; model?: unknown } | null;
  const input = typeof request?.input === 'string' ? [request.input] : request?.input;
  if (!Array.isArray(input) || !input.every((item): item is string => typeof item === 'string')) {
    sendJson(ex.res, 400, errorBody("'input' must be a string or an array of strings", 'invalid_request_error', 'invalid_request'));
    return;
  }
  const model = typeof request?.model === 'string' ? request.model : ex.source.name;
  const scriptDim = ex.source.script.embeddingDim ?? DEFAULT_DIM;
  await playStep(ex, ex.source.nextStep('embeddings'), (e, step) =>
    sendWholeOrCut(e, step, embeddingsBody(input, model, step.kind === 'wrong_dim' ? step.dim : scriptDim), malformedEmbeddings(step), [
      '{"object":"list","data":[],"filler":"',
      '"}',
    ]),
  );
}

function embeddingsBody(texts: string[], model: string, dim: number): Payload {
  const tokens = texts.reduce((sum, text) => sum + countTokens(text), 0);
  return jsonPayload({
    object: 'list',
    data: texts.map((text, index) => ({ object: 'embedding', index, embedding: mockEmbedding(text, dim) })),
    model,
    usage: { prompt_tokens: tokens, total_tokens: tokens },
  });
}

function malformedEmbeddings(step: RouteStep): Payload {
  if (step.kind === 'malformed' && step.variant === 'wrong_shape') return jsonPayload({ object: 'list', data: 'none' });
  return rawJsonPayload('{"object":"list","data":[{"embedding":[0.1,');
}
