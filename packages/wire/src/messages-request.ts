/**
 * An Anthropic Messages request (`POST /v1/messages`) → the governed client's arguments, checked by
 * one zod schema: a bad field, or a typed tool the route cannot run (`web_search_…`, `bash_…`, …), is
 * an InvalidRequestFieldError naming it, and nothing is sent upstream. The upstream speaks Chat
 * Completions, so thinking blocks sent back are accepted and left out.
 */
import type { ChatOptions } from '@pgw/client';
import type { ChatMessage, ContentPart, Effort } from '@pgw/core';
import { z } from 'zod';
import { InvalidRequestFieldError } from './request-field-error.js';
import { jsonObject, nullish, parseRequest, userField } from './request-schema.js';
import { toolOptions } from './tool-fields.js';

export interface MessagesCall {
  model: string;
  messages: ChatMessage[];
  options: ChatOptions;
  stream: boolean;
}

const text = z.string();
const textBlock = z.looseObject({ type: z.literal('text'), text });
const imageBlock = z.looseObject({
  type: z.literal('image'),
  source: z.discriminatedUnion('type', [
    z.looseObject({ type: z.literal('base64'), media_type: z.string().min(1), data: z.string().min(1) }),
    z.looseObject({ type: z.literal('url'), url: z.string().min(1) }),
  ]),
});
const toolUse = z.looseObject({ type: z.literal('tool_use'), id: z.string().min(1), name: z.string().min(1), input: z.unknown() });
// What a tool search loaded (Claude Code defers its MCP tools behind ToolSearch): every tool of the
// request is offered upstream at once, `defer_loading` or not, so the reference is told as text.
const toolReference = z.looseObject({ type: z.literal('tool_reference'), tool_name: z.string().min(1) });
const toolResult = z.looseObject({
  type: z.literal('tool_result'),
  tool_use_id: z.string().min(1),
  content: nullish(z.union([text, z.array(z.union([textBlock, imageBlock, toolReference], { error: 'must be a text, image or tool_reference block' }))])),
  is_error: nullish(z.boolean()),
});
// The model's earlier thinking, sent back: the upstream speaks Chat Completions and cannot take it.
const thinking = z.looseObject({ type: z.enum(['thinking', 'redacted_thinking']) });
const block = z.union([textBlock, imageBlock, toolUse, toolResult, thinking], { error: 'must be a text, image, tool_use, tool_result, thinking or redacted_thinking block' });

// A `system` turn inside the conversation (Claude Code sends its environment so) takes text only.
const message = z.looseObject({ role: z.enum(['user', 'assistant', 'system']), content: z.union([text, z.array(block)]) });

const tool = z.looseObject({
  type: nullish(z.literal('custom', { error: 'must be "custom" (or absent): this server runs no server tools' })),
  name: z.string().min(1),
  description: nullish(z.string()),
  input_schema: jsonObject,
});

const toolChoice = z.discriminatedUnion('type', [
  z.looseObject({ type: z.literal('auto'), disable_parallel_tool_use: nullish(z.boolean()) }),
  z.looseObject({ type: z.literal('any'), disable_parallel_tool_use: nullish(z.boolean()) }),
  z.looseObject({ type: z.literal('tool'), name: z.string().min(1), disable_parallel_tool_use: nullish(z.boolean()) }),
  z.looseObject({ type: z.literal('none') }),
]);

const messagesBody = z.looseObject({
  model: z.string().min(1),
  max_tokens: z.number().int().positive(),
  messages: z.array(message).min(1),
  system: nullish(z.union([text, z.array(textBlock)])),
  stream: nullish(z.boolean()),
  tools: nullish(z.array(tool)),
  tool_choice: nullish(toolChoice),
  stop_sequences: nullish(z.array(z.string())),
  temperature: nullish(z.number()),
  top_p: nullish(z.number()),
  top_k: nullish(z.number().int()),
  thinking: nullish(
    z.discriminatedUnion('type', [
      z.looseObject({ type: z.literal('enabled'), budget_tokens: z.number().int().positive() }),
      z.looseObject({ type: z.literal('disabled') }),
      // The model picks its own budget: the source's effort stays as configured.
      z.looseObject({ type: z.literal('adaptive') }),
    ]),
  ),
  // Anthropic's effort (Claude Code sends it with adaptive thinking): its levels are the source's efforts by name.
  output_config: nullish(z.looseObject({ effort: nullish(z.enum(['low', 'medium', 'high', 'max'])) })),
  metadata: nullish(z.looseObject({ user_id: userField })),
});

type MessagesFields = z.output<typeof messagesBody>;

// count_tokens takes the request a call would send, without the answer's bound.
const countBody = messagesBody.extend({ max_tokens: nullish(z.number().int().positive()) });

/** The messages of a `count_tokens` request, as the governed call would send them. */
export function countTokensMessages(body: unknown): ChatMessage[] {
  return conversation(parseRequest(countBody, body));
}

/** The thinking budget as the source's effort: Anthropic's minimum is 1,024 tokens; 32k and more is its top. */
function effortOf(budget: number): Effort {
  if (budget < 4_096) return 'low';
  if (budget < 16_384) return 'medium';
  if (budget < 32_768) return 'high';
  return 'max';
}

/** A thinking budget, else `output_config.effort`; disabled thinking is `none`; adaptive thinking alone keeps the source's own effort. */
function effortOptions({ thinking, output_config: config }: MessagesFields): Pick<ChatOptions, 'reasoningEffort'> {
  if (thinking?.type === 'disabled') return { reasoningEffort: 'none' };
  if (thinking?.type === 'enabled') return { reasoningEffort: effortOf(thinking.budget_tokens) };
  return config?.effort !== undefined ? { reasoningEffort: config.effort } : {};
}

export function messagesCall(body: unknown): MessagesCall {
  const fields = parseRequest(messagesBody, body);
  const sampling: Record<string, unknown> = { max_tokens: fields.max_tokens };
  if (fields.stop_sequences !== undefined) sampling['stop'] = fields.stop_sequences;
  if (fields.temperature !== undefined) sampling['temperature'] = fields.temperature;
  if (fields.top_p !== undefined) sampling['top_p'] = fields.top_p;
  if (fields.top_k !== undefined) sampling['top_k'] = fields.top_k;
  const choice = fields.tool_choice;
  const options: ChatOptions = {
    ...toolOptions(
      fields.tools?.map(({ name, description, input_schema: parameters }) => ({ name, description, parameters })),
      choice === undefined ? undefined : choice.type === 'any' ? 'required' : choice.type === 'tool' ? { name: choice.name } : choice.type,
      choice !== undefined && 'disable_parallel_tool_use' in choice && choice.disable_parallel_tool_use === true ? false : undefined,
      { nameField: (index) => `tools[${index}].name`, choiceField: 'tool_choice' },
    ),
    ...effortOptions(fields),
    ...(fields.metadata?.user_id !== undefined && { meta: { user: fields.metadata.user_id } }),
    sampling,
  };
  return { model: fields.model, messages: conversation(fields), options, stream: fields.stream ?? false };
}

type Block = z.output<typeof block>;

function conversation(fields: Pick<MessagesFields, 'system' | 'messages'>): ChatMessage[] {
  const messages: ChatMessage[] = [];
  if (fields.system !== undefined) messages.push({ role: 'system', content: typeof fields.system === 'string' ? fields.system : fields.system.map((part) => part.text).join('\n') });
  fields.messages.forEach(({ role, content }, index) => {
    if (typeof content === 'string') return void messages.push({ role, content });
    if (role === 'system') return void messages.push(systemMessage(content, `messages[${index}].content`));
    if (role === 'assistant') return void messages.push(assistantMessage(content));
    messages.push(...userMessages(content, `messages[${index}].content`));
  });
  return messages;
}

/** A system turn inside the conversation: its text blocks, joined as the top-level `system` is. */
function systemMessage(blocks: readonly Block[], field: string): ChatMessage {
  const texts = blocks.map((part, index) => {
    if (part.type !== 'text') throw new InvalidRequestFieldError(`${field}[${index}]`, 'a system message takes text blocks only');
    return (part as z.output<typeof textBlock>).text;
  });
  return { role: 'system', content: texts.join('\n') };
}

/** An assistant turn: its text, and its tool_use blocks as the tool calls of one message. */
function assistantMessage(blocks: readonly Block[]): ChatMessage {
  const texts: string[] = [];
  const calls: NonNullable<ChatMessage['tool_calls']> = [];
  for (const part of blocks) {
    if (part.type === 'text') texts.push((part as z.output<typeof textBlock>).text);
    else if (part.type === 'tool_use') {
      const use = part as z.output<typeof toolUse>;
      calls.push({ id: use.id, type: 'function', function: { name: use.name, arguments: JSON.stringify(use.input ?? {}) } });
    }
  }
  const content = texts.join('');
  return { role: 'assistant', content: content === '' && calls.length > 0 ? null : content, ...(calls.length > 0 && { tool_calls: calls }) };
}

/** A user turn: each tool_result as a tool message (in order, first), the rest as one user message. */
function userMessages(blocks: readonly Block[], field: string): ChatMessage[] {
  const results: ChatMessage[] = [];
  const parts: ContentPart[] = [];
  blocks.forEach((part, index) => {
    if (part.type === 'tool_result') {
      const result = part as z.output<typeof toolResult>;
      const output = typeof result.content === 'string' ? result.content : (result.content ?? []).map((inner, at) => textOfResult(inner, `${field}[${index}].content[${at}]`)).join('');
      results.push({ role: 'tool', tool_call_id: result.tool_use_id, content: result.is_error === true ? `Error: ${output}` : output });
    } else if (part.type === 'text') parts.push({ type: 'text', text: (part as z.output<typeof textBlock>).text });
    else if (part.type === 'image') parts.push(imagePart(part as z.output<typeof imageBlock>));
    else if (part.type === 'tool_use') throw new InvalidRequestFieldError(`${field}[${index}]`, 'a tool_use block belongs in an assistant message');
  });
  if (parts.length === 0) return results;
  const onlyText = parts.every((part) => part.type === 'text');
  return [...results, { role: 'user', content: onlyText ? parts.map((part) => (part as { text: string }).text).join('') : parts }];
}

function textOfResult(part: z.output<typeof textBlock> | z.output<typeof imageBlock> | z.output<typeof toolReference>, field: string): string {
  if (part.type === 'image') throw new InvalidRequestFieldError(field, 'an image in a tool_result is not supported: the upstream takes text tool results');
  if (part.type === 'tool_reference') return `Tool loaded: ${(part as z.output<typeof toolReference>).tool_name}\n`;
  return (part as z.output<typeof textBlock>).text;
}

function imagePart({ source }: z.output<typeof imageBlock>): ContentPart {
  return { type: 'image_url', image_url: { url: source.type === 'url' ? source.url : `data:${source.media_type};base64,${source.data}` } };
}
