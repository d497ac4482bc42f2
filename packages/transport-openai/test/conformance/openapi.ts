/**
 * Validators of the vendored OpenAI OpenAPI document (spec/openapi.yaml): the schemas of a request
 * body or an answer, compiled on first use by Ajv's JSON Schema 2020-12 dialect (OpenAPI 3.1's).
 */
import { readFileSync } from 'node:fs';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { inject } from 'vitest';

/** The component schemas a provider's requests and answers are checked against. */
export type SpecSchema =
  | 'CreateChatCompletionRequest'
  | 'CreateChatCompletionResponse'
  | 'CreateChatCompletionStreamResponse'
  | 'CreateEmbeddingRequest'
  | 'CreateEmbeddingResponse';

const DOCUMENT_ID = 'openai-openapi';
let ajv: Ajv2020 | undefined;
const validators = new Map<SpecSchema, ValidateFunction>();

/** What is wrong with `value` as a `schema` of the spec: one line per error, none when it conforms. */
export function specIssues(schema: SpecSchema, value: unknown): string[] {
  const validate = validatorOf(schema);
  if (validate(value)) return [];
  return (validate.errors ?? []).map((error) => `${error.instancePath || '(root)'} ${error.message ?? error.keyword} (${error.schemaPath})`);
}

function validatorOf(schema: SpecSchema): ValidateFunction {
  let validate = validators.get(schema);
  if (validate === undefined) {
    ajv ??= specAjv();
    validate = ajv.getSchema(`${DOCUMENT_ID}#/components/schemas/${schema}`);
    if (validate === undefined) throw new Error(`the vendored OpenAPI document has no component schema ${schema}`);
    validators.set(schema, validate);
  }
  return validate;
}

function specAjv(): Ajv2020 {
  const components = nullableAsNull(JSON.parse(readFileSync(inject('openapiComponents'), 'utf8')));
  // Not strict: the document carries OpenAPI keywords (discriminator, x-…) that JSON Schema does not know and must ignore.
  const instance = new Ajv2020({ strict: false, allErrors: true, logger: false });
  // ajv-formats is CommonJS: its default export arrives wrapped under ESM.
  const addFormats = ((addFormatsModule as unknown as { default?: typeof addFormatsModule }).default ?? addFormatsModule) as unknown as (ajv: Ajv2020) => void;
  addFormats(instance);
  // The components as one document, so `$ref: '#/components/schemas/X'` resolves inside it.
  instance.addSchema({ $id: DOCUMENT_ID, components });
  return instance;
}

/**
 * The document still marks many schemas `nullable: true`, an OpenAPI 3.0 keyword that JSON Schema
 * 2020-12 does not have (and Ajv refuses next to no `type`). It means what its authors wrote: null
 * is allowed too — which is how it is rewritten here.
 */
function nullableAsNull(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(nullableAsNull);
  if (typeof node !== 'object' || node === null) return node;
  const { nullable, ...rest } = node as Record<string, unknown>;
  const schema = Object.fromEntries(Object.entries(rest).map(([key, value]) => [key, nullableAsNull(value)]));
  if (nullable !== true) return schema;
  return { anyOf: [schema, { type: 'null' }] };
}
