/**
 * One item as one governed call of the batch class: the line's body parsed by its route's own
 * translation (@pgw/wire: the same parser, the same answer shaper), so a line carries whatever its
 * route carries (tools, structured output, reasoning, tool results, usage details, an `incomplete`
 * status); a `/v1/messages` line answers Anthropic's `message`. What a line cannot be is refused with a 400 naming the field: a stream, a continuation
 * of a stored response (a batch has no store), a hosted tool (nobody runs it).
 */
import { readFile } from 'node:fs/promises';
import type { ChatMessage, EmbeddingClient, GatewayClient, OcrClient } from '@pgw/client';
import { estimatePromptTokens } from '@pgw/core';
import {
  anthropicMessage,
  chatCall,
  chatCompletion,
  embedCall,
  embeddingList,
  InvalidRequestFieldError,
  messagesCall,
  responseObject,
  responsesCall,
  type ChatCall,
  type MessagesCall,
  type ResponsesCall,
} from '@pgw/wire';
import { BATCH_URLS, CHAT_URL, EMBEDDINGS_URL, isChatUrl, MESSAGES_URL, OCR_URL, RESPONSES_URL, type BatchUrl, type ChatUrl } from './input.js';
import type { BatchItem, ItemResponse } from '@pgw/core';

/** The clients a job's lines call; a function picks the client of a line's model (undefined: unknown model). */
export interface BatchClients {
  chat?: GatewayClient | ((model: string) => GatewayClient | undefined);
  embeddings?: EmbeddingClient | ((model: string) => EmbeddingClient | undefined);
  ocr?: OcrClient;
}

export interface CallContext {
  tenantId: string;
  signal: AbortSignal;
}

const pick = <C>(client: C | ((model: string) => C | undefined) | undefined, model: string): C | undefined =>
  typeof client === 'function' ? (client as (model: string) => C | undefined)(model) : client;

/** The client that serves an item, or undefined: the input check refuses such a line. */
export function servesItem(clients: BatchClients, url: BatchUrl, model: string): boolean {
  if (isChatUrl(url)) return pick(clients.chat, model) !== undefined;
  if (url === EMBEDDINGS_URL) return pick(clients.embeddings, model) !== undefined;
  return clients.ocr !== undefined;
}

type LineCall = ChatCall | ResponsesCall | MessagesCall;

function parseLine(url: ChatUrl, body: Record<string, unknown>): LineCall {
  if (url === CHAT_URL) return chatCall(body);
  if (url === MESSAGES_URL) return messagesCall(body);
  return responsesCall(body, { hostedTools: 'refuse' });
}

/**
 * A chat, Responses or Messages line's call, as its route parses it; what only a live request can be
 * is refused (an InvalidRequestFieldError naming the body's field). The server checks a batch's
 * requests with it before accepting them.
 */
export function lineCall(url: ChatUrl, body: Record<string, unknown>): LineCall {
  const call = parseLine(url, body);
  if (call.stream) throw new InvalidRequestFieldError('stream', 'must not be true in a batch line');
  if ('previousResponseId' in call && call.previousResponseId !== undefined) {
    throw new InvalidRequestFieldError('previous_response_id', 'is not supported in a batch line (a batch stores no responses): send the whole conversation in input');
  }
  return call;
}

/** Runs the item's governed call; a failure throws (the runner maps it). */
export async function callItem(clients: BatchClients, item: BatchItem, context: CallContext): Promise<ItemResponse> {
  // `""` is the tenant of calls without one: the client takes no tenant then.
  const common = { priority: 'batch' as const, signal: context.signal, ...(context.tenantId !== '' && { tenantId: context.tenantId }) };
  const { body } = item;
  if (isChatUrl(item.url)) {
    const call = lineCall(item.url, body);
    const client = pick(clients.chat, String(body['model']));
    // Only a server's message batch lets a line of an unserved model in: it fails alone, as Anthropic's do.
    if (client === undefined) throw new InvalidRequestFieldError('model', `"${String(body['model'])}" is not a model this gateway serves`);
    const answer = await client.chat(call.messages, { ...call.options, ...common });
    return {
      statusCode: 200,
      requestId: answer.callStats.logicalCallId,
      ...(answer.costUsd !== undefined && { costUsd: answer.costUsd }),
      body: item.url === MESSAGES_URL ? anthropicMessage(answer) : 'echo' in call ? responseObject(answer, call.echo, call.namespaced) : chatCompletion(answer),
    };
  }
  if (item.url === EMBEDDINGS_URL) {
    const client = pick(clients.embeddings, String(body['model']))!;
    const call = embedCall(body);
    const answer = await client.embed(call.texts, { ...common, ...(call.user !== undefined && { meta: { user: call.user } }) });
    return {
      statusCode: 200,
      requestId: answer.callStats.logicalCallId,
      ...(answer.costUsd !== undefined && { costUsd: answer.costUsd }),
      body: embeddingList(answer, call.base64),
    };
  }
  // An engine hands back what its input check let in; a stored line of another kind fails alone.
  if (item.url !== OCR_URL) throw new InvalidRequestFieldError('url', `must be one of ${BATCH_URLS.join(', ')}`);
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
  // A Responses or Messages body is estimated from its text as sent (a little over, as JSON): a field its call will
  // refuse must not stop the estimate, which runs before the item's own failure is recorded.
  if (item.url === RESPONSES_URL) return estimatePromptTokens([{ role: 'user', content: JSON.stringify([item.body['instructions'] ?? '', item.body['input']]) }]);
  if (item.url === MESSAGES_URL) return estimatePromptTokens([{ role: 'user', content: JSON.stringify([item.body['system'] ?? '', item.body['messages'], item.body['tools'] ?? []]) }]);
  if (item.url === EMBEDDINGS_URL) {
    const input = item.body['input'] as string | string[];
    return estimatePromptTokens((typeof input === 'string' ? [input] : input).map((content) => ({ role: 'user', content })));
  }
  return 0;
}

/** The most an item may answer: its `max_tokens` / `max_completion_tokens` / `max_output_tokens`, else the scope's `EST_TOKENS`. */
export function maxOutputTokens(item: BatchItem, estTokens: number): number {
  if (!isChatUrl(item.url)) return 0;
  const cap = item.url === RESPONSES_URL ? item.body['max_output_tokens'] : (item.body['max_completion_tokens'] ?? item.body['max_tokens']);
  return typeof cap === 'number' && cap > 0 ? cap : estTokens;
}
