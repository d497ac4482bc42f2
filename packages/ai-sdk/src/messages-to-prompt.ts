/**
 * The messages of a governed request (the OpenAI wire shape of the model port) as an AI SDK
 * prompt: the reverse of `promptToMessages`. One prompt serves V2 and V3; V4 wraps file data.
 */
import type { LanguageModelV3FilePart, LanguageModelV3Message, LanguageModelV3Prompt, LanguageModelV3ToolCallPart } from '@ai-sdk/provider';
import { wireCallParts, type ChatMessage, type ContentPart } from '@pgw/core';
import type { SpecificationVersion } from './ai-sdk-models.js';

const AUDIO_MEDIA_TYPES: Readonly<Record<string, string>> = { wav: 'audio/wav', mp3: 'audio/mpeg' };
const DATA_URL = /^data:([^;,]+);base64,(.*)$/s;

export function messagesToPrompt(messages: readonly ChatMessage[], version: SpecificationVersion): unknown[] {
  const toolNames = new Map<string, string>();
  const prompt: LanguageModelV3Prompt = [];
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
        const parts: Extract<LanguageModelV3Message, { role: 'assistant' }>['content'] = [];
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
  return version === 'v4' ? prompt.map(v4Message) : prompt;
}

function textOf(content: ChatMessage['content']): string {
  if (typeof content === 'string') return content;
  return (content ?? []).map((part) => (part.type === 'text' ? part.text : '')).join('');
}

function userPart(part: ContentPart): Extract<LanguageModelV3Message, { role: 'user' }>['content'][number] {
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
function parsedInput(text: string): LanguageModelV3ToolCallPart['input'] {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

/** V4 file data is tagged: `{ type: 'data', data }` or `{ type: 'url', url }`. */
function v4Message(message: LanguageModelV3Message): unknown {
  if (message.role !== 'user') return message;
  return {
    ...message,
    content: message.content.map((part) => (part.type === 'file' ? { ...part, data: v4Data(part.data) } : part)),
  };
}

function v4Data(data: LanguageModelV3FilePart['data']): unknown {
  return data instanceof URL ? { type: 'url', url: data } : { type: 'data', data };
}
