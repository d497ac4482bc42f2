/**
 * A governed request's settings as AI SDK call options: the wire's sampling keys by their AI SDK
 * names, native structured output, tools and tool choice; the reasoning effort for V4 models.
 * Sampling keys the AI SDK has no setting for are not sent (see docs/decisions.md).
 */
import type { LanguageModelV3CallOptions } from '@ai-sdk/provider';
import type { ChatRequest, Effort } from '@pgw/core';
import type { SpecificationVersion } from './ai-sdk-models.js';
import { messagesToPrompt } from './messages-to-prompt.js';
import { SAMPLING_KEYS } from './wire-names.js';

type Settings = Omit<LanguageModelV3CallOptions, 'prompt' | 'abortSignal'>;

const V4_REASONING: Readonly<Record<Effort, string>> = {
  none: 'none',
  minimal: 'minimal',
  low: 'low',
  medium: 'medium',
  high: 'high',
  xhigh: 'xhigh',
  max: 'xhigh',
};

export function callOptions(request: ChatRequest, version: SpecificationVersion, abortSignal: AbortSignal): Record<string, unknown> {
  const settings: Record<string, unknown> = {};
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
    settings['responseFormat'] = { type: 'json', schema: request.responseFormat.schema, name: request.responseFormat.name };
  } else if ((sampling['response_format'] as { type?: unknown } | undefined)?.type === 'json_object') {
    settings['responseFormat'] = { type: 'json' };
  }
  if (request.tools !== undefined) {
    settings['tools'] = request.tools.map((tool) => ({
      type: 'function',
      name: tool.name,
      ...(tool.description !== undefined && { description: tool.description }),
      inputSchema: tool.parameters,
    }));
    const choice = request.toolChoice;
    if (choice !== undefined) settings['toolChoice'] = typeof choice === 'string' ? { type: choice } : { type: 'tool', toolName: choice.name };
  }
  if (version === 'v4' && request.reasoningEffort !== undefined) settings['reasoning'] = V4_REASONING[request.reasoningEffort];
  return { prompt: messagesToPrompt(request.messages, version), ...settings, abortSignal };
}
