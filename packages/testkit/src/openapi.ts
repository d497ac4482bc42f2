/**
 * Validators of an OpenAPI 3.1 document's component schemas, for tests: a vitest global setup reads
 * the YAML once per run and leaves its components as JSON (YAML parsing of a multi-megabyte document
 * takes seconds; JSON does not); each test worker compiles the schemas it asks for on first use, with
 * Ajv's JSON Schema 2020-12 dialect (OpenAPI 3.1's). In this repository the document is the OpenAI
 * one vendored in packages/transport-openai/spec.
 */
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { inject } from 'vitest';
import type { TestProject } from 'vitest/node';
import { parse } from 'yaml';

declare module 'vitest' {
  export interface ProvidedContext {
    /** Path of a JSON file holding `components` of the OpenAPI document the run validates against. */
    openapiComponents: string;
  }
}

/**
 * The body of a vitest global setup: parses `document` (an OpenAPI YAML file) unless a run before
 * already left its components in the temp directory, and provides their path to the tests.
 */
export function provideOpenapiComponents(project: TestProject, document: URL): void {
  const text = readFileSync(document, 'utf8');
  const digest = createHash('sha256').update(text).digest('hex').slice(0, 16);
  const path = join(tmpdir(), `pgw-openapi-components-${digest}.json`);
  if (!existsSync(path)) {
    const parsed = parse(text) as { components: unknown };
    // Written aside, then renamed: a parallel run never reads half a file.
    const partial = `${path}.${process.pid}`;
    writeFileSync(partial, JSON.stringify(parsed.components));
    renameSync(partial, path);
  }
  project.provide('openapiComponents', path);
}

const DOCUMENT_ID = 'openapi';

interface Components {
  schemas: Record<string, { anyOf?: { $ref?: string }[]; properties?: { type?: { enum?: unknown[] } } }>;
}

let loaded: { ajv: Ajv2020; components: Components } | undefined;
const validators = new Map<string, ValidateFunction>();

/** What is wrong with `value` as the component schema `schema`: one line per error (path, message, schema path), none when it conforms. */
export function specIssues(schema: string, value: unknown): string[] {
  const validate = validatorOf(schema);
  if (validate(value)) return [];
  return (validate.errors ?? []).map((error) => `${error.instancePath || '(root)'} ${error.message ?? error.keyword} (${error.schemaPath})`);
}

/**
 * The member of `union` (a component that is an `anyOf` of references, as `ResponseStreamEvent` is)
 * whose `type` property is `type`, or undefined when none is. Checking a value against its own member
 * names what is wrong with it; checking it against the whole union lists every member's complaint.
 */
export function unionMemberOf(union: string, type: string): string | undefined {
  const { components } = document();
  const members = components.schemas[union]?.anyOf;
  if (members === undefined) throw new Error(`the OpenAPI document has no component schema ${union} made of anyOf`);
  return members
    .map(({ $ref }) => $ref?.slice('#/components/schemas/'.length) ?? '')
    .find((name) => components.schemas[name]?.properties?.type?.enum?.includes(type) === true);
}

function validatorOf(schema: string): ValidateFunction {
  let validate = validators.get(schema);
  if (validate === undefined) {
    validate = document().ajv.getSchema(`${DOCUMENT_ID}#/components/schemas/${schema}`);
    if (validate === undefined) throw new Error(`the OpenAPI document has no component schema ${schema}`);
    validators.set(schema, validate);
  }
  return validate;
}

function document(): { ajv: Ajv2020; components: Components } {
  if (loaded !== undefined) return loaded;
  const components = nullableAsNull(JSON.parse(readFileSync(inject('openapiComponents'), 'utf8'))) as Components;
  // Not strict: the document carries OpenAPI keywords (discriminator, x-…) that JSON Schema does not know and must ignore.
  const ajv = new Ajv2020({ strict: false, allErrors: true, logger: false });
  // ajv-formats is CommonJS: its default export arrives wrapped under ESM.
  const addFormats = ((addFormatsModule as unknown as { default?: typeof addFormatsModule }).default ?? addFormatsModule) as unknown as (ajv: Ajv2020) => void;
  addFormats(ajv);
  // The components as one document, so `$ref: '#/components/schemas/X'` resolves inside it.
  ajv.addSchema({ $id: DOCUMENT_ID, components });
  loaded = { ajv, components };
  return loaded;
}

/**
 * The OpenAI document still marks many schemas `nullable: true`, an OpenAPI 3.0 keyword that JSON
 * Schema 2020-12 does not have (and Ajv refuses next to no `type`). It means what its authors wrote:
 * null is allowed too — which is how it is rewritten here.
 */
function nullableAsNull(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(nullableAsNull);
  if (typeof node !== 'object' || node === null) return node;
  const { nullable, ...rest } = node as Record<string, unknown>;
  const schema = Object.fromEntries(Object.entries(rest).map(([key, value]) => [key, nullableAsNull(value)]));
  if (nullable !== true) return schema;
  return { anyOf: [schema, { type: 'null' }] };
}
