/**
 * An AI SDK prompt (`LanguageModelV3Prompt`) as the messages of a governed call, in the OpenAI wire
 * shape the model port takes (docs/writing-a-provider.md): system and user text, images and audio
 * as content parts, assistant text with its tool calls, tool results as `tool` messages.
 */
import { UnsupportedFunctionalityError, type LanguageModelV3FilePart, type LanguageModelV3Prompt, type LanguageModelV3ToolResultOutput } from '@ai-sdk/provider';
import type { ChatMessage, ContentPart, WireToolCall } from '@pgw/core';

/** Audio formats of the wire's `input_audio` part, by media type. */
const AUDIO_FORMATS: Readonly<Record<string, string>> = { 'audio/wav': 'wav', 'audio/x-wav': 'wav', 'audio/mpeg': 'mp3', 'audio/mp3': 'mp3' };

export function promptToMessages(prompt: LanguageModelV3Prompt): ChatMessage[] {
  const messages: ChatMessage[] = [];
  for (const message of prompt) {
    switch (message.role) {
      case 'system':
        messages.push({ role: 'system', content: message.content });
        break;
      case 'user': {
        const parts = message.content.map((part): ContentPart => (part.type === 'text' ? { type: 'text', text: part.text } : fileToPart(part)));
        const only = parts.length === 1 ? parts[0] : undefined;
        messages.push({ role: 'user', content: only?.type === 'text' ? only.text : parts });
        break;
      }
      case 'assistant': {
        let text = '';
        const calls: WireToolCall[] = [];
        for (const part of message.content) {
          if (part.type === 'text') text += part.text;
          else if (part.type === 'tool-call' && part.providerExecuted !== true) {
            calls.push({ id: part.toolCallId, type: 'function', function: { name: part.toolName, arguments: JSON.stringify(part.input ?? {}) } });
          } else if (part.type === 'file') {
            throw new UnsupportedFunctionalityError({ functionality: 'file parts in assistant messages' });
          }
          // Reasoning goes back to no upstream of the OpenAI shape (DeepSeek refuses it); a provider-executed
          // tool's call and result belong to that provider's own conversation.
        }
        messages.push(calls.length > 0 ? { role: 'assistant', content: text === '' ? null : text, tool_calls: calls } : { role: 'assistant', content: text });
        break;
      }
      case 'tool':
        for (const part of message.content) {
          if (part.type === 'tool-result') messages.push({ role: 'tool', tool_call_id: part.toolCallId, content: toolOutputText(part.output) });
        }
        break;
    }
  }
  return messages;
}

function fileToPart(part: LanguageModelV3FilePart): ContentPart {
  if (part.mediaType.startsWith('image/')) {
    const url = part.data instanceof URL ? part.data.href : `data:${imageType(part.mediaType)};base64,${base64(part.data)}`;
    return { type: 'image_url', image_url: { url } };
  }
  const format = AUDIO_FORMATS[part.mediaType];
  if (format !== undefined && !(part.data instanceof URL)) return { type: 'input_audio', input_audio: { data: base64(part.data), format } };
  throw new UnsupportedFunctionalityError({ functionality: `file parts of media type ${part.mediaType}` });
}

/** `image/*` (any image) becomes the common default. */
function imageType(mediaType: string): string {
  return mediaType === 'image/*' ? 'image/jpeg' : mediaType;
}

/** The AI SDK hands file data as bytes or as a base64 string. */
function base64(data: Uint8Array | string): string {
  return typeof data === 'string' ? data : Buffer.from(data).toString('base64');
}

function toolOutputText(output: LanguageModelV3ToolResultOutput): string {
  switch (output.type) {
    case 'text':
    case 'error-text':
      return output.value;
    case 'json':
    case 'error-json':
      return JSON.stringify(output.value);
    case 'execution-denied':
      return output.reason ?? 'The tool execution was denied.';
    case 'content':
      return output.value.map((item) => (item.type === 'text' ? item.text : JSON.stringify(item))).join('\n');
  }
}
