/**
 * A JSON Schema sent by a caller (`response_format.json_schema.schema`), made into the zod schema the
 * client's structured output takes. The caller's schema is hostile input: it is bounded in size and
 * depth, and validated by Ajv with every `pattern` run on RE2 (re2js, linear time), so no schema and
 * no answer can make the process backtrack. `format` is left to the upstream (not checked here).
 * The zod schema carries the caller's JSON Schema as its metadata, so the upstream is sent the schema
 * as the caller wrote it. See docs/decisions.md, "The door holds".
 */
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import { RE2JS } from 're2js';
import { z } from 'zod';
import { InvalidRequestFieldError } from './request-field-error.js';

/** Nodes (objects, arrays and values) one schema may hold: OpenAI's own bound is 5,000 properties. */
export const MAX_SCHEMA_NODES = 10_000;
/** Nesting of the schema's JSON. */
export const MAX_SCHEMA_DEPTH = 64;
/** Characters of one `pattern` (or `patternProperties` key). */
export const MAX_PATTERN_LENGTH = 1_000;
/** Compiled validators kept for schemas that repeat (the same request type sent again). */
const CACHED_VALIDATORS = 128;

// Ajv keeps one compiled pattern per `toString()`, as a RegExp spells it; `code` names the engine in
// standalone code, which this server never generates.
const linearRegExp = Object.assign(
  (pattern: string, flags: string) => {
    const compiled = RE2JS.compile(pattern);
    return { test: (text: string) => compiled.matcher(text).find(), toString: () => `/${pattern}/${flags}` };
  },
  { code: 're2js' },
);

const ajv = new Ajv2020({ strict: false, allErrors: false, validateFormats: false, addUsedSchema: false, code: { regExp: linearRegExp } });
const validators = new Map<string, ValidateFunction>();

/** The zod schema of a caller's JSON Schema; a schema out of bounds or not compilable is an InvalidRequestFieldError naming where. */
export function callerSchema(schema: Record<string, unknown>, param: string): z.ZodType {
  checkBounds(schema, param);
  const validate = compiled(schema, param);
  return z
    .unknown()
    .superRefine((value, context) => {
      if (!validate(value)) context.addIssue({ code: 'custom', message: ajv.errorsText(validate.errors, { dataVar: 'answer' }) });
    })
    .meta(withoutIds(schema));
}

function compiled(schema: Record<string, unknown>, param: string): ValidateFunction {
  const key = JSON.stringify(schema);
  const cached = validators.get(key);
  if (cached !== undefined) {
    validators.delete(key);
    validators.set(key, cached);
    return cached;
  }
  const own = withoutIds(schema);
  let validate: ValidateFunction;
  try {
    validate = ajv.compile(own);
  } catch (error) {
    throw new InvalidRequestFieldError(param, `is not a JSON Schema this server can validate: ${(error as Error).message}`);
  } finally {
    // Ajv keeps every schema it compiled: a caller's must not outlive its validator.
    ajv.removeSchema(own);
  }
  validators.set(key, validate);
  if (validators.size > CACHED_VALIDATORS) validators.delete(validators.keys().next().value!);
  return validate;
}

/** Walks the schema once: node count, depth, and every pattern compiled by RE2 (a lookahead or backreference is refused). */
function checkBounds(schema: unknown, param: string): void {
  let nodes = 0;
  const visit = (node: unknown, at: string, depth: number, key: string | undefined): void => {
    if (++nodes > MAX_SCHEMA_NODES) throw new InvalidRequestFieldError(param, `has more than ${MAX_SCHEMA_NODES} nodes`);
    if (depth > MAX_SCHEMA_DEPTH) throw new InvalidRequestFieldError(at, `nests deeper than ${MAX_SCHEMA_DEPTH} levels`);
    if (key === 'pattern' && typeof node === 'string') checkPattern(node, at);
    if (typeof node !== 'object' || node === null) return;
    if (Array.isArray(node)) {
      node.forEach((item, index) => visit(item, `${at}[${index}]`, depth + 1, undefined));
      return;
    }
    for (const [name, child] of Object.entries(node)) {
      if (key === 'patternProperties') checkPattern(name, `${at}.${name}`);
      visit(child, `${at}.${name}`, depth + 1, key === 'properties' || key === 'patternProperties' || key === '$defs' || key === 'definitions' ? undefined : name);
    }
  };
  visit(schema, param, 0, undefined);
}

function checkPattern(pattern: string, at: string): void {
  if (pattern.length > MAX_PATTERN_LENGTH) throw new InvalidRequestFieldError(at, `is longer than ${MAX_PATTERN_LENGTH} characters`);
  try {
    RE2JS.compile(pattern);
  } catch (error) {
    throw new InvalidRequestFieldError(at, `is not a regular expression of the RE2 syntax (no lookaround, no backreferences): ${(error as Error).message}`);
  }
}

/** `$id` / `$schema` would register the caller's schema under a name, or pick a meta-schema, process-wide. */
function withoutIds(schema: Record<string, unknown>): Record<string, unknown> {
  const { $id: _id, $schema: _schema, ...rest } = schema;
  return rest;
}
