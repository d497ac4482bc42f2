/** Assembles a streamed answer from the `data` payloads of `chat.completion.chunk` events. */
import type { ChatDelta, ToolCallDelta, Usage } from '@pgw/core';
import type { SseEvent } from '@pgw/http';
import { inBandError, parseJsonObject } from './answer-json.js';
import { reasoningText, type ChatAnswer } from './chat-answer.js';
import { invalidAnswer, type AnswerOrigin } from './error-translation.js';
import { isRecord } from './json.js';
import { ToolCallAssembly, toolCallFragments } from './tool-wire.js';
import { measuredChatUsage } from './usage.js';

export interface ChunkNews {
  /** Content, reasoning and/or tool-call fragments this chunk added (absent when it added none). */
  delta?: ChatDelta;
  /** Usage this chunk reported. */
  usage?: Usage;
}

export class ChatStreamAssembler {
  private content = '';
  private reasoning = '';
  private finishReason: string | undefined;
  private usage: Usage | undefined;
  private readonly toolCalls = new ToolCallAssembly();
  private sawDone = false;
  private sawChoice = false;
  /** The first payload, shown when the stream as a whole turns out unusable. */
  private firstData: string | undefined;

  constructor(private readonly origin: AnswerOrigin) {}

  /** `[DONE]` arrived: anything after it is ignored. */
  get done(): boolean {
    return this.sawDone;
  }

  /** Reads one event; an `event: error` or a payload with an `error` throws the in-band error it stands for. */
  accept({ event, data }: SseEvent): ChunkNews {
    if (this.sawDone) return {};
    if (event === 'error') throw inBandError(data, this.origin);
    if (data.trim() === '[DONE]') {
      this.sawDone = true;
      return {};
    }
    this.firstData ??= data;
    const chunk = parseJsonObject(data, this.origin);
    if (chunk['error'] !== undefined && chunk['error'] !== null) throw inBandError(data, this.origin);
    const news: ChunkNews = {};
    const usage = measuredChatUsage(chunk['usage']);
    if (usage !== undefined) news.usage = this.usage = usage;
    const choices = chunk['choices'];
    const choice: unknown = Array.isArray(choices) ? choices[0] : undefined;
    if (!isRecord(choice)) return news;
    this.sawChoice = true;
    if (typeof choice['finish_reason'] === 'string') this.finishReason = choice['finish_reason'];
    const delta = choice['delta'];
    if (!isRecord(delta)) return news;
    const content = typeof delta['content'] === 'string' ? delta['content'] : '';
    const reasoning = reasoningText(delta);
    const fragments = toolCallFragments(delta['tool_calls'], this.origin, data);
    this.content += content;
    this.reasoning += reasoning;
    for (const fragment of fragments) this.toolCalls.add(fragment);
    if (content !== '' || reasoning !== '' || fragments.length > 0) news.delta = chatDelta(content, reasoning, fragments);
    return news;
  }

  /** The assembled answer; a stream that never carried a choice is as unusable as a body without one. */
  answer(ttftMs: number | undefined): ChatAnswer {
    if (!this.sawChoice) throw invalidAnswer(this.origin, 'no choices in the stream', this.firstData ?? '');
    const toolCalls = this.toolCalls.result();
    return {
      ...(toolCalls !== undefined && { toolCalls }),
      content: this.content,
      reasoningContent: this.reasoning,
      ...(this.finishReason !== undefined && { finishReason: this.finishReason }),
      ...(this.usage !== undefined && { usage: this.usage }),
      ...(ttftMs !== undefined && { ttftMs }),
    };
  }
}

/** One delta per token, built field by field (docs/decisions.md#lean-hot-path). */
function chatDelta(content: string, reasoning: string, fragments: ToolCallDelta[]): ChatDelta {
  if (reasoning === '' && fragments.length === 0) return { content };
  const delta: ChatDelta = {};
  if (content !== '') delta.content = content;
  if (reasoning !== '') delta.reasoningContent = reasoning;
  if (fragments.length > 0) delta.toolCalls = fragments;
  return delta;
}
