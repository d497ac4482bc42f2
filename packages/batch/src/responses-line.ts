/**
 * A `/v1/responses` line as the governed chat call its chat lines make: an OpenAI Responses body
 * mapped to chat messages and sampling fields, the answer mapped to a Responses `response` object.
 * The batch keeps this small mapping rather than the server's (docs/decisions.md "Batch jobs"): a
 * field it cannot honour (tools, stored prompts, continuations, …) fails the item with a 400 naming it.
 */
import type { ChatMessage } from '@pgw/client';

/** What a Responses body becomes: the chat call's messages, sampling fields and reasoning effort. */
export interface ChatCallFields {
  messages: ChatMessage[];
  sampling: Record<string, unknown>;
  reasoningEffort?: string;
}

const RESPONSES_FIELDS = new Set(['model', 'input', 'instructions', 'max_output_tokens', 'temperature', 'top_p', 'reasoning', 'text', 'user', 'metadata', 'store', 'stream']);
const ROLES = new Set(['user', 'system', 'developer', 'assistant']);

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);
const refuse = (field: string, what: string): never => {
  throw new TypeError(`body.${field} ${what} in a batch responses line`);
};

/** A message item's content: a string, or `input_text` / `output_text` parts joined. */
function contentOf(content: unknown, field: string): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return refuse(field, 'must be a string or a list of text parts');
  return content
    .map((part: unknown, index) => {
      if (!isObject(part) || (part['type'] !== 'input_text' && part['type'] !== 'output_text') || typeof part['text'] !== 'string') {
        return refuse(`${field}[${index}]`, 'must be an input_text part');
      }
      return part['text'];
    })
    .join('');
}

function messagesOf(body: Record<string, unknown>): ChatMessage[] {
  const instructions = body['instructions'];
  if (instructions !== undefined && instructions !== null && typeof instructions !== 'string') refuse('instructions', 'must be a string');
  const system: ChatMessage[] = typeof instructions === 'string' ? [{ role: 'system', content: instructions }] : [];
  const input = body['input'];
  if (typeof input === 'string') return [...system, { role: 'user', content: input }];
  const items = (input as unknown[]).map((item, index): ChatMessage => {
    if (!isObject(item) || (item['type'] !== undefined && item['type'] !== 'message') || !ROLES.has(String(item['role']))) {
      return refuse(`input[${index}]`, 'must be a message item with a role (user, system, developer, assistant)');
    }
    const role = item['role'] === 'developer' ? 'system' : (item['role'] as ChatMessage['role']);
    return { role, content: contentOf(item['content'], `input[${index}].content`) } as ChatMessage;
  });
  return [...system, ...items];
}

/** `text.format` → the chat call's `response_format` (json_schema is structured output). */
function responseFormatOf(text: unknown): Record<string, unknown> | undefined {
  if (!isObject(text)) return refuse('text', 'must be an object');
  const unknown = Object.keys(text).find((field) => field !== 'format');
  if (unknown !== undefined) refuse(`text.${unknown}`, 'is not supported');
  const format = text['format'];
  if (format === undefined) return undefined;
  if (!isObject(format)) return refuse('text.format', 'must be an object');
  if (format['type'] === 'text') return undefined;
  if (format['type'] === 'json_object') return { type: 'json_object' };
  if (format['type'] !== 'json_schema') return refuse('text.format.type', 'must be text, json_object or json_schema');
  const { type: _type, ...schema } = format;
  if (typeof schema['name'] !== 'string' || !isObject(schema['schema'])) refuse('text.format', 'json_schema needs name and schema');
  return { type: 'json_schema', json_schema: schema };
}

/** Maps a Responses body to the chat call; throws a TypeError naming the first field it cannot honour. */
export function responsesChatFields(body: Record<string, unknown>): ChatCallFields {
  const unknown = Object.keys(body).find((field) => !RESPONSES_FIELDS.has(field));
  if (unknown !== undefined) refuse(unknown, 'is not supported');
  if (body['stream'] === true) refuse('stream', 'must not be true');
  const sampling: Record<string, unknown> = {};
  for (const field of ['temperature', 'top_p'] as const) if (body[field] !== undefined && body[field] !== null) sampling[field] = body[field];
  if (body['max_output_tokens'] !== undefined && body['max_output_tokens'] !== null) sampling['max_completion_tokens'] = body['max_output_tokens'];
  if (body['text'] !== undefined) {
    const format = responseFormatOf(body['text']);
    if (format !== undefined) sampling['response_format'] = format;
  }
  const reasoning = body['reasoning'];
  if (reasoning !== undefined && reasoning !== null && (!isObject(reasoning) || Object.keys(reasoning).some((field) => field !== 'effort' && field !== 'summary'))) {
    refuse('reasoning', 'takes only effort');
  }
  const effort = isObject(reasoning) ? reasoning['effort'] : undefined;
  if (effort !== undefined && effort !== null && typeof effort !== 'string') refuse('reasoning.effort', 'must be a string');
  return { messages: messagesOf(body), sampling, ...(typeof effort === 'string' && { reasoningEffort: effort }) };
}

export interface ChatAnswerFields {
  id: string;
  model: string;
  content: string;
  promptTokens: number;
  completionTokens: number;
}

/** The Responses `response` object of a finished chat call. */
export function responseObject(answer: ChatAnswerFields): Record<string, unknown> {
  return {
    id: `resp_${answer.id}`,
    object: 'response',
    created_at: Math.floor(Date.now() / 1000),
    status: 'completed',
    model: answer.model,
    output: [{ type: 'message', id: `msg_${answer.id}`, status: 'completed', role: 'assistant', content: [{ type: 'output_text', text: answer.content, annotations: [] }] }],
    usage: { input_tokens: answer.promptTokens, output_tokens: answer.completionTokens, total_tokens: answer.promptTokens + answer.completionTokens },
  };
}
