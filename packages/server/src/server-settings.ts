/**
 * The server's own keys (`PGW_SERVER__…`): model routing, API keys, drain grace and the body bound.
 * A malformed value is a SettingsError naming the key; key material is never echoed.
 */
import { existsSync, readFileSync } from 'node:fs';
import { SETTINGS_DEFAULTS, SettingsError } from '@pgw/client';
import type { EnvRecord } from '@pgw/client';

export interface ServerSettings {
  /** Model name → scope; undefined = every chat model is scope LLM and every embedding model scope EMBED. */
  models?: ReadonlyMap<string, string>;
  /** API key → tenant id; empty = no authentication. */
  keys: ReadonlyMap<string, string>;
  drainMs: number;
  maxRequestMb: number;
}

export const SERVER_DEFAULTS = { drainS: 30, maxRequestMb: SETTINGS_DEFAULTS.maxRequestMb } as const;
const SCOPE = /^[A-Za-z][A-Za-z0-9_]*$/;

export function loadServerSettings(env: EnvRecord): ServerSettings {
  const models = env['PGW_SERVER__MODELS'];
  return {
    ...(models !== undefined && models.trim() !== '' && { models: modelMap(models) }),
    keys: keyMap(env['PGW_SERVER__KEYS']),
    drainMs: positiveNumber(env, 'PGW_SERVER__DRAIN_S', SERVER_DEFAULTS.drainS, true) * 1000,
    maxRequestMb: positiveNumber(env, 'PGW_SERVER__MAX_REQUEST_MB', SERVER_DEFAULTS.maxRequestMb, false),
  };
}

function modelMap(raw: string): Map<string, string> {
  const key = 'PGW_SERVER__MODELS';
  const entries = Object.entries(jsonObject(raw, key, raw));
  if (entries.length === 0) throw new SettingsError({ key, problem: 'must name at least one model', value: raw });
  return new Map(
    entries.map(([model, scope]) => {
      if (typeof scope !== 'string' || !SCOPE.test(scope)) throw new SettingsError({ key, problem: `model '${model}' must map to a scope name (letters, digits, _)`, value: raw });
      return [model, scope.toUpperCase()];
    }),
  );
}

/** Inline JSON, or the path of a file holding it. Neither the value nor the file's content is echoed: they are keys. */
function keyMap(raw: string | undefined): Map<string, string> {
  const key = 'PGW_SERVER__KEYS';
  if (raw === undefined || raw.trim() === '') return new Map();
  const text = raw.trim().startsWith('{') ? raw : readKeyFile(raw.trim(), key);
  const entries = Object.entries(jsonObject(text, key));
  for (const [apiKey, tenant] of entries) {
    if (apiKey.length < 8) throw new SettingsError({ key, problem: 'every API key must be at least 8 characters' });
    if (typeof tenant !== 'string' || tenant === '' || tenant.length > 256) throw new SettingsError({ key, problem: 'every key must map to a tenant id (a non-empty string of at most 256 characters)' });
  }
  return new Map(entries as [string, string][]);
}

function readKeyFile(path: string, key: string): string {
  if (!existsSync(path)) throw new SettingsError({ key, problem: `is neither a JSON object nor the path of an existing file (${path})` });
  return readFileSync(path, 'utf8');
}

function jsonObject(text: string, key: string, echo?: string): Record<string, unknown> {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new SettingsError({ key, problem: 'must be a JSON object', ...(echo !== undefined && { value: echo }) });
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new SettingsError({ key, problem: 'must be a JSON object', ...(echo !== undefined && { value: echo }) });
  return value as Record<string, unknown>;
}

function positiveNumber(env: EnvRecord, key: string, fallback: number, zeroAllowed: boolean): number {
  const raw = env[key];
  if (raw === undefined || raw.trim() === '') return fallback;
  const value = Number(raw);
  if (!Number.isFinite(value) || value < 0 || (!zeroAllowed && value === 0)) throw new SettingsError({ key, problem: `must be a number ${zeroAllowed ? '≥ 0' : '> 0'}`, value: raw });
  return value;
}
