/**
 * fast-check arbitraries of the OpenAPI document's component schemas, for property tests that send
 * what a client may send: a schema becomes an arbitrary of values shaped by it (references, unions,
 * `allOf` parts, enums, bounds), drawn close to valid and then kept only where the document's own
 * validator (`specIssues`) accepts them, so every value is a request the document allows. Below
 * `maxDepth` references a value takes only what it must (required properties, the fewest items), so
 * recursive schemas end. Hand-written: the JSON Schema generators of the registry either draw from a
 * random source of their own (no seed, no shrinking) or are built on fast-check 1
 * (docs/decisions.md, "Request bodies drawn from the OpenAPI document").
 */
import fc from 'fast-check';
import { specComponents, specIssues, type SchemaNode } from './openapi.js';

/** What the generator reads of a schema, beyond the validator's rewrites. */
interface GeneratedNode extends SchemaNode {
  required?: string[];
  items?: GeneratedNode;
  minItems?: number;
  maxItems?: number;
  minimum?: number;
  maximum?: number;
  minLength?: number;
  maxLength?: number;
  pattern?: string;
  format?: string;
  additionalProperties?: GeneratedNode | boolean;
  properties?: Record<string, GeneratedNode>;
  allOf?: GeneratedNode[];
  anyOf?: GeneratedNode[];
  oneOf?: GeneratedNode[];
}

export interface SpecArbitraryOptions {
  /** References followed before a value takes only what it must; default 2. */
  maxDepth?: number;
  /** Property values drawn from these instead, by property name at any depth (e.g. `model`: the one model a server serves). */
  overrides?: Record<string, fc.Arbitrary<unknown>>;
}

/** Values of the component schema `schema` that the document accepts. */
export function specArbitrary(schema: string, options: SpecArbitraryOptions = {}): fc.Arbitrary<unknown> {
  const schemas = specComponents().schemas as Record<string, GeneratedNode>;
  if (schemas[schema] === undefined) throw new Error(`the OpenAPI document has no component schema ${schema}`);
  const generator = new Generator(schemas, options.maxDepth ?? 2, options.overrides ?? {});
  const drawn = generator.of({ $ref: `#/components/schemas/${schema}` }, 0);
  return drawn.filter((value) => specIssues(schema, value).length === 0);
}

const SHORT = 12;
const INT32_MIN = -(2 ** 31);
const INT32_MAX = 2 ** 31 - 1;

class Generator {
  readonly built = new Map<string, fc.Arbitrary<unknown>>();
  readonly building = new Set<string>();

  constructor(
    readonly schemas: Record<string, GeneratedNode>,
    readonly maxDepth: number,
    readonly overrides: Record<string, fc.Arbitrary<unknown>>,
  ) {}

  of(node: GeneratedNode, depth: number): fc.Arbitrary<unknown> {
    if (node.$ref !== undefined) return this.referred(node.$ref, Math.min(depth + 1, this.maxDepth + 1));
    if (node.const !== undefined) return fc.constant(node.const);
    if (node.enum !== undefined) return fc.constantFrom(...node.enum);
    if (node.allOf !== undefined) return fc.tuple(...node.allOf.map((part) => this.of(part, depth))).map(merged);
    const members = node.oneOf ?? node.anyOf;
    if (members !== undefined) return this.union(members, depth);
    if (Array.isArray(node.type)) return this.union(node.type.map((type) => ({ ...node, type: type as string })), depth);
    switch (node.type) {
      case 'object':
        return this.object(node, depth);
      case 'array':
        return this.array(node, depth);
      case 'string':
        return string(node);
      case 'integer':
        // Bounds past 32 bits (a `seed` spans 64) are taken as 32-bit ones: fast-check's integers are.
        return fc.integer({ min: Math.max(node.minimum ?? -1000, INT32_MIN), max: Math.min(node.maximum ?? 100_000, INT32_MAX) });
      case 'number':
        return fc.double({ min: node.minimum ?? -1000, max: node.maximum ?? 100_000, noNaN: true, noDefaultInfinity: true });
      case 'boolean':
        return fc.boolean();
      case 'null':
        return fc.constant(null);
      default:
        return node.properties !== undefined ? this.object(node, depth) : fc.jsonValue({ maxDepth: 1 });
    }
  }

  /**
   * One arbitrary per schema and depth, built once: past the depth every level is alike, and a schema
   * met again while it is being built (it refers to itself) is taken when drawn.
   */
  referred(ref: string, depth: number): fc.Arbitrary<unknown> {
    const key = `${ref}@${depth}`;
    const built = this.built.get(key);
    if (built !== undefined) return built;
    if (this.building.has(key)) return fc.constant(null).chain(() => this.built.get(key)!);
    const target = this.schemas[ref.slice('#/components/schemas/'.length)];
    if (target === undefined) return fc.jsonValue({ maxDepth: 1 });
    this.building.add(key);
    const arbitrary = this.of(target, depth);
    this.built.set(key, arbitrary);
    this.building.delete(key);
    return arbitrary;
  }

  /** Past the depth, the members that end soonest: null where the union allows it. */
  union(members: GeneratedNode[], depth: number): fc.Arbitrary<unknown> {
    if (depth > this.maxDepth && members.some((member) => member.type === 'null')) return fc.constant(null);
    return fc.oneof(...members.map((member) => this.of(member, depth)));
  }

  object(node: GeneratedNode, depth: number): fc.Arbitrary<unknown> {
    const properties = node.properties ?? {};
    const required = new Set(node.required ?? []);
    const drawn = Object.keys(properties).filter((name) => required.has(name) || depth <= this.maxDepth);
    if (drawn.length === 0 && Object.keys(properties).length === 0) return this.dictionary(node, depth);
    const record = Object.fromEntries(drawn.map((name) => [name, this.overrides[name] ?? this.of(properties[name]!, depth)]));
    return fc.record(record, { requiredKeys: drawn.filter((name) => required.has(name)) });
  }

  /** An object of free keys (`metadata`, a function's `parameters`): a few, short. */
  dictionary(node: GeneratedNode, depth: number): fc.Arbitrary<unknown> {
    if (depth > this.maxDepth) return fc.constant({});
    const values = typeof node.additionalProperties === 'object' ? this.of(node.additionalProperties, depth) : fc.jsonValue({ maxDepth: 1 });
    return fc.dictionary(fc.string({ minLength: 1, maxLength: SHORT }), values, { maxKeys: 3 });
  }

  array(node: GeneratedNode, depth: number): fc.Arbitrary<unknown> {
    const minLength = node.minItems ?? 0;
    const maxLength = depth > this.maxDepth ? minLength : Math.min(node.maxItems ?? Infinity, minLength + 3);
    return fc.array(node.items === undefined ? fc.jsonValue({ maxDepth: 1 }) : this.of(node.items, depth), { minLength, maxLength });
  }
}

function string(node: GeneratedNode): fc.Arbitrary<unknown> {
  if (node.pattern !== undefined) return fc.stringMatching(new RegExp(node.pattern));
  if (node.format === 'uri') return fc.webUrl();
  if (node.format === 'date-time') return fc.date({ noInvalidDate: true, min: new Date(0), max: new Date(4e12) }).map((date) => date.toISOString());
  const minLength = node.minLength ?? 0;
  return fc.string({ minLength, maxLength: Math.min(node.maxLength ?? Infinity, minLength + SHORT) });
}

/** The parts of an `allOf`, one value: objects' properties together, else the last part's. */
function merged(parts: unknown[]): unknown {
  const objects = parts.filter((part): part is Record<string, unknown> => typeof part === 'object' && part !== null && !Array.isArray(part));
  return objects.length === parts.length ? Object.assign({}, ...objects) : parts.at(-1);
}
