/**
 * The JSON Schema a structured call asks for, shaped for strict structured output where zod allows:
 * strict mode wants every property required, so an optional field is sent required but nullable,
 * and a model's `null` there is read back as the absent value the caller's schema means.
 */
import { z, type ZodType } from 'zod';

/** zod's JSON Schema of the answer, with optional properties required-but-nullable and `default` (an annotation of the output) left out. */
export function structuredJsonSchema(schema: ZodType): Record<string, unknown> {
  return strictShaped(z.toJSONSchema(schema, { unrepresentable: 'any', io: 'output' })) as Record<string, unknown>;
}

/** Keywords whose value is data or a map of names, not a schema: not rewritten as one. */
const VALUES = new Set(['properties', 'enum', 'const', 'examples']);

function strictShaped(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(strictShaped);
  if (!isPlainObject(node)) return node;
  const { default: _annotation, ...rest } = node;
  const shaped = Object.fromEntries(Object.entries(rest).map(([key, value]) => [key, VALUES.has(key) ? value : strictShaped(value)]));
  if (!isPlainObject(rest['properties'])) return shaped;
  const required = new Set(Array.isArray(rest['required']) ? (rest['required'] as unknown[]) : []);
  shaped['properties'] = Object.fromEntries(
    Object.entries(rest['properties']).map(([key, value]) => {
      const property = strictShaped(value);
      return [key, required.has(key) || acceptsNull(property) ? property : { anyOf: [property, { type: 'null' }] }];
    }),
  );
  shaped['required'] = Object.keys(rest['properties']);
  return shaped;
}

function acceptsNull(node: unknown): boolean {
  if (!isPlainObject(node)) return false;
  const { type, anyOf } = node;
  return type === 'null' || (Array.isArray(type) && type.includes('null')) || (Array.isArray(anyOf) && anyOf.some(acceptsNull));
}

/**
 * `value` with every `null` removed where `schema` has an optional field that does not accept null:
 * the answer to a required-but-nullable property of `structuredJsonSchema`. Walks objects, arrays
 * and the wrappers around them; other values are left as they are.
 */
export function nullsAsAbsent(schema: ZodType, value: unknown): unknown {
  const inner = unwrapped(schema);
  const def = inner.def as { type: string; shape?: Record<string, ZodType>; element?: ZodType };
  if (def.type === 'array' && def.element !== undefined && Array.isArray(value)) return value.map((item) => nullsAsAbsent(def.element!, item));
  if (def.type !== 'object' || def.shape === undefined || !isPlainObject(value)) return value;
  const result: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) {
    const field = def.shape[key];
    if (field === undefined) result[key] = item;
    else if (item !== null) result[key] = nullsAsAbsent(field, item);
    else if (!(field.safeParse(undefined).success && !field.safeParse(null).success)) result[key] = item;
  }
  return result;
}

/** The schema inside optional / nullable / default / readonly / catch wrappers, a pipe's input and a lazy's target. */
function unwrapped(schema: ZodType): ZodType {
  const def = schema.def as { type: string; innerType?: ZodType; in?: ZodType; getter?: () => ZodType };
  if (def.innerType !== undefined) return unwrapped(def.innerType);
  if (def.type === 'pipe' && def.in !== undefined) return unwrapped(def.in);
  if (def.type === 'lazy' && def.getter !== undefined) return unwrapped(def.getter());
  return schema;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
