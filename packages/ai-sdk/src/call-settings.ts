/**
 * An AI SDK call's settings (`LanguageModelV3CallOptions`) as the options of a governed call:
 * sampling keys in the OpenAI wire's names, tools, tool choice, structured output, the caller's
 * signal, and a warning for each setting a governed call cannot honour.
 */
import type { LanguageModelV3CallOptions, SharedV3Warning } from '@ai-sdk/provider';
import type { ChatOptions, ChatTool } from '@pgw/client';
import type { ToolChoice } from '@pgw/core';
import { z } from 'zod';
import { headerWarnings } from './header-warnings.js';
import { pgwOptions } from './pgw-options.js';
import { SAMPLING_KEYS } from './wire-names.js';

export interface GovernedCall {
  options: ChatOptions;
  warnings: SharedV3Warning[];
}

export function governedCall(settings: LanguageModelV3CallOptions): GovernedCall {
  const warnings: SharedV3Warning[] = [];
  const sampling: Record<string, unknown> = {};
  for (const [setting, key] of SAMPLING_KEYS.toWire) if (settings[setting] !== undefined) sampling[key] = settings[setting];
  const options: ChatOptions = { ...pgwOptions(settings.providerOptions), ...(settings.abortSignal && { signal: settings.abortSignal }) };

  const format = settings.responseFormat;
  if (format?.type === 'json' && format.schema !== undefined) options.structured = z.fromJSONSchema(format.schema as z.core.JSONSchema.BaseSchema);
  else if (format?.type === 'json') sampling['response_format'] = { type: 'json_object' };

  const tools: Record<string, ChatTool> = {};
  for (const tool of settings.tools ?? []) {
    if (tool.type === 'function') {
      tools[tool.name] = { ...(tool.description !== undefined && { description: tool.description }), parameters: tool.inputSchema as Record<string, unknown> };
    } else {
      warnings.push({ type: 'unsupported', feature: `provider tool ${tool.id}`, details: 'a governed call offers function tools only' });
    }
  }
  if (Object.keys(tools).length > 0) {
    options.tools = tools;
    const choice = toolChoice(settings.toolChoice);
    if (choice !== undefined) options.toolChoice = choice;
  }

  warnings.push(...headerWarnings(settings.headers));
  if (Object.keys(sampling).length > 0) options.sampling = sampling;
  return { options, warnings };
}

function toolChoice(choice: LanguageModelV3CallOptions['toolChoice']): ToolChoice | undefined {
  if (choice === undefined) return undefined;
  return choice.type === 'tool' ? { name: choice.toolName } : choice.type;
}
