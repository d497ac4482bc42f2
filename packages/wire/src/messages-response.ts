/**
 * The governed answer in Anthropic's Messages shapes: a `message` with `thinking`, `text` and
 * `tool_use` blocks, and the events of a stream (`message_start`, one block at a time with its
 * `content_block_start` / `_delta` / `_stop`, `message_delta`, `message_stop`). Errors are
 * Anthropic's `{"type":"error","error":{"type","message"}}`.
 */
import type { ChatDelta, LLMResponse, Usage } from '@pgw/core';
import type { WireFailure } from './failure.js';
import type { MessagesCall } from './messages-request.js';
import type { StreamEncoder } from './stream-encoder.js';

const STOP_REASON: Readonly<Record<string, string>> = { stop: 'end_turn', length: 'max_tokens', tool_calls: 'tool_use', content_filter: 'refusal' };

function stopReason(response: LLMResponse): string {
  return STOP_REASON[response.finishReason ?? ''] ?? (response.toolCalls?.length ? 'tool_use' : 'end_turn');
}

/** Anthropic counts cache reads and writes apart from `input_tokens`. */
function usageOf(usage: Usage): Record<string, number> {
  const read = usage.cachedPromptTokens ?? 0;
  const written = usage.cacheWritePromptTokens ?? 0;
  return { input_tokens: Math.max(0, usage.promptTokens - read - written), output_tokens: usage.completionTokens, cache_read_input_tokens: read, cache_creation_input_tokens: written };
}

const messageId = (callId: string) => `msg_${callId.replaceAll('-', '')}`;

const parsedInput = (args: string): unknown => {
  try {
    return JSON.parse(args === '' ? '{}' : args);
  } catch {
    return {};
  }
};

/** A whole answer as a `message`. */
export function anthropicMessage(response: LLMResponse): Record<string, unknown> {
  const content: Record<string, unknown>[] = [];
  if (response.reasoningContent) content.push({ type: 'thinking', thinking: response.reasoningContent, signature: '' });
  const text = response.parsed !== undefined ? JSON.stringify(response.parsed) : response.content;
  if (text !== '') content.push({ type: 'text', text });
  for (const call of response.toolCalls ?? []) content.push({ type: 'tool_use', id: call.id, name: call.name, input: call.type === 'custom' ? call.arguments : parsedInput(call.arguments) });
  return { id: messageId(response.callStats.logicalCallId), type: 'message', role: 'assistant', model: response.model, content, stop_reason: stopReason(response), stop_sequence: null, usage: usageOf(response.usage) };
}

/** Anthropic's error type for a status, and the status its clients know (503 is its 529 `overloaded_error`). */
export function anthropicFailure(failure: WireFailure): { status: number; body: Record<string, unknown> } {
  const [status, type] = failure.status === 503 ? [529, 'overloaded_error'] : failure.status >= 500 ? [500, 'api_error'] : [failure.status, ERROR_TYPE[failure.status] ?? 'invalid_request_error'];
  return { status, body: { type: 'error', error: { type, message: failure.message } } };
}

const ERROR_TYPE: Readonly<Record<number, string>> = {
  400: 'invalid_request_error',
  401: 'authentication_error',
  403: 'permission_error',
  404: 'not_found_error',
  408: 'timeout_error',
  413: 'request_too_large',
  429: 'rate_limit_error',
};

type BlockKind = 'thinking' | 'text' | 'tool_use';

/** Writes one stream's events; a block closes when a delta of another block arrives. */
export class MessageEventWriter implements StreamEncoder {
  readonly #id: string;
  readonly #model: string;
  #index = -1;
  #open: { kind: BlockKind; call?: number } | undefined;

  constructor(callId: string, model: string) {
    this.#id = messageId(callId);
    this.#model = model;
  }

  start(): string {
    const message = { id: this.#id, type: 'message', role: 'assistant', model: this.#model, content: [], stop_reason: null, stop_sequence: null, usage: { input_tokens: 0, output_tokens: 0 } };
    return event('message_start', { message }) + event('ping', {});
  }

  delta(delta: ChatDelta): string {
    let events = '';
    if (delta.reasoningContent) {
      events += this.#enter('thinking', undefined, { type: 'thinking', thinking: '', signature: '' });
      events += event('content_block_delta', { index: this.#index, delta: { type: 'thinking_delta', thinking: delta.reasoningContent } });
    }
    if (delta.content) {
      events += this.#enter('text', undefined, { type: 'text', text: '' });
      events += event('content_block_delta', { index: this.#index, delta: { type: 'text_delta', text: delta.content } });
    }
    for (const call of delta.toolCalls ?? []) {
      events += this.#enter('tool_use', call.index, { type: 'tool_use', id: call.id ?? '', name: call.name ?? '', input: {} });
      if (call.arguments) events += event('content_block_delta', { index: this.#index, delta: { type: 'input_json_delta', partial_json: call.arguments } });
    }
    return events;
  }

  finish(answer: LLMResponse): string {
    return this.#close() + event('message_delta', { delta: { stop_reason: stopReason(answer), stop_sequence: null }, usage: usageOf(answer.usage) }) + event('message_stop', {});
  }

  fail(failure: WireFailure): string {
    return event('error', anthropicFailure(failure).body);
  }

  /** Opens the block a delta belongs to, closing the one before it when it is another. */
  #enter(kind: BlockKind, call: number | undefined, contentBlock: Record<string, unknown>): string {
    if (this.#open?.kind === kind && this.#open.call === call) return '';
    const closed = this.#close();
    this.#index += 1;
    this.#open = { kind, ...(call !== undefined && { call }) };
    return closed + event('content_block_start', { index: this.#index, content_block: contentBlock });
  }

  #close(): string {
    if (this.#open === undefined) return '';
    this.#open = undefined;
    return event('content_block_stop', { index: this.#index });
  }
}

function event(type: string, fields: Record<string, unknown>): string {
  return `event: ${type}\ndata: ${JSON.stringify({ type, ...fields })}\n\n`;
}

/** Anthropic Messages: `message_start` … `message_stop`; a failure is an `error` event in Anthropic's shape. */
export function messagesEncoder(call: Pick<MessagesCall, 'model'>, callId: string): StreamEncoder {
  return new MessageEventWriter(callId, call.model);
}
