/**
 * Strict structured output: OpenAI guarantees a `json_schema` answer only with `strict: true`, and
 * only a subset of JSON Schema may then be sent. A schema outside it goes without `strict` (the
 * schema is then guidance), which is said once per model.
 */
import { isRecord } from './json.js';

/** The keywords strict mode supports (OpenAI structured outputs), by what they apply to. */
const SUPPORTED = new Set([
  ...['$schema', '$ref', '$defs', 'definitions', 'type', 'description', 'title', 'enum', 'const', 'anyOf'],
  ...['properties', 'required', 'additionalProperties'],
  ...['items', 'minItems', 'maxItems'],
  ...['pattern', 'format'],
  ...['multipleOf', 'maximum', 'exclusiveMaximum', 'minimum', 'exclusiveMinimum'],
]);

/** The first strict-mode rule `schema` breaks, named with its path; undefined when it meets them all. */
export function strictSchemaIssue(schema: Record<string, unknown>): string | undefined {
  if (schema['type'] !== 'object') return 'the root is not an object';
  return nodeIssue(schema, '');
}

function nodeIssue(node: unknown, path: string): string | undefined {
  if (!isRecord(node)) return undefined;
  const at = path === '' ? '(root)' : path;
  const unsupported = Object.keys(node).find((key) => !SUPPORTED.has(key));
  if (unsupported !== undefined) return `${at} uses ${unsupported}, which strict mode does not support`;
  const properties = isRecord(node['properties']) ? node['properties'] : undefined;
  const isObject = properties !== undefined || node['type'] === 'object' || (Array.isArray(node['type']) && node['type'].includes('object'));
  if (isObject) {
    const required = new Set(Array.isArray(node['required']) ? node['required'] : []);
    const optional = Object.keys(properties ?? {}).find((key) => !required.has(key));
    if (optional !== undefined) return `${child(path, 'properties', optional)} is not required`;
    if (node['additionalProperties'] !== false) return `${at} does not set additionalProperties: false`;
  }
  return (
    entriesIssue(properties, child(path, 'properties')) ??
    nodeIssue(node['items'], child(path, 'items')) ??
    entriesIssue(Array.isArray(node['anyOf']) ? { ...node['anyOf'] } : undefined, path === '' ? 'anyOf' : `${path}.anyOf`, true) ??
    entriesIssue(isRecord(node['$defs']) ? node['$defs'] : undefined, child(path, '$defs')) ??
    entriesIssue(isRecord(node['definitions']) ? node['definitions'] : undefined, child(path, 'definitions'))
  );
}

function entriesIssue(entries: Record<string, unknown> | undefined, path: string, indexed = false): string | undefined {
  for (const [key, value] of Object.entries(entries ?? {})) {
    const issue = nodeIssue(value, indexed ? `${path}[${key}]` : `${path}.${key}`);
    if (issue !== undefined) return issue;
  }
  return undefined;
}

function child(path: string, ...keys: string[]): string {
  return [...(path === '' ? [] : [path]), ...keys].join('.');
}

/** Decides per request whether a source's response format is asked strict; warns once per model when a schema cannot be. */
export class StrictResponseFormat {
  private warned = false;

  constructor(
    /** False for a source whose server rejects the `strict` field. */
    private readonly enabled: boolean,
    private readonly warn: (message: string) => void,
  ) {}

  strict(name: string, schema: Record<string, unknown>): boolean {
    if (!this.enabled) return false;
    const issue = strictSchemaIssue(schema);
    if (issue === undefined) return true;
    if (!this.warned) {
      this.warned = true;
      this.warn(`json_schema_not_strict: response format '${name}' is sent without strict (${issue}); later schemas that cannot be strict are not reported`);
    }
    return false;
  }
}
