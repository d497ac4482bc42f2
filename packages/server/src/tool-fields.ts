/** The tools and tool choice of a request, in any protocol's spelling → the client's tool options. */
import type { ChatOptions, ChatTool } from '@pgw/client';
import { InvalidRequestFieldError } from './request-error.js';

/** A function tool (its `parameters`, default an empty object schema) or a custom one (`type: 'custom'`, free text bound by `format`). */
export interface ToolField {
  name: string;
  description?: string | undefined;
  parameters?: Record<string, unknown> | undefined;
  type?: 'custom' | undefined;
  format?: Record<string, unknown> | undefined;
}

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
  if (tools === undefined) {
    if (choice !== undefined && choice !== 'none' && choice !== 'auto') throw new InvalidRequestFieldError(fields.choiceField, 'needs tools');
    return {};
  }
  const byName: Record<string, ChatTool> = {};
  tools.forEach(({ name, description, parameters, type, format }, index) => {
    if (Object.hasOwn(byName, name)) throw new InvalidRequestFieldError(fields.nameField(index), `repeats '${name}'`);
    const about = description !== undefined ? { description } : {};
    byName[name] =
      type === 'custom'
        ? { type, ...about, ...(format !== undefined && { format }) }
        : { parameters: parameters ?? { type: 'object', properties: {} }, ...about };
  });
  return {
    tools: byName,
    ...(choice !== undefined && { toolChoice: choice }),
    ...(parallel !== undefined && { parallelToolCalls: parallel }),
  };
}
