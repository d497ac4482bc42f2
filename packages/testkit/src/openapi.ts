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

/** What the rewrites below read of a schema. */
export interface SchemaNode {
  $ref?: string;
  type?: unknown;
  const?: unknown;
  enum?: unknown[];
  allOf?: SchemaNode[];
  anyOf?: SchemaNode[];
  oneOf?: SchemaNode[];
  discriminator?: { propertyName: string; mapping?: unknown };
  properties?: Record<string, SchemaNode>;
}

export interface Components {
  schemas: Record<string, SchemaNode>;
}

let ajv: Ajv2020 | undefined;
const validators = new Map<string, ValidateFunction>();

/** What is wrong with `value` as the component schema `schema`: one line per error (path, message, schema path), none when it conforms. */
export function specIssues(schema: string, value: unknown): string[] {
  const validate = validatorOf(schema);
  if (validate(value)) return [];
  // An `if` only says that its `then` failed, whose own errors are listed.
  return (validate.errors ?? []).filter((error) => error.keyword !== 'if').map((error) => `${error.instancePath || '(root)'} ${error.message ?? error.keyword} (${error.schemaPath})`);
}

function validatorOf(schema: string): ValidateFunction {
  let validate = validators.get(schema);
  if (validate === undefined) {
    ajv ??= specAjv();
    validate = ajv.getSchema(`${DOCUMENT_ID}#/components/schemas/${schema}`);
    if (validate === undefined) throw new Error(`the OpenAPI document has no component schema ${schema}`);
    validators.set(schema, validate);
  }
  return validate;
}

let components: Components | undefined;

/** The document's component schemas as JSON Schema 2020-12 (`nullable` rewritten), read once per worker. */
export function specComponents(): Components {
  return (components ??= nullableAsNull(JSON.parse(readFileSync(inject('openapiComponents'), 'utf8'))) as Components);
}

function specAjv(): Ajv2020 {
  // A copy: the narrowing rewrites the unions in place, which the generators read as written.
  const components = structuredClone(specComponents());
  taggedUnionsNarrowed(components.schemas);
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

/**
 * The document's unions name their tag (`discriminator: { propertyName: 'type' }`), which JSON Schema
 * does not read: a value off its member would get every member's complaint. Rewritten so that a
 * value whose tag is a string is checked against the members of that tag alone — an unknown tag is one
 * complaint about the tag — while a value without one is checked against any member. A union with a
 * member whose tag cannot be read off the document is left as it is.
 */
function taggedUnionsNarrowed(schemas: Components['schemas']): void {
  const rewrites: [SchemaNode, Record<string, unknown>][] = [];
  const visit = (node: unknown): void => {
    if (typeof node !== 'object' || node === null) return;
    Object.values(node).forEach(visit);
    const rewrite = narrowed(node as SchemaNode, schemas);
    if (rewrite !== undefined) rewrites.push([node as SchemaNode, rewrite]);
  };
  visit(schemas);
  // Applied once all are known: reading a member's tags needs the unions as written.
  for (const [node, rewrite] of rewrites) {
    delete node.oneOf;
    delete node.anyOf;
    Object.assign(node, rewrite);
  }
}

function narrowed(node: SchemaNode, schemas: Components['schemas']): Record<string, unknown> | undefined {
  const members = node.oneOf ?? node.anyOf;
  const tag = node.discriminator?.propertyName;
  if (members === undefined || tag === undefined || node.discriminator?.mapping !== undefined) return undefined;
  const byValue = new Map<string, SchemaNode[]>();
  for (const member of members) {
    const values = tagValues(member, tag, schemas, 0);
    if (values === undefined) return undefined;
    for (const value of values) byValue.set(value, [...(byValue.get(value) ?? []), member]);
  }
  return {
    if: { required: [tag], properties: { [tag]: { type: 'string' } } },
    then: {
      properties: { [tag]: { enum: [...byValue.keys()] } },
      allOf: [...byValue].map(([value, tagged]) => ({ if: { properties: { [tag]: { const: value } } }, then: tagged.length === 1 ? tagged[0] : { anyOf: tagged } })),
    },
    // anyOf, not the document's oneOf: an untagged message is both an EasyInputMessage and an
    // InputMessage, which the tag would tell apart.
    else: { anyOf: members },
  };
}

/** The values `tag` can take in `schema` (through references, `allOf` parts and unions), or undefined when the document does not fix them. */
function tagValues(schema: SchemaNode | undefined, tag: string, schemas: Components['schemas'], depth: number): string[] | undefined {
  // A tag sits a few references deep at most; deeper is a reference cycle, which fixes no tag.
  if (schema === undefined || depth > 8) return undefined;
  if (schema.$ref !== undefined) return tagValues(schemas[schema.$ref.slice('#/components/schemas/'.length)], tag, schemas, depth + 1);
  const own = schema.properties?.[tag];
  if (own !== undefined) return fixedValues(own);
  if (schema.allOf !== undefined) return schema.allOf.map((part) => tagValues(part, tag, schemas, depth + 1)).find((values) => values !== undefined);
  const members = schema.oneOf ?? schema.anyOf;
  if (members === undefined) return undefined;
  const values = members.filter((member) => member.type !== 'null').map((member) => tagValues(member, tag, schemas, depth + 1));
  return values.every((each) => each !== undefined) ? values.flat() : undefined;
}

/** The strings a property schema allows: its `const`, its `enum`, or those of its non-null branches. */
function fixedValues(property: SchemaNode): string[] | undefined {
  const values = property.const !== undefined ? [property.const] : property.enum ?? property.anyOf?.filter((branch) => branch.type !== 'null').flatMap((branch) => fixedValues(branch) ?? [undefined]);
  return values !== undefined && values.length > 0 && values.every((value) => typeof value === 'string') ? values : undefined;
}
