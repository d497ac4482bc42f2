/**
 * Anthropic publishes no OpenAPI document, so its Messages shapes are stated here, from the
 * Anthropic SDK's types (`Message`, `RawMessageStreamEvent`, version of devDependencies): the fields
 * the SDK types as required are required, its unions closed on `type`, nothing else allowed.
 * `sdkMessageFields` and `sdkStreamEventTypes` tie the schemas' outputs to the SDK's types, so a field the SDK drops or renames fails
 * the type check.
 */
import type Anthropic from '@anthropic-ai/sdk';
import { z } from 'zod';

const count = z.number().int().nonnegative();
const usage = z.strictObject({ input_tokens: count, output_tokens: count, cache_read_input_tokens: count.nullable(), cache_creation_input_tokens: count.nullable() });
const stopReason = z.enum(['end_turn', 'max_tokens', 'stop_sequence', 'tool_use', 'pause_turn', 'refusal']);

const block = z.discriminatedUnion('type', [
  z.strictObject({ type: z.literal('text'), text: z.string() }),
  z.strictObject({ type: z.literal('thinking'), thinking: z.string(), signature: z.string() }),
  z.strictObject({ type: z.literal('tool_use'), id: z.string().min(1), name: z.string().min(1), input: z.record(z.string(), z.unknown()) }),
]);

export const anthropicMessage = z.strictObject({
  id: z.string().startsWith('msg_'),
  type: z.literal('message'),
  role: z.literal('assistant'),
  model: z.string().min(1),
  content: z.array(block),
  stop_reason: stopReason,
  stop_sequence: z.string().nullable(),
  usage,
});

const startedMessage = anthropicMessage.extend({ stop_reason: stopReason.nullable(), usage: z.strictObject({ input_tokens: count, output_tokens: count }) });
const delta = z.discriminatedUnion('type', [
  z.strictObject({ type: z.literal('text_delta'), text: z.string() }),
  z.strictObject({ type: z.literal('thinking_delta'), thinking: z.string() }),
  z.strictObject({ type: z.literal('input_json_delta'), partial_json: z.string() }),
]);

export const anthropicStreamEvent = z.discriminatedUnion('type', [
  z.strictObject({ type: z.literal('message_start'), message: startedMessage }),
  z.strictObject({ type: z.literal('ping') }),
  z.strictObject({ type: z.literal('content_block_start'), index: count, content_block: block }),
  z.strictObject({ type: z.literal('content_block_delta'), index: count, delta }),
  z.strictObject({ type: z.literal('content_block_stop'), index: count }),
  z.strictObject({ type: z.literal('message_delta'), delta: z.strictObject({ stop_reason: stopReason, stop_sequence: z.string().nullable() }), usage }),
  z.strictObject({ type: z.literal('message_stop') }),
  z.strictObject({ type: z.literal('error'), error: z.strictObject({ type: z.string(), message: z.string() }) }),
]);

// The schemas' outputs are values of the SDK's own types (each field the SDK requires is there, typed as it says).
type Shaped = z.output<typeof anthropicMessage>;
export const sdkMessageFields = (message: Shaped): Pick<Anthropic.Message, 'id' | 'type' | 'role' | 'model' | 'stop_reason' | 'stop_sequence'> & { usage: Pick<Anthropic.Usage, 'input_tokens' | 'output_tokens' | 'cache_read_input_tokens' | 'cache_creation_input_tokens'> } => message;
type StreamEventType = z.output<typeof anthropicStreamEvent>['type'];
export const sdkStreamEventTypes = (type: StreamEventType): Anthropic.RawMessageStreamEvent['type'] | 'ping' | 'error' => type;
