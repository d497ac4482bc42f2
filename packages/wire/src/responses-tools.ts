/**
 * The tools of a Responses request as the upstream (Chat Completions) can take them. Function and
 * custom tools pass as they are; a `namespace` tool's tools become function tools named
 * `<namespace>__<name>`, and its calls are answered under their own name and namespace again; a
 * hosted tool (web search, code interpreter, …), which only the model's host can run, is dropped
 * and named (the server's `hostedTools` policy `drop`), or refused with a 400 naming it (`refuse`).
 */
import { z } from 'zod';
import { InvalidRequestFieldError } from './request-field-error.js';
import { jsonObject, nullish } from './request-schema.js';
import { TOOL_NAME, type ToolField } from './tool-fields.js';

/** What the server does with a hosted tool (`PGW_SERVER__HOSTED_TOOLS`). */
export const HOSTED_TOOL_POLICIES = ['drop', 'refuse'] as const;
export type HostedToolPolicy = (typeof HOSTED_TOOL_POLICIES)[number];

/** A tool's name upstream → the namespace and name the caller gave it. */
export type NamespacedNames = ReadonlyMap<string, { namespace: string; name: string }>;

/** Joins a namespace and a tool's name: `.` is not allowed in a tool name upstream (OpenAI's and Anthropic's rule). */
export const namespacedName = (namespace: string, name: string) => `${namespace}__${name}`;

const functionTool = z.looseObject({ type: z.literal('function'), name: z.string().min(1), description: nullish(z.string()), parameters: nullish(jsonObject), strict: nullish(z.boolean()) });
const customTool = z.looseObject({ type: z.literal('custom'), name: z.string().min(1), description: nullish(z.string()), format: nullish(jsonObject) });
const namespaceTool = z.looseObject({
  type: z.literal('namespace'),
  name: z.string().min(1),
  description: nullish(z.string()),
  tools: z.array(z.discriminatedUnion('type', [functionTool, customTool], { error: 'must be "function" or "custom"' })).min(1),
});
/** The marker a hosted tool is parsed under (any type but the three above); the tool itself as it came. */
const HOSTED = 'hosted';
const hostedTool = z.object({ type: z.literal(HOSTED), tool: z.looseObject({ type: z.string() }) });
// A hosted tool's type lands in a response header and in telemetry: a token, never a header's line break.
const HOSTED_TYPE = /^[A-Za-z0-9_.-]{1,64}$/;
const OWN_TYPES = new Set(['function', 'custom', 'namespace']);

export const responsesTool = z.preprocess(
  (value) => (typeof value === 'object' && value !== null && typeof (value as { type?: unknown }).type === 'string' && !OWN_TYPES.has((value as { type: string }).type) ? { type: HOSTED, tool: value } : value),
  z.discriminatedUnion('type', [functionTool, customTool, namespaceTool, hostedTool], { error: 'must be a tool with a "type"' }),
);
type ResponsesTool = z.output<typeof responsesTool>;
type OwnTool = z.output<typeof functionTool> | z.output<typeof customTool>;

export interface UpstreamTools {
  /** The tools sent upstream, each with the field that names it in the request. */
  tools: ToolField[];
  fields: string[];
  namespaced: NamespacedNames;
  /** The hosted tools' types that were dropped, each once, in order. */
  dropped: string[];
}

export function upstreamTools(tools: readonly ResponsesTool[], policy: HostedToolPolicy): UpstreamTools {
  const namespaced = new Map<string, { namespace: string; name: string }>();
  const out: UpstreamTools = { tools: [], fields: [], namespaced, dropped: [] };
  const add = (tool: OwnTool, name: string, field: string) => {
    out.tools.push(tool.type === 'custom' ? { name, description: tool.description, type: 'custom', format: tool.format } : { name, description: tool.description, parameters: tool.parameters });
    out.fields.push(field);
  };
  tools.forEach((tool, index) => {
    if (tool.type === 'hosted') {
      const { type } = tool.tool;
      if (!HOSTED_TYPE.test(type)) throw new InvalidRequestFieldError(`tools[${index}].type`, 'must be a tool type (1 to 64 letters, digits, _ . -)');
      if (policy === 'refuse') throw new InvalidRequestFieldError(`tools[${index}].type`, `'${type}' is a hosted tool: this server runs none`);
      if (!out.dropped.includes(type)) out.dropped.push(type);
      return;
    }
    if (tool.type !== 'namespace') return add(tool, tool.name, `tools[${index}].name`);
    tool.tools.forEach((inner, at) => {
      const field = `tools[${index}].tools[${at}].name`;
      const name = namespacedName(tool.name, inner.name);
      // The joined name is not echoed: a namespace's name is the caller's, of any length.
      if (!TOOL_NAME.test(name)) throw new InvalidRequestFieldError(field, `joined to its namespace with '__' (${name.length} characters), must be 1 to 64 letters, digits, '_' or '-'`);
      namespaced.set(name, { namespace: tool.name, name: inner.name });
      add(inner, name, field);
    });
  });
  return out;
}

/** The tools a response object repeats back: as sent, `parameters` and `strict` always there on a function tool (null when not sent). */
export function echoedTools(tools: readonly ResponsesTool[]): unknown[] {
  const echoed = (tool: OwnTool) => (tool.type === 'custom' ? tool : { ...tool, parameters: tool.parameters ?? null, strict: tool.strict ?? null });
  return tools.map((tool) => (tool.type === 'hosted' ? tool.tool : tool.type === 'namespace' ? { ...tool, tools: tool.tools.map(echoed) } : echoed(tool)));
}
