/**
 * The messages of a governed request (the OpenAI wire shape of the model port) as an AI SDK
 * prompt: the reverse of `promptToMessages`. One prompt serves V2 and V3; V4 wraps file data.
 */
import type { LanguageModelV2Prompt, LanguageModelV3Prompt } from '@ai-sdk/provider';
import { wireCallParts, type ChatMessage, type ContentPart } from '@pgw/core';
import type { LanguageModelV4CallOptions } from './ai-sdk-models.js';

type TextPart = { type: 'text'; text: string };
type FilePart = { type: 'file'; mediaType: string; data: string | URL };
type ToolCallPart = { type: 'tool-call'; toolCallId: string; toolName: string; input: unknown };
type ToolResultPart = { type: 'tool-result'; toolCallId: string; toolName: string; output: { type: 'text'; value: string } };
type Message =
  | { role: 'system'; content: string }
  | { role: 'user'; content: Array<TextPart | FilePart> }
  | { role: 'assistant'; content: Array<TextPart | ToolCallPart> }
  | { role: 'tool'; content: ToolResultPart[] };

/** Built of the parts V2 and V3 share (V3's own messages carry options V2's refuse), so one prompt serves both. */
type Prompt = Message[] & LanguageModelV2Prompt & LanguageModelV3Prompt;

const AUDIO_MEDIA_TYPES: Readonly<Record<string, string>> = { wav: 'audio/wav', mp3: 'audio/mpeg' };
const DATA_URL = /^data:([^;,]+);base64,(.*)$/s;

export function messagesToPrompt(messages: readonly ChatMessage[]): Prompt {
  const toolNames = new Map<string, string>();
  const prompt: Message[] = [];
  for (const message of messages) {
    const content = message.content;
    switch (message.role) {
      case 'system':
        prompt.push({ role: 'system', content: textOf(content) });
        break;
      case 'user':
        prompt.push({ role: 'user', content: typeof content === 'string' ? [{ type: 'text', text: content }] : (content ?? []).map(userPart) });
        break;
      case 'assistant': {
        const parts: Array<TextPart | ToolCallPart> = [];
        const text = textOf(content);
        if (text !== '') parts.push({ type: 'text', text });
        for (const call of message.tool_calls ?? []) {
          const { name, input } = wireCallParts(call);
          toolNames.set(call.id, name);
          // A custom call's input is free text, never JSON.
          parts.push({ type: 'tool-call', toolCallId: call.id, toolName: name, input: call.type === 'custom' ? input : parsedInput(input) });
        }
        prompt.push({ role: 'assistant', content: parts });
        break;
      }
      case 'tool': {
        const id = message.tool_call_id ?? '';
        const part = { type: 'tool-result' as const, toolCallId: id, toolName: toolNames.get(id) ?? '', output: { type: 'text' as const, value: textOf(content) } };
        // Consecutive results answer one assistant message: one tool message, as the AI SDK builds it.
        const last = prompt.at(-1);
        if (last?.role === 'tool') last.content.push(part);
        else prompt.push({ role: 'tool', content: [part] });
        break;
      }
    }
  }
  return prompt;
}

export function v4Prompt(prompt: readonly Message[]): LanguageModelV4CallOptions['prompt'] {
  return prompt.map(v4Message);
}

function textOf(content: ChatMessage['content']): string {
  if (typeof content === 'string') return content;
  return (content ?? []).map((part) => (part.type === 'text' ? part.text : '')).join('');
}

function userPart(part: ContentPart): TextPart | FilePart {
  switch (part.type) {
    case 'text':
      return { type: 'text', text: part.text };
    case 'image_url': {
      const data = DATA_URL.exec(part.image_url.url);
      return data ? { type: 'file', mediaType: data[1]!, data: data[2]! } : { type: 'file', mediaType: 'image/*', data: new URL(part.image_url.url) };
    }
    case 'input_audio':
      return { type: 'file', mediaType: AUDIO_MEDIA_TYPES[part.input_audio.format] ?? `audio/${part.input_audio.format}`, data: part.input_audio.data };
  }
}

/** Arguments the model sent as text go back as the value they stand for; text that is no JSON stays text. */
function parsedInput(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

/** V4 file data is tagged: `{ type: 'data', data }` or `{ type: 'url', url }`. */
function v4Message(message: Message): unknown {
  if (message.role !== 'user') return message;
  return {
    ...message,
    content: message.content.map((part) => (part.type === 'file' ? { ...part, data: v4Data(part.data) } : part)),
  };
}

function v4Data(data: FilePart['data']): unknown {
  return data instanceof URL ? { type: 'url', url: data } : { type: 'data', data };
}
