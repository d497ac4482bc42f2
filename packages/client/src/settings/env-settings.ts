/**
 * Settings of a program built on the clients (the server's `PGW_SERVER__…` keys) read the way the
 * clients read theirs: each key parsed by its kind, then one zod schema, whose first issue is a
 * SettingsError naming the env key (and echoing the value only when it is safe to).
 */
import type { z } from 'zod';
import { validate } from './construct.js';
import type { ValueParse } from './env-keys.js';
import { EnvReader, mergedEnv, type EnvRecord } from './load-env.js';

export type { ValueParse } from './env-keys.js';

export interface EnvKey {
  key: string;
  /** The settings field it fills (`drainMs`). */
  field: string;
  parse: ValueParse;
}

/** Reads `keys` from `env` (empty values count as unset) and validates them with `schema`. */
export function settingsFromEnv<T extends object>(env: EnvRecord, keys: readonly EnvKey[], schema: z.ZodType<T>): T {
  const reader = new EnvReader(mergedEnv({ env }));
  const input: Record<string, unknown> = {};
  for (const { key, field, parse } of keys) reader.readInto(input, [field], key, parse);
  return validate(schema, input, reader.origins);
}
