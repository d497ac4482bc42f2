import { describe, expect, it } from 'vitest';
import { strictSchemaIssue } from '../src/strict-schema.js';

const object = (properties: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({
  type: 'object',
  properties,
  required: Object.keys(properties),
  additionalProperties: false,
  ...extra,
});

describe('strict-mode rules of a JSON Schema', () => {
  it('accepts objects with every property required and no additional ones, nested, in arrays, anyOf and $defs', () => {
    const schema = {
      $schema: 'https://json-schema.org/draft/2020-12/schema',
      ...object({
        name: { type: 'string', pattern: '^[a-z]+$', description: 'the name' },
        age: { anyOf: [{ type: 'integer', minimum: 0, maximum: 200 }, { type: 'null' }] },
        tags: { type: 'array', items: { type: 'string', enum: ['a', 'b'] }, minItems: 1 },
        home: { $ref: '#/$defs/place' },
        kind: { const: 'person' },
        nick: { type: ['string', 'null'] },
      }),
      $defs: { place: object({ city: { type: 'string', format: 'email' } }) },
    };
    expect(strictSchemaIssue(schema)).toBeUndefined();
  });

  it.each([
    [{ type: 'array', items: { type: 'string' } }, 'the root is not an object'],
    [{ anyOf: [object({})] }, 'the root is not an object'],
    [{ type: 'object', properties: { a: { type: 'string' } }, required: [], additionalProperties: false }, 'properties.a is not required'],
    [{ type: 'object', properties: { a: { type: 'string' } }, required: ['a'] }, '(root) does not set additionalProperties: false'],
    [object({ a: object({ b: { type: 'string' } }, { additionalProperties: true }) }), 'properties.a does not set additionalProperties: false'],
    [object({ a: { type: 'string', minLength: 1 } }), 'properties.a uses minLength, which strict mode does not support'],
    [object({ a: { type: 'array', items: object({ b: { type: 'string', default: 'x' } }) } }), 'properties.a.items.properties.b uses default, which strict mode does not support'],
    [object({ a: { allOf: [{ type: 'string' }] } }), 'properties.a uses allOf, which strict mode does not support'],
    [object({}, { $defs: { d: { type: 'object', properties: { x: { type: 'string' } } } } }), '$defs.d.properties.x is not required'],
  ])('refuses %j: %s', (schema, issue) => {
    expect(strictSchemaIssue(schema)).toBe(issue);
  });
});
