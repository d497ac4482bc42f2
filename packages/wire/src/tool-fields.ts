/** The tools and tool choice of a request, in any protocol's spelling → the client's tool options. */
import type { ChatOptions, ChatTool } from '@pgw/client';
import { InvalidRequestFieldError } from './request-field-error.js';

/** A function tool (its `parameters`, default an empty object schema) or a custom one (`type: 'custom'`, free text bound by `format`). */
export interface ToolField {
  name: string;
  description?: string | undefined;
  parameters?: Record<string, unknown> | undefined;
  type?: 'custom' | undefined;
  format?: Record<string, unknown> | undefined;
}

/** The names a tool may have upstream, as the OpenAI API allows them (and the client checks). */
export const TOOL_NAME = /^[a-zA-Z0-9_-]{1,64}$/;

export type ToolChoiceField = 'auto' | 'none' | 'required' | { name: string } | undefined;

/**
 * `nameField(index)` names a tool's name field in the protocol's body, for the 400 of a repeated
 * name; `choiceField` names the tool choice, for the 400 of a choice without tools.
 */
export function toolOptions(
  tools: readonly ToolField[] | undefined,
  choice: ToolChoiceField,
  parallel: boolean | undefined,
  fields: { nameField: (index: number) => string; choiceField: string },
): Pick<ChatOptions, 'tools' | 'toolChoice' | 'parallelToolCalls'> {
  // An empty list is no tools (the Agents SDK sends `tools: []` on every turn); a choice of `auto` or `none`, and `parallel_tool_calls`, mean nothing then.
  if (tools === undefined || tools.length === 0) {
    if (choice !== undefined && choice !== 'none' && choice !== 'auto') throw new InvalidRequestFieldError(fields.choiceField, 'needs tools');
    return {};
  }
  const byName: Record<string, ChatTool> = {};
  tools.forEach(({ name, description, parameters, type, format }, index) => {
    if (!TOOL_NAME.test(name)) throw new InvalidRequestFieldError(fields.nameField(index), `must be 1 to 64 letters, digits, '_' or '-'`);
    if (Object.hasOwn(byName, name)) throw new InvalidRequestFieldError(fields.nameField(index), `repeats '${name}'`);
    const about = description !== undefined ? { description } : {};
    byName[name] =
      type === 'custom'
        ? { type, ...about, ...(format !== undefined && { format }) }
        : { parameters: parameters ?? { type: 'object', properties: {} }, ...about };
  });
  if (typeof choice === 'object' && !Object.hasOwn(byName, choice.name)) throw new InvalidRequestFieldError(fields.choiceField, `names '${choice.name}', which is not in tools`);
  return {
    tools: byName,
    ...(choice !== undefined && { toolChoice: choice }),
    ...(parallel !== undefined && { parallelToolCalls: parallel }),
  };
}
