/**
 * The deltas of a governed `chatStream` as the stream parts of the AI SDK's specification: each
 * text and reasoning run opened and closed by `*-start` / `*-end`, each tool call's input streamed
 * between `tool-input-start` and `tool-input-end`, then `tool-call` and `finish` once the governed
 * answer is complete.
 */
import type { LanguageModelV3StreamPart } from '@ai-sdk/provider';
import type { ChatDelta, LLMResponse } from '@pgw/client';
import { finishReason, pgwMetadata, resultUsage } from './governed-result.js';

type Emit = (part: LanguageModelV3StreamPart) => void;

export class StreamParts {
  /** The open text or reasoning run, if any: the two alternate, one at a time. */
  #open: { kind: 'text' | 'reasoning'; id: string } | undefined;
  #runs = 0;
  /** Stream ids of the tool inputs begun, by the delta's index. */
  readonly #toolInputs = new Map<number, string>();

  constructor(private readonly emit: Emit) {}

  delta(delta: ChatDelta): void {
    if (delta.reasoningContent) this.#run('reasoning', delta.reasoningContent);
    if (delta.content) this.#run('text', delta.content);
    for (const call of delta.toolCalls ?? []) {
      let id = this.#toolInputs.get(call.index);
      if (id === undefined) {
        this.#close();
        id = call.id ?? `tool-input-${call.index}`;
        this.#toolInputs.set(call.index, id);
        this.emit({ type: 'tool-input-start', id, toolName: call.name ?? '' });
      }
      if (call.arguments) this.emit({ type: 'tool-input-delta', id, delta: call.arguments });
    }
  }

  /** The governed answer is complete: close what is open, then the tool calls and the finish. */
  finish(response: LLMResponse): void {
    this.#close();
    const begun = [...this.#toolInputs.entries()].sort(([a], [b]) => a - b).map(([, id]) => id);
    (response.toolCalls ?? []).forEach((call, position) => {
      // An answer from the cache (or a model that cannot stream) arrives whole: its inputs are streamed here.
      const id = begun[position] ?? call.id;
      if (begun[position] === undefined) {
        this.emit({ type: 'tool-input-start', id, toolName: call.name });
        this.emit({ type: 'tool-input-delta', id, delta: call.arguments });
      }
      this.emit({ type: 'tool-input-end', id });
      this.emit({ type: 'tool-call', toolCallId: call.id, toolName: call.name, input: call.arguments });
    });
    this.emit({ type: 'finish', usage: resultUsage(response.usage), finishReason: finishReason(response), providerMetadata: pgwMetadata(response) });
  }

  #run(kind: 'text' | 'reasoning', delta: string): void {
    if (this.#open?.kind !== kind) {
      this.#close();
      this.#open = { kind, id: `${kind}-${this.#runs++}` };
      this.emit({ type: `${kind}-start`, id: this.#open.id });
    }
    this.emit({ type: `${kind}-delta`, id: this.#open.id, delta });
  }

  #close(): void {
    if (this.#open === undefined) return;
    this.emit({ type: `${this.#open.kind}-end`, id: this.#open.id });
    this.#open = undefined;
  }
}
