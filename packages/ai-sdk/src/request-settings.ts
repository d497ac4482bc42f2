/**
 * A governed request's settings as AI SDK call options: the wire's sampling keys by their AI SDK
 * names, native structured output, tools and tool choice; the reasoning effort for V4 models.
 * Sampling keys the AI SDK has no setting for are not sent (see docs/decisions.md).
 */
import { UnsupportedFunctionalityError, type LanguageModelV2CallOptions, type LanguageModelV3CallOptions } from '@ai-sdk/provider';
import type { ChatRequest, Effort } from '@pgw/core';
import type { LanguageModelV4CallOptions } from './ai-sdk-models.js';
import { messagesToPrompt, v4Prompt } from './messages-to-prompt.js';
import { SAMPLING_KEYS } from './wire-names.js';

/** Options a V2 and a V3 model both take: the settings and the prompt built for a request fit either. */
export type V2V3CallOptions = LanguageModelV2CallOptions & LanguageModelV3CallOptions;

type Settings = Omit<V2V3CallOptions, 'prompt' | 'abortSignal'>;

const V4_REASONING: Readonly<Record<Effort, NonNullable<LanguageModelV4CallOptions['reasoning']>>> = {
  none: 'none',
  minimal: 'minimal',
  low: 'low',
  medium: 'medium',
  high: 'high',
  xhigh: 'xhigh',
  max: 'xhigh',
};

/** One set of options for a V2 and a V3 model alike: what this package sends is in both specifications. */
export function callOptions(request: ChatRequest, abortSignal: AbortSignal): V2V3CallOptions {
  return { prompt: messagesToPrompt(request.messages), ...settingsOf(request), abortSignal };
}

/** A V4 model's call: its prompt tags file data, and it takes the reasoning effort. */
export function v4CallOptions(request: ChatRequest, abortSignal: AbortSignal): LanguageModelV4CallOptions {
  const effort = request.reasoningEffort;
  return { prompt: v4Prompt(messagesToPrompt(request.messages)), ...settingsOf(request), ...(effort !== undefined && { reasoning: V4_REASONING[effort] }), abortSignal };
}

function settingsOf(request: ChatRequest): Settings {
  const settings: Settings = {};
  const { sampling } = request;
  for (const [key, setting] of SAMPLING_KEYS.fromWire) {
    const value = sampling[key];
    if (setting === 'stopSequences') {
      // The wire's `stop` may be one string; the AI SDK takes a list.
      if (typeof value === 'string') settings[setting] = [value];
      else if (Array.isArray(value)) settings[setting] = value;
    } else if (typeof value === 'number') settings[setting] = value;
  }
  if (request.responseFormat !== undefined) {
    settings.responseFormat = { type: 'json', schema: request.responseFormat.schema, name: request.responseFormat.name };
  } else if ((sampling['response_format'] as { type?: unknown } | undefined)?.type === 'json_object') {
    settings.responseFormat = { type: 'json' };
  }
  if (request.tools !== undefined) {
    settings.tools = request.tools.map((tool) => {
      // The AI SDK's specifications have function and provider tools only: no freeform input.
      if (tool.type === 'custom') throw new UnsupportedFunctionalityError({ functionality: `custom tools (tool '${tool.name}')` });
      return { type: 'function', name: tool.name, ...(tool.description !== undefined && { description: tool.description }), inputSchema: tool.parameters };
    });
    const choice = request.toolChoice;
    if (choice !== undefined) settings.toolChoice = typeof choice === 'string' ? { type: choice } : { type: 'tool', toolName: choice.name };
  }
  return settings;
}
