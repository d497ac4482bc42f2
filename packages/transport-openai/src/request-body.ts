/** Wire bodies of the two routes. */
import type { ChatRequest, EmbedRequest, ProviderProfile } from '@pgw/core';
import { applyTools } from './tool-wire.js';

export interface ChatWire {
  model: string;
  extraBody: Readonly<Record<string, unknown>>;
  profile: ProviderProfile;
  /** Ask for SSE (with a usage chunk). */
  stream: boolean;
}

/**
 * `POST /chat/completions`. The model's `extraBody` and the caller's `sampling` overlay the body;
 * `model`, `messages` and the stream flags are the model's (a stray `stream` would change how the
 * answer must be read); `response_format` goes only to a profile with native json_schema (next to
 * `tools` when both are asked for); the provider profile puts the reasoning effort on last.
 */
export function chatBody(wire: ChatWire, request: ChatRequest): Record<string, unknown> {
  const body: Record<string, unknown> = {
    ...wire.extraBody,
    ...request.sampling,
    model: wire.model,
    messages: request.messages,
    stream: wire.stream,
  };
  if (wire.stream) body['stream_options'] = { include_usage: true };
  // `delete` turns the body into a slow dictionary object: only when an overlay really brought the key.
  else if (body['stream_options'] !== undefined) delete body['stream_options'];
  if (request.responseFormat !== undefined && wire.profile.supportsJsonSchema) {
    const { name, schema } = request.responseFormat;
    body['response_format'] = { type: 'json_schema', json_schema: { name, schema } };
  }
  applyTools(body, request);
  wire.profile.applyEffort(body, request.reasoningEffort);
  return body;
}

/** `POST /embeddings`. */
export function embedBody(model: string, extraBody: Readonly<Record<string, unknown>>, request: EmbedRequest): Record<string, unknown> {
  return { ...extraBody, model, input: request.texts };
}
