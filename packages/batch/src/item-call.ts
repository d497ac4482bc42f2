/**
 * One item as one governed call of the batch class: the OpenAI request body mapped to the client's
 * call, its answer mapped back to the OpenAI response body of the line's url. The batch keeps its
 * own small mapping (docs/decisions.md "Batch jobs"): @pgw/server's translators sit above the
 * library and may not be imported by it.
 */
import { readFile } from 'node:fs/promises';
import type { ChatMessage, EmbeddingClient, GatewayClient, OcrClient } from '@pgw/client';
import { estimatePromptTokens } from '@pgw/core';
import { CHAT_URL, EMBEDDINGS_URL, RESPONSES_URL, type BatchItem, type BatchUrl } from './input.js';
import { responseObject, responsesChatFields, type ChatAnswerFields, type ChatCallFields } from './responses-line.js';
import type { ItemResponse } from './engine.js';

/** The clients a job's lines call; a function picks the client of a line's model (undefined: unknown model). */
export interface BatchClients {
  chat?: GatewayClient | ((model: string) => GatewayClient | undefined);
  embeddings?: EmbeddingClient | ((model: string) => EmbeddingClient | undefined);
  ocr?: OcrClient;
}

/** Sampling fields of a chat body passed to the source as they are; any other field is refused. */
const SAMPLING_FIELDS = new Set([
  'temperature',
  'top_p',
  'max_tokens',
  'max_completion_tokens',
  'stop',
  'seed',
  'presence_penalty',
  'frequency_penalty',
  'logit_bias',
  'response_format',
  'n',
]);
const CHAT_FIELDS = new Set(['model', 'messages', 'reasoning_effort', 'user', 'stream', ...SAMPLING_FIELDS]);

export interface CallContext {
  tenantId: string;
  signal: AbortSignal;
}

const pick = <C>(client: C | ((model: string) => C | undefined) | undefined, model: string): C | undefined =>
  typeof client === 'function' ? (client as (model: string) => C | undefined)(model) : client;

/** The client that serves an item, or undefined: the input check refuses such a line. */
export function servesItem(clients: BatchClients, url: BatchUrl, model: string): boolean {
  if (url === CHAT_URL || url === RESPONSES_URL) return pick(clients.chat, model) !== undefined;
  if (url === EMBEDDINGS_URL) return pick(clients.embeddings, model) !== undefined;
  return clients.ocr !== undefined;
}

/** A chat body's call: its messages, allow-listed sampling fields and effort; any other field is refused. */
function chatCallFields(body: Record<string, unknown>): ChatCallFields {
  const unknown = Object.keys(body).find((field) => !CHAT_FIELDS.has(field));
  if (unknown !== undefined) throw new TypeError(`body.${unknown} is not supported in a batch chat line`);
  if (body['stream'] === true) throw new TypeError('body.stream must not be true in a batch line');
  const sampling = Object.fromEntries(Object.entries(body).filter(([field]) => SAMPLING_FIELDS.has(field)));
  const effort = body['reasoning_effort'];
  return { messages: body['messages'] as ChatMessage[], sampling, ...(typeof effort === 'string' && { reasoningEffort: effort }) };
}

function chatCompletionObject(answer: ChatAnswerFields, finishReason: string): Record<string, unknown> {
  return {
    id: `chatcmpl-${answer.id}`,
    object: 'chat.completion',
    created: Math.floor(Date.now() / 1000),
    model: answer.model,
    choices: [{ index: 0, message: { role: 'assistant', content: answer.content }, finish_reason: finishReason }],
    usage: { prompt_tokens: answer.promptTokens, completion_tokens: answer.completionTokens, total_tokens: answer.promptTokens + answer.completionTokens },
  };
}

/** Runs the item's governed call; a failure throws (the runner maps it). */
export async function callItem(clients: BatchClients, item: BatchItem, context: CallContext): Promise<ItemResponse> {
  // `""` is the tenant of calls without one: the client takes no tenant then.
  const common = { priority: 'batch' as const, signal: context.signal, ...(context.tenantId !== '' && { tenantId: context.tenantId }) };
  const { body } = item;
  if (item.url === CHAT_URL || item.url === RESPONSES_URL) {
    const client = pick(clients.chat, String(body['model']))!;
    const fields = item.url === CHAT_URL ? chatCallFields(body) : responsesChatFields(body);
    const answer = await client.chat(fields.messages, {
      ...common,
      ...(Object.keys(fields.sampling).length > 0 && { sampling: fields.sampling }),
      ...(fields.reasoningEffort !== undefined && { reasoningEffort: fields.reasoningEffort }),
    });
    const { logicalCallId } = answer.callStats;
    const answerFields = { id: logicalCallId, model: answer.model, content: answer.content, promptTokens: answer.usage.promptTokens, completionTokens: answer.usage.completionTokens };
    return {
      statusCode: 200,
      requestId: logicalCallId,
      ...(answer.costUsd !== undefined && { costUsd: answer.costUsd }),
      body: item.url === CHAT_URL ? chatCompletionObject(answerFields, answer.finishReason ?? 'stop') : responseObject(answerFields),
    };
  }
  if (item.url === EMBEDDINGS_URL) {
    const client = pick(clients.embeddings, String(body['model']))!;
    const input = body['input'] as string | string[];
    const answer = await client.embed(typeof input === 'string' ? [input] : input, common);
    return {
      statusCode: 200,
      requestId: answer.callStats.logicalCallId,
      ...(answer.costUsd !== undefined && { costUsd: answer.costUsd }),
      body: {
        object: 'list',
        data: answer.vectors.map((embedding, index) => ({ object: 'embedding', index, embedding })),
        model: answer.model,
        usage: { prompt_tokens: answer.usage.promptTokens, total_tokens: answer.usage.promptTokens },
      },
    };
  }
  const image = new Uint8Array(await readFile(String(body['file']), { signal: context.signal }));
  if (body['mode'] === 'layout') {
    const layout = await clients.ocr!.parseLayout(image, common);
    return { statusCode: 200, requestId: layout.callStats.logicalCallId, body: { object: 'ocr.layout', markdown: layout.markdown, elements: layout.elements } };
  }
  const text = await clients.ocr!.recognizeText(image, common);
  return { statusCode: 200, requestId: text.callStats.logicalCallId, body: { object: 'ocr.text', text: text.text } };
}

/** Tokens an item will send, estimated as the budget estimates them (OCR: none). */
export function estimatedPromptTokens(item: BatchItem): number {
  if (item.url === CHAT_URL) return estimatePromptTokens(item.body['messages'] as ChatMessage[]);
  // A responses body is estimated from its text as sent (a little over, as JSON): a field its call will
  // refuse must not stop the estimate, which runs before the item's own failure is recorded.
  if (item.url === RESPONSES_URL) return estimatePromptTokens([{ role: 'user', content: JSON.stringify([item.body['instructions'] ?? '', item.body['input']]) }]);
  if (item.url === EMBEDDINGS_URL) {
    const input = item.body['input'] as string | string[];
    return estimatePromptTokens((typeof input === 'string' ? [input] : input).map((content) => ({ role: 'user', content })));
  }
  return 0;
}

/** The most an item may answer: its `max_tokens` / `max_completion_tokens` / `max_output_tokens`, else the scope's `EST_TOKENS`. */
export function maxOutputTokens(item: BatchItem, estTokens: number): number {
  if (item.url !== CHAT_URL && item.url !== RESPONSES_URL) return 0;
  const cap = item.url === RESPONSES_URL ? item.body['max_output_tokens'] : (item.body['max_completion_tokens'] ?? item.body['max_tokens']);
  return typeof cap === 'number' && cap > 0 ? cap : estTokens;
}
