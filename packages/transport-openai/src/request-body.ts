/** Wire bodies of the two routes. */
import { type ChatRequest, type EffortMap, type EmbedRequest, type ProviderProfile } from '@pgw/core';
import { mapEffort } from '@pgw/core/internal';
import type { StrictResponseFormat } from './strict-schema.js';
import { applyTools } from './tool-wire.js';

export interface ChatWire {
  model: string;
  extraBody: Readonly<Record<string, unknown>>;
  profile: ProviderProfile;
  /** Ask for SSE (with a usage chunk). */
  stream: boolean;
  /** The source's remapping of efforts, applied before the profile writes one. */
  effortMap: EffortMap;
  /** Whether a response format is asked strict. */
  strict: StrictResponseFormat;
}

/**
 * `POST /chat/completions`. The model's `extraBody` and the caller's `sampling` overlay the body;
 * `model`, `messages` and the stream flags are the model's (a stray `stream` would change how the
 * answer must be read); `response_format` goes only to a profile with native json_schema (next to
 * `tools` when both are asked for), strict when its schema allows; the provider profile puts the
 * reasoning effort (as the source's effort map turns it) on last.
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
    const strict = wire.strict.strict(name, schema);
    body['response_format'] = { type: 'json_schema', json_schema: { name, schema, ...(strict && { strict }) } };
  }
  applyTools(body, request);
  wire.profile.applyEffort(body, mapEffort(wire.effortMap, request.reasoningEffort));
  return body;
}

/** `POST /embeddings`. */
export function embedBody(model: string, extraBody: Readonly<Record<string, unknown>>, request: EmbedRequest): Record<string, unknown> {
  return { ...extraBody, model, input: request.texts };
}
