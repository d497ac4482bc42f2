/** Direct construction of settings: the same validation and the same frozen value as the env path. */
import type { EmbeddingSettings, GatewaySettings, OcrSettings } from '@pgw/core';
import type { z } from 'zod';
import { envKeyOfField } from './env-keys.js';
import { embeddingSchema, gatewaySchema, ocrSchema } from './schema.js';
import type { EmbeddingSettingsInput, GatewaySettingsInput, OcrSettingsInput } from './schema.js';
import { SettingsError } from './settings-error.js';
import { deepFreeze } from '../deep-freeze.js';

/** Where an env-built input value came from, so an error names the key the user actually wrote. */
export interface ValueOrigin {
  key: string;
  /** The raw value, present only when it is safe to echo. */
  value?: string;
}
export type ValueOrigins = ReadonlyMap<string, ValueOrigin>;

export function gatewaySettings(input: GatewaySettingsInput): GatewaySettings {
  return validate(gatewaySchema, input, undefined);
}

export function embeddingSettings(input: EmbeddingSettingsInput): EmbeddingSettings {
  return validate(embeddingSchema, input, undefined);
}

/** OCR settings: MODEL is optional (MonkeyOCR takes none; it defaults to `monkeyocr`). */
export function ocrSettings(input: OcrSettingsInput): OcrSettings {
  return validate(ocrSchema, input, undefined);
}

/** Runs a settings schema; the first issue becomes a SettingsError naming its env key. */
export function validate<T extends object>(schema: z.ZodType<T>, input: unknown, origins: ValueOrigins | undefined): T {
  const result = schema.safeParse(input);
  if (result.success) return deepFreeze(result.data);
  const issue = result.error.issues[0]!;
  const path = issue.code === 'unrecognized_keys' ? [...issue.path, issue.keys[0]!] : issue.path;
  const problem = issue.code === 'unrecognized_keys' ? 'is not a settings field' : issue.message;
  throw errorFor(path, problem, input, origins);
}

function errorFor(path: readonly PropertyKey[], problem: string, input: unknown, origins: ValueOrigins | undefined) {
  const field = fieldName(path);
  // A JSON key whose entries have fields of their own (`{SCOPE}__TENANTS`): the key, then the entry's field.
  for (let length = path.length; length > 0; length -= 1) {
    const origin = origins?.get(path.slice(0, length).join('.'));
    if (origin === undefined) continue;
    const inner = path.length - length >= 2 ? `${path.slice(length).map(String).join('.')}: ` : '';
    return new SettingsError({ key: origin.key, problem: `${inner}${problem}`, ...(origin.value === undefined ? {} : { value: origin.value }) });
  }
  const raw = (input ?? {}) as { scope?: unknown; sources?: { name?: unknown }[] };
  const scope = typeof raw.scope === 'string' ? raw.scope.toUpperCase() : '<SCOPE>';
  const sourceName = (index: number) => {
    const name = Array.isArray(raw.sources) ? raw.sources[index]?.name : undefined;
    return typeof name === 'string' ? name.toUpperCase() : undefined;
  };
  const key = envKeyOfField(scope, path, sourceName) ?? field;
  return new SettingsError({ key, problem, ...(origins ? {} : { field }) });
}

/** `sources[0].rpm` */
const fieldName = (path: readonly PropertyKey[]) =>
  path.reduce<string>(
    (text, part) => (typeof part === 'number' ? `${text}[${part}]` : text === '' ? String(part) : `${text}.${String(part)}`),
    '',
  ) || '(settings)';
