/**
 * `fromLanguageModel`: any AI SDK language model (V2, V3 or V4) as a `ChatModel` of this library,
 * so it is a source like any other (docs/writing-a-provider.md): one call = one attempt, the
 * attempt's signal and timeout passed down, failures classified into the four categories, usage
 * reported before the answer returns, a stream read through `doStream` under the liveness limits.
 */
import type { LanguageModelV2StreamPart, LanguageModelV3StreamPart } from '@ai-sdk/provider';
import { MODEL_SPECIFICATION_VERSION, type AttemptContext, type ChatDelta, type ChatModel, type ChatModelCapabilities, type ChatRequest, type ChatResult, type ToolCall } from '@pgw/core';
import { observeThinking } from '@pgw/core/internal';
import { checkLiveness, type LivenessOptions } from '@pgw/http';
import type { AnyLanguageModel } from './ai-sdk-models.js';
import { failureContext, runAttempt } from './attempt-run.js';
import { streamErrorFailure } from './classify-failure.js';
import { modelUsage } from './model-usage.js';
import { callOptions, v4CallOptions } from './request-settings.js';
import { FINISH_REASONS } from './wire-names.js';

export interface FromLanguageModelOptions {
  /** The `provider` of the ChatModel. Default: the AI SDK model's. */
  provider?: string;
  /** The name prices, cache keys and telemetry rows use. Default: the AI SDK model's `modelId`. */
  modelId?: string;
  /**
   * Default `{ jsonSchema: true, streaming: true }`: every AI SDK model takes a JSON schema
   * (natively, through a tool, or as JSON mode with a warning, as its provider decides) and streams.
   * With `streaming: false` every attempt is one `doGenerate`.
   */
  capabilities?: Partial<ChatModelCapabilities>;
  /** Bounds of a streamed answer (defaults: 60 s to the first token, 30 s between tokens, no cap of the total below the attempt timeout). */
  liveness?: LivenessOptions;
  /** Texts never to keep from an upstream body (the API key the provider holds, secret header values). */
  secrets?: readonly string[];
  /** Receives the one warning of a non-finite `Retry-After`. Default: none. */
  warn?: (message: string) => void;
}

type StreamPart = LanguageModelV2StreamPart | LanguageModelV3StreamPart;
type FinishReason = string | { unified: string; raw: string | undefined } | undefined;

export function fromLanguageModel(model: AnyLanguageModel, options: FromLanguageModelOptions = {}): ChatModel {
  const version = model.specificationVersion;
  if (version !== 'v2' && version !== 'v3' && version !== 'v4') {
    throw new TypeError(`fromLanguageModel(model) must be an AI SDK language model of specification v2, v3 or v4, got ${String(version)}`);
  }
  const capabilities: ChatModelCapabilities = { jsonSchema: true, streaming: true, ...options.capabilities };
  const liveness = checkLiveness(options.liveness, (field) => `fromLanguageModel(options.liveness.${field})`);
  const modelId = options.modelId ?? model.modelId;
  const run = { ...(options.secrets && { secrets: options.secrets }), ...(options.warn && { warn: options.warn }) };

  function generate(request: ChatRequest, attempt: AttemptContext): Promise<ChatResult> {
    return runAttempt(attempt, run, async (signal) => {
      const result = await (model.specificationVersion === 'v4' ? model.doGenerate(v4CallOptions(request, signal)) : model.doGenerate(callOptions(request, signal)));
      let content = '';
      let reasoning = '';
      const toolCalls: ToolCall[] = [];
      for (const part of result.content) {
        if (part.type === 'text') content += part.text;
        else if (part.type === 'reasoning') reasoning += part.text;
        else if (part.type === 'tool-call') toolCalls.push(toolCall(part.toolCallId, part.toolName, part.input));
      }
      const usage = modelUsage(result.usage, request.messages, content + reasoning);
      attempt.onUsage?.(usage);
      return answer(content, reasoning, toolCalls, usage, result.finishReason, result.response?.modelId);
    });
  }

  function stream(request: ChatRequest, attempt: AttemptContext, onDelta: ((delta: ChatDelta) => void) | undefined): Promise<ChatResult> {
    return runAttempt(attempt, { ...run, liveness }, async (signal, scope) => {
      const started = performance.now();
      const { stream: parts }: { stream: ReadableStream<StreamPart> } = await (model.specificationVersion === 'v4'
        ? model.doStream({ ...v4CallOptions(request, signal), includeRawChunks: true })
        : model.doStream({ ...callOptions(request, signal), includeRawChunks: true }));
      const reader = parts.getReader();
      let content = '';
      let reasoning = '';
      let ttftMs: number | undefined;
      let lastRaw: unknown;
      let finish: Extract<StreamPart, { type: 'finish' }> | undefined;
      let finished = false;
      const toolIndexes = new Map<string, number>();
      const toolCalls: ToolCall[] = [];
      const live = (delta: ChatDelta): void => {
        if (!signal.aborted) onDelta?.(delta);
      };
      try {
        for (let next = await reader.read(); !next.done; next = await reader.read()) {
          const part = next.value;
          switch (part.type) {
            case 'raw':
              lastRaw = part.rawValue;
              break;
            case 'text-delta':
            case 'reasoning-delta': {
              const text = part.delta;
              if (text === '') break;
              ttftMs ??= performance.now() - started;
              scope.tokenSeen();
              if (part.type === 'text-delta') {
                content += text;
                live({ content: text });
              } else {
                reasoning += text;
                live({ reasoningContent: text });
              }
              break;
            }
            case 'tool-input-start':
              toolIndexes.set(part.id, toolIndexes.size);
              scope.tokenSeen();
              live({ toolCalls: [{ index: toolIndexes.get(part.id)!, id: part.id, name: part.toolName }] });
              break;
            case 'tool-input-delta':
              scope.tokenSeen();
              live({ toolCalls: [{ index: toolIndexes.get(part.id) ?? 0, arguments: part.delta }] });
              break;
            case 'tool-call':
              toolCalls.push(toolCall(part.toolCallId, part.toolName, part.input));
              if (!toolIndexes.has(part.toolCallId)) {
                // A provider that sends the call whole: its one delta carries all of it.
                const index = toolIndexes.size;
                toolIndexes.set(part.toolCallId, index);
                live({ toolCalls: [{ index, id: part.toolCallId, name: part.toolName, arguments: toolCalls.at(-1)!.arguments }] });
              }
              break;
            case 'finish':
              finish = part;
              scope.stopLiveness();
              break;
            case 'error':
              throw streamErrorFailure(part.error, lastRaw, failureContext(attempt, run));
          }
        }
        finished = true;
      } finally {
        // A stream left early (an error part, our limit) is cancelled: the provider's body is not left open.
        if (!finished) await reader.cancel().catch(() => {});
        reader.releaseLock();
      }
      const usage = modelUsage(finish?.usage, request.messages, content + reasoning);
      attempt.onUsage?.(usage);
      const result = answer(content, reasoning, toolCalls, usage, finish?.finishReason, undefined);
      return ttftMs === undefined ? result : { ...result, ttftMs };
    });
  }

  function answer(content: string, reasoning: string, toolCalls: ToolCall[], usage: ChatResult['usage'], reason: FinishReason, responseModel: string | undefined): ChatResult {
    const finishReason = typeof reason === 'string' ? wireFinishReason(reason) : (reason?.raw ?? (reason && wireFinishReason(reason.unified)));
    return {
      content,
      ...(reasoning !== '' && { reasoningContent: reasoning }),
      model: responseModel ?? modelId,
      usage,
      thinkingObservation: observeThinking({ reasoningText: reasoning, ...(usage.reasoningTokens !== undefined && { reasoningTokens: usage.reasoningTokens }) }),
      ...(finishReason !== undefined && { finishReason }),
      ...(toolCalls.length > 0 && { toolCalls }),
    };
  }

  return {
    specificationVersion: MODEL_SPECIFICATION_VERSION,
    provider: options.provider ?? model.provider,
    modelId,
    capabilities,
    managedKeys: [],
    generate: capabilities.streaming ? (request, attempt) => stream(request, attempt, undefined) : generate,
    ...(capabilities.streaming && { stream: (request: ChatRequest, attempt: AttemptContext & { onDelta: (delta: ChatDelta) => void }) => stream(request, attempt, attempt.onDelta) }),
  };
}

/** A reason the wire has no name for (`error`, `other`, `unknown`) is kept as the AI SDK's word rather than lost. */
function wireFinishReason(reason: string): string {
  return FINISH_REASONS.wireName(reason) ?? reason;
}

/** V2 and V3 send the arguments as JSON text; an object (older providers) is sent back as its JSON. */
function toolCall(id: string, name: string, input: unknown): ToolCall {
  return { id, name, arguments: typeof input === 'string' ? input : JSON.stringify(input ?? {}) };
}
