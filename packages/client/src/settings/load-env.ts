/**
 * Settings from env keys (docs/architecture.md#configuration): the process env (or `env`) merged over an optional `.env` file,
 * turned into a settings input with every value's key remembered, then validated like direct input.
 */
import { existsSync } from 'node:fs';
import type { EmbeddingSettings, GatewaySettings, OcrSettings } from '@pgw/core';
import { validate } from './construct.js';
import type { ValueOrigin } from './construct.js';
import { readEnvFile } from './dotenv.js';
import { ASSEMBLY_KEYS, LEGACY_ALIASES, SCOPE_NAME, SOURCE_KEYS, SOURCES_SUFFIX, isEchoable, scopeKeysOf } from './env-keys.js';
import type { SettingsKind, ValueParse } from './env-keys.js';
import { embeddingSchema, gatewaySchema, ocrSchema } from './schema.js';
import { SettingsError } from './settings-error.js';

export type EnvRecord = Readonly<Record<string, string | undefined>>;

export interface LoadSettingsOptions {
  /** The environment; default `process.env`. Wins over the file. */
  env?: EnvRecord;
  /** A dotenv file read beneath `env`. Default: `./.env` if it exists, but only when `env` is not given. */
  envFile?: string;
  /** Receives the one unknown-key warning; default `console.warn`. */
  warn?: (message: string) => void;
}

export function loadGatewaySettings(scope = 'LLM', options: LoadSettingsOptions = {}): GatewaySettings {
  return load('chat', scope, options);
}

export function loadEmbeddingSettings(scope = 'EMBED', options: LoadSettingsOptions = {}): EmbeddingSettings {
  return load('embed', scope, options) as EmbeddingSettings;
}

export function loadOcrSettings(scope = 'OCR', options: LoadSettingsOptions = {}): OcrSettings {
  return load('ocr', scope, options);
}

/** The effective env: the file's values beneath the given (or process) env; empty values count as unset. */
export function mergedEnv(options: Pick<LoadSettingsOptions, 'env' | 'envFile'>): Map<string, string> {
  const file =
    options.envFile !== undefined
      ? readEnvFile(options.envFile)
      : options.env === undefined && existsSync('.env')
        ? readEnvFile('.env')
        : {};
  const merged = new Map<string, string>();
  for (const layer of [file, options.env ?? process.env]) {
    for (const [key, value] of Object.entries(layer)) {
      if (value === undefined) continue;
      if (value.trim() === '') merged.delete(key);
      else merged.set(key, value.trim());
    }
  }
  return merged;
}

function load(kind: SettingsKind, scope: string, options: LoadSettingsOptions): GatewaySettings {
  if (typeof scope !== 'string' || !SCOPE_NAME.test(scope)) {
    throw new SettingsError({ key: 'scope', problem: `'${String(scope)}' is not a scope name (letters, digits, single underscores)` });
  }
  const prefix = `${scope.toUpperCase()}__`;
  const env = mergedEnv(options);
  const reader = new EnvReader(env);
  const input: Record<string, unknown> = { scope: scope.toUpperCase(), sources: readSources(prefix, reader) };

  for (const entry of scopeKeysOf(kind)) {
    const key = `${prefix}${entry.suffix}`;
    const alias = LEGACY_ALIASES.find((a) => a.suffix === entry.suffix)?.alias(scope.toUpperCase());
    const chosen = alias === undefined ? key : reader.chooseAlias(key, alias, entry.parse);
    reader.readInto(input, entry.field, chosen, entry.parse);
  }
  for (const entry of ASSEMBLY_KEYS) reader.readInto(input, entry.field, entry.key, entry.parse);

  const unknown = [...env.keys()].filter((key) => key.startsWith(prefix) && !reader.recognised.has(key)).sort();
  if (unknown.length > 0) {
    (options.warn ?? console.warn)(`unknown keys under ${prefix} (typo?), ignored: ${unknown.join(', ')}`);
  }
  const schema = kind === 'embed' ? embeddingSchema : kind === 'ocr' ? ocrSchema : gatewaySchema;
  return validate(schema, input, reader.origins);
}

/** Reads `{SCOPE}__SOURCE__{NAME}__{FIELD}` keys, ordered by `{SCOPE}__SOURCES` or alphabetically. */
function readSources(prefix: string, reader: EnvReader): Record<string, unknown>[] {
  const sourcePrefix = `${prefix}SOURCE__`;
  const keysByName = new Map<string, Map<string, string>>();
  for (const key of reader.env.keys()) {
    if (!key.startsWith(sourcePrefix)) continue;
    const segments = key.slice(sourcePrefix.length).split('__');
    const [nameSegment, field] = segments;
    if (segments.length !== 2 || !nameSegment || !SOURCE_KEYS.some((k) => k.field === field)) continue;
    const name = nameSegment.toLowerCase();
    const fields = keysByName.get(name) ?? new Map<string, string>();
    const clash = fields.get(field!);
    if (clash !== undefined) {
      throw new SettingsError({ key, problem: `source names are case-insensitive: this key repeats ${clash}` });
    }
    fields.set(field!, key);
    keysByName.set(name, fields);
  }

  const listKey = `${prefix}${SOURCES_SUFFIX}`;
  let names = [...keysByName.keys()].sort();
  const listed = reader.take(listKey);
  if (listed !== undefined) {
    names = listed.split(',').map((name) => name.trim().toLowerCase());
    const problem = sourcesListProblem(names, keysByName, sourcePrefix);
    if (problem !== undefined) throw new SettingsError({ key: listKey, problem, value: listed });
  }
  // A source left out by {SCOPE}__SOURCES is deliberate: its keys are known, not typos.
  for (const fields of keysByName.values()) for (const key of fields.values()) reader.recognised.add(key);

  return names.map((name, index) => {
    const source: Record<string, unknown> = { name };
    for (const entry of SOURCE_KEYS) {
      const key = keysByName.get(name)?.get(entry.field);
      if (key !== undefined) reader.readInto(source, [entry.prop], key, entry.parse, ['sources', String(index)]);
    }
    return source;
  });
}

function sourcesListProblem(names: string[], defined: ReadonlyMap<string, unknown>, sourcePrefix: string) {
  if (names.includes('')) return 'has an empty name';
  const twice = names.find((name, i) => names.indexOf(name) !== i);
  if (twice !== undefined) return `lists '${twice}' twice`;
  const missing = names.find((name) => !defined.has(name));
  if (missing !== undefined) return `lists '${missing}' but no ${sourcePrefix}${missing.toUpperCase()}__* key is set`;
  return undefined;
}

/** Parses env values into an input object and records each value's origin for error messages. */
export class EnvReader {
  readonly recognised = new Set<string>();
  readonly origins = new Map<string, ValueOrigin>();

  constructor(readonly env: ReadonlyMap<string, string>) {}

  take(key: string): string | undefined {
    this.recognised.add(key);
    return this.env.get(key);
  }

  /** Picks the key to read when a legacy alias may also be set; a disagreement is an error. */
  chooseAlias(key: string, alias: string, parse: ValueParse): string {
    const current = this.take(key);
    const legacy = this.take(alias);
    if (legacy === undefined) return key;
    if (current === undefined) return alias;
    if (parseValue(current, parse, key) !== parseValue(legacy, parse, alias)) {
      throw new SettingsError({ key, problem: `disagrees with its legacy alias ${alias}; set only ${key}` });
    }
    return key;
  }

  readInto(target: Record<string, unknown>, field: readonly string[], key: string, parse: ValueParse, base: string[] = []): void {
    const raw = this.take(key);
    if (raw === undefined) return;
    let node = target;
    for (const part of field.slice(0, -1)) node = (node[part] ??= {}) as Record<string, unknown>;
    node[field.at(-1)!] = parseValue(raw, parse, key);
    this.origins.set([...base, ...field].join('.'), { key, ...(isEchoable(parse) ? { value: raw } : {}) });
  }
}

const MEBIBYTE = 1024 * 1024;
const NUMBER = /^[+-]?(\d+(\.\d*)?|\.\d+)(e[+-]?\d+)?$/i;
const BOOLEANS: Record<string, boolean> = { true: true, '1': true, yes: true, on: true, false: false, '0': false, no: false, off: false };

/** Converts one raw value; a value of the wrong form is an error naming its key, never a default. */
function parseValue(raw: string, parse: ValueParse, key: string): unknown {
  const fail = (problem: string) =>
    new SettingsError({ key, problem, ...(isEchoable(parse) ? { value: raw } : {}) });
  switch (parse) {
    case 'int':
    case 'number':
    case 'seconds':
    case 'megabytes': {
      if (!NUMBER.test(raw)) throw fail('is not a number');
      const value = Number(raw);
      if (!Number.isFinite(value)) throw fail('must be finite');
      if (parse === 'seconds') return Math.round(value * 1000);
      return parse === 'megabytes' ? Math.round(value * MEBIBYTE) : value;
    }
    case 'bool': {
      const value = BOOLEANS[raw.toLowerCase()];
      if (value === undefined) throw fail('must be true or false (also 1/0, yes/no, on/off)');
      return value;
    }
    case 'choice':
      return raw.toLowerCase();
    case 'json': {
      try {
        return JSON.parse(raw) as unknown;
      } catch {
        throw fail('is not valid JSON');
      }
    }
    case 'text':
      return raw;
  }
}
