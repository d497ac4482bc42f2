/**
 * The governed answer in the Responses API's shapes: a `response` object with its output items, and
 * the typed events of a stream (`response.created` … `response.completed`), each with its
 * `sequence_number`. Item ids derive from the call id, so a stream's events and its final object agree.
 */
import type { ChatDelta, LLMResponse, Usage } from '@pgw/core';
import type { WireFailure } from './failure.js';
import type { ResponseEcho, ResponsesCall } from './responses-request.js';
import type { NamespacedNames } from './responses-tools.js';
import type { StreamEncoder } from './stream-encoder.js';

type Item = Record<string, unknown> & { type: string; id: string };

/** A finished response object (completed or incomplete), as it is answered and stored. */
export type ResponseObject = Record<string, unknown> & { id: string; output: Item[] };

/** Runs with a finished response before the client is told it finished, so a continuation sent at once finds it stored. */
export type OnFinished = (response: ResponseObject) => Promise<void>;

const compact = (callId: string) => callId.replaceAll('-', '');
const nowSeconds = () => Math.floor(Date.now() / 1000);

function usageOf(usage: Usage): Record<string, unknown> {
  return {
    input_tokens: usage.promptTokens,
    input_tokens_details: { cached_tokens: usage.cachedPromptTokens ?? 0, cache_write_tokens: usage.cacheWritePromptTokens ?? 0 },
    output_tokens: usage.completionTokens,
    output_tokens_details: { reasoning_tokens: usage.reasoningTokens ?? 0 },
    total_tokens: usage.promptTokens + usage.completionTokens,
  };
}

/** `status` and `incomplete_details` of a finished answer: a cut answer is `incomplete`, with why. */
function completion(finishReason: string | undefined): { status: 'completed' | 'incomplete'; incomplete_details: { reason: string } | null } {
  if (finishReason === 'length') return { status: 'incomplete', incomplete_details: { reason: 'max_output_tokens' } };
  if (finishReason === 'content_filter') return { status: 'incomplete', incomplete_details: { reason: 'content_filter' } };
  return { status: 'completed', incomplete_details: null };
}

const outputText = (text: string) => ({ type: 'output_text', text, annotations: [], logprobs: [] });
const reasoningItem = (id: string, text: string): Item => ({ type: 'reasoning', id, summary: [{ type: 'summary_text', text }] });
const messageItem = (id: string, text: string, status = 'completed'): Item => ({
  type: 'message',
  id,
  status,
  role: 'assistant',
  content: text === '' && status !== 'completed' ? [] : [outputText(text)],
});
/** A tool call's item; a namespace's tool is called under its own name and namespace, as the caller declared it. */
function callItem(id: string, call: { id: string; type?: 'custom' | undefined; name: string; arguments: string }, namespaced: NamespacedNames, status = 'completed'): Item {
  const named = namespaced.get(call.name) ?? { name: call.name };
  return call.type === 'custom'
    ? { type: 'custom_tool_call', id, call_id: call.id, ...named, input: call.arguments, status }
    : { type: 'function_call', id, call_id: call.id, ...named, arguments: call.arguments, status };
}

/** The fields every response object carries, whatever its status; `usage` comes with the end (the API has no null usage). */
function envelope(id: string, createdAt: number, model: string, echo: ResponseEcho): ResponseObject {
  return { id, object: 'response', created_at: createdAt, model, error: null, incomplete_details: null, reasoning: null, output: [], ...echo };
}

/** A whole answer as a `response` object. */
export function responseObject(response: LLMResponse, echo: ResponseEcho, namespaced: NamespacedNames): ResponseObject {
  const key = compact(response.callStats.logicalCallId);
  const text = response.parsed !== undefined ? JSON.stringify(response.parsed) : response.content;
  const output: Item[] = [
    ...(response.reasoningContent ? [reasoningItem(`rs_${key}`, response.reasoningContent)] : []),
    ...(text !== '' || !response.toolCalls?.length ? [messageItem(`msg_${key}`, text)] : []),
    ...(response.toolCalls ?? []).map((call, index) => callItem(`fc_${key}_${index}`, call, namespaced)),
  ];
  return { ...envelope(`resp_${key}`, nowSeconds(), response.model, echo), ...completion(response.finishReason), output, usage: usageOf(response.usage) };
}

/** The open item of a stream: its index in `output`, and the text or arguments so far. */
interface OpenItem {
  index: number;
  item: Item;
  text: string;
}

/** Writes one stream's events: items open as their first delta arrives and close, in order, at the end. */
export class ResponseEventWriter implements StreamEncoder {
  readonly #id: string;
  readonly #key: string;
  readonly #createdAt = nowSeconds();
  readonly #model: string;
  readonly #echo: ResponseEcho;
  #sequence = 0;
  readonly #items: OpenItem[] = [];
  #reasoning: OpenItem | undefined;
  #message: OpenItem | undefined;
  readonly #calls = new Map<number, OpenItem>();
  readonly #onFinished: OnFinished;
  readonly #namespaced: NamespacedNames;

  constructor(callId: string, model: string, echo: ResponseEcho, namespaced: NamespacedNames, onFinished: OnFinished) {
    this.#key = compact(callId);
    this.#id = `resp_${this.#key}`;
    this.#model = model;
    this.#echo = echo;
    this.#onFinished = onFinished;
    this.#namespaced = namespaced;
  }

  /** `response.created` and `response.in_progress`. */
  start(): string {
    const response = { ...envelope(this.#id, this.#createdAt, this.#model, this.#echo), status: 'in_progress' };
    return this.#event('response.created', { response }) + this.#event('response.in_progress', { response });
  }

  delta(delta: ChatDelta): string {
    let events = '';
    if (delta.reasoningContent) {
      if (this.#reasoning === undefined) {
        this.#reasoning = this.#open({ type: 'reasoning', id: `rs_${this.#key}`, summary: [] });
        events += this.#added(this.#reasoning) + this.#event('response.reasoning_summary_part.added', { ...this.#at(this.#reasoning), summary_index: 0, part: { type: 'summary_text', text: '' } });
      }
      this.#reasoning.text += delta.reasoningContent;
      events += this.#event('response.reasoning_summary_text.delta', { ...this.#at(this.#reasoning), summary_index: 0, delta: delta.reasoningContent });
    }
    if (delta.content) {
      if (this.#message === undefined) {
        this.#message = this.#open(messageItem(`msg_${this.#key}`, '', 'in_progress'));
        events += this.#added(this.#message) + this.#event('response.content_part.added', { ...this.#at(this.#message), content_index: 0, part: outputText('') });
      }
      this.#message.text += delta.content;
      events += this.#event('response.output_text.delta', { ...this.#at(this.#message), content_index: 0, delta: delta.content, logprobs: [] });
    }
    for (const call of delta.toolCalls ?? []) {
      let open = this.#calls.get(call.index);
      if (open === undefined) {
        open = this.#open(callItem(`fc_${this.#key}_${call.index}`, { id: call.id ?? '', type: call.type, name: call.name ?? '', arguments: '' }, this.#namespaced, 'in_progress'));
        this.#calls.set(call.index, open);
        events += this.#added(open);
      }
      if (call.arguments) {
        open.text += call.arguments;
        // A custom call comes whole in one delta: its input is sent with its `done` event.
        if (call.type !== 'custom') events += this.#event('response.function_call_arguments.delta', { ...this.#at(open), delta: call.arguments });
      }
    }
    return events;
  }

  /** Closes every open item, then `response.completed` (or `.incomplete`) with the whole object, once `onFinished` has run. */
  async finish(answer: LLMResponse): Promise<string> {
    let events = '';
    const output: Item[] = [];
    for (const open of this.#items) {
      const { item, text } = open;
      let done: Item;
      if (item.type === 'reasoning') {
        done = reasoningItem(item.id, text);
        events += this.#event('response.reasoning_summary_text.done', { ...this.#at(open), summary_index: 0, text });
        events += this.#event('response.reasoning_summary_part.done', { ...this.#at(open), summary_index: 0, part: { type: 'summary_text', text } });
      } else if (item.type === 'message') {
        done = messageItem(item.id, text);
        events += this.#event('response.output_text.done', { ...this.#at(open), content_index: 0, text, logprobs: [] });
        events += this.#event('response.content_part.done', { ...this.#at(open), content_index: 0, part: outputText(text) });
      } else {
        const custom = item.type === 'custom_tool_call';
        done = { ...item, ...(custom ? { input: text } : { arguments: text }), status: 'completed' };
        if (!custom) events += this.#event('response.function_call_arguments.done', { ...this.#at(open), name: item['name'], arguments: text });
      }
      output.push(done);
      events += this.#event('response.output_item.done', { output_index: open.index, item: done });
    }
    const ended = completion(answer.finishReason);
    const response = { ...envelope(this.#id, this.#createdAt, this.#model, this.#echo), ...ended, output, usage: usageOf(answer.usage) };
    await this.#onFinished(response);
    return events + this.#event(ended.status === 'completed' ? 'response.completed' : 'response.incomplete', { response });
  }

  /**
   * `response.failed`: the stream's end after a failure, with the error in the API's shape, whose
   * codes are its own: of those, a governed call's failure is a rate limit or the server's.
   */
  fail(failure: WireFailure): string {
    const code = failure.status === 429 ? 'rate_limit_exceeded' : 'server_error';
    const response = { ...envelope(this.#id, this.#createdAt, this.#model, this.#echo), status: 'failed', error: { code, message: failure.message } };
    return this.#event('response.failed', { response });
  }

  #open(item: Item): OpenItem {
    const open = { index: this.#items.length, item, text: '' };
    this.#items.push(open);
    return open;
  }

  #added(open: OpenItem): string {
    return this.#event('response.output_item.added', { output_index: open.index, item: open.item });
  }

  #at(open: OpenItem): { item_id: string; output_index: number } {
    return { item_id: open.item.id, output_index: open.index };
  }

  #event(type: string, fields: Record<string, unknown>): string {
    return `event: ${type}\ndata: ${JSON.stringify({ type, sequence_number: this.#sequence++, ...fields })}\n\n`;
  }
}

/** The Responses API: typed events from `response.created` to `response.completed`; a failure is `response.failed`. */
export function responsesEncoder(call: Pick<ResponsesCall, 'model' | 'echo' | 'namespaced'>, callId: string, onFinished: OnFinished): StreamEncoder {
  return new ResponseEventWriter(callId, call.model, call.echo, call.namespaced, onFinished);
}
