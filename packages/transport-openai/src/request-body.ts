/** Wire bodies of the two routes. */
import { getProvider, type ChatRequest, type EmbedRequest, type SourceConfig } from '@pgw/core';

/**
 * `POST /chat/completions`. The source's `extraBody` and the caller's `sampling` overlay the body;
 * `model`, `messages` and the stream flags are the transport's (a stray `stream` would change how
 * the answer must be read); the provider profile puts the reasoning effort on last.
 */
export function chatBody(source: SourceConfig, request: ChatRequest): Record<string, unknown> {
  const body: Record<string, unknown> = {
    ...source.extraBody,
    ...request.sampling,
    model: source.model,
    messages: request.messages,
    stream: request.stream === true,
  };
  if (request.stream === true) body['stream_options'] = { include_usage: true };
  else delete body['stream_options'];
  if (request.responseFormat !== undefined) {
    const { name, schema } = request.responseFormat;
    body['response_format'] = { type: 'json_schema', json_schema: { name, schema } };
  }
  getProvider(source.provider).applyEffort(body, request.reasoningEffort);
  return body;
}

/** `POST /embeddings`. */
export function embedBody(source: SourceConfig, request: EmbedRequest): Record<string, unknown> {
  return { ...source.extraBody, model: source.model, input: request.texts };
}
