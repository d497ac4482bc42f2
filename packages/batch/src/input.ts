/**
 * A job's input in OpenAI's batch format, checked whole before anything runs: one JSON object per
 * line `{custom_id, method, url, body}`; every refusal names its line (1-based) and field.
 */
import { PolyGatewayError, MAX_ID_LENGTH } from '@pgw/client';
import type { BatchItem } from '@pgw/core';

export const CHAT_URL = '/v1/chat/completions';
export const EMBEDDINGS_URL = '/v1/embeddings';
export const RESPONSES_URL = '/v1/responses';
export const MESSAGES_URL = '/v1/messages';
export const OCR_URL = '/pgw/v1/ocr';
export const BATCH_URLS = [CHAT_URL, EMBEDDINGS_URL, RESPONSES_URL, MESSAGES_URL, OCR_URL] as const;
export type BatchUrl = (typeof BATCH_URLS)[number];

/** The urls whose lines are chat calls, each in its own protocol's shapes. */
export type ChatUrl = typeof CHAT_URL | typeof RESPONSES_URL | typeof MESSAGES_URL;
export const isChatUrl = (url: string): url is ChatUrl => url === CHAT_URL || url === RESPONSES_URL || url === MESSAGES_URL;

/** A line of the input as the check passed it: an item whose `url` is one of `BATCH_URLS`. */
export interface InputItem extends BatchItem {
  url: BatchUrl;
}


export interface BatchInputErrorOptions {
  message: string;
  line: number;
  field: string;
}

/** A line of the input that cannot run: the job is refused whole, before any call. */
export class BatchInputError extends PolyGatewayError {
  static override readonly kind: string = 'BatchInputError';
  readonly line: number;
  readonly field: string;

  constructor(options: BatchInputErrorOptions) {
    super({ message: `batch input line ${options.line}: ${options.field} ${options.message}` });
    this.line = options.line;
    this.field = options.field;
  }
}

export interface ParseInputOptions {
  /** Whether a line's `body.model` is served (the model → scope map); omitted: any model. */
  knowsModel?: (url: BatchUrl, model: string) => boolean;
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** Parses and checks the whole input; throws `BatchInputError` at the first bad line. */
export function parseBatchInput(text: string, options: ParseInputOptions = {}): InputItem[] {
  const items: InputItem[] = [];
  const seen = new Set<string>();
  text.split('\n').forEach((raw, index) => {
    const line = index + 1;
    if (raw.trim() === '') return;
    const item = checkLine(raw, line, options);
    if (seen.has(item.customId)) throw new BatchInputError({ line, field: 'custom_id', message: `"${item.customId}" appears on an earlier line` });
    seen.add(item.customId);
    items.push(item);
  });
  if (items.length === 0) throw new BatchInputError({ line: 1, field: 'input', message: 'holds no line' });
  return items;
}

function checkLine(raw: string, line: number, options: ParseInputOptions): InputItem {
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch {
    throw new BatchInputError({ line, field: 'line', message: 'is not valid JSON' });
  }
  if (!isObject(parsed)) throw new BatchInputError({ line, field: 'line', message: 'must be a JSON object' });
  const { custom_id: customId, method, url, body } = parsed;
  if (typeof customId !== 'string' || customId === '' || customId.length > MAX_ID_LENGTH) {
    throw new BatchInputError({ line, field: 'custom_id', message: `must be a non-empty string of at most ${MAX_ID_LENGTH} characters` });
  }
  if (method !== undefined && method !== 'POST') throw new BatchInputError({ line, field: 'method', message: 'must be "POST"' });
  if (typeof url !== 'string' || !(BATCH_URLS as readonly string[]).includes(url)) {
    throw new BatchInputError({ line, field: 'url', message: `must be one of ${BATCH_URLS.join(', ')}` });
  }
  if (!isObject(body)) throw new BatchInputError({ line, field: 'body', message: 'must be a JSON object' });
  const batchUrl = url as BatchUrl;
  checkBody(batchUrl, body, line);
  const model = body['model'];
  if (typeof model === 'string' && options.knowsModel && !options.knowsModel(batchUrl, model)) {
    throw new BatchInputError({ line, field: 'body.model', message: `"${model}" is not a model this gateway serves` });
  }
  return { customId, url: batchUrl, body, line };
}

/** Per-url checks of the body's required fields; the call mapping (item-call.ts) refuses the rest. */
function checkBody(url: BatchUrl, body: Record<string, unknown>, line: number): void {
  const need = (field: string, ok: boolean, what: string) => {
    if (!ok) throw new BatchInputError({ line, field: `body.${field}`, message: what });
  };
  if (url === OCR_URL) {
    need('file', typeof body['file'] === 'string' && body['file'] !== '', 'must be a file path');
    need('mode', body['mode'] === undefined || body['mode'] === 'text' || body['mode'] === 'layout', 'must be "text" or "layout"');
    return;
  }
  need('model', typeof body['model'] === 'string' && body['model'] !== '', 'must be a non-empty string');
  if (url === CHAT_URL || url === MESSAGES_URL) need('messages', Array.isArray(body['messages']) && body['messages'].length > 0, 'must be a non-empty array');
  if (url === MESSAGES_URL) need('max_tokens', Number.isInteger(body['max_tokens']) && (body['max_tokens'] as number) > 0, 'must be an integer > 0');
  if (url === RESPONSES_URL) {
    const input = body['input'];
    need('input', (typeof input === 'string' && input !== '') || (Array.isArray(input) && input.length > 0), 'must be a non-empty string or a non-empty list of message items');
  }
  if (url === EMBEDDINGS_URL) {
    const input = body['input'];
    need('input', typeof input === 'string' || (Array.isArray(input) && input.length > 0 && input.every((text) => typeof text === 'string')), 'must be a string or a non-empty array of strings');
  }
}
