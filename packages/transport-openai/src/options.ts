/** Options of `openaiCompatible`, validated once at creation: errors name the option, never echo a secret. */
import type { Clock, EffortMap, ProviderProfile } from '@pgw/core';
import { checkEffortMap, providerProfile } from '@pgw/core/internal';
import { checkDispatcher, checkFunction, checkLiveness, checkMaxResponseBytes, checkNonEmptyString, type EndpointOptions, type LivenessOptions, type ResolvedLiveness } from '@pgw/http';
import type { Dispatcher } from 'undici';
import { isRecord } from './json.js';

export interface OpenAICompatibleOptions extends EndpointOptions {
  /** The model name sent upstream; prices, cache keys and telemetry rows use it. */
  model: string;
  /** Whether chat asks for SSE. Default true. With false: one JSON body, no liveness limits, `stream()` yields one delta. */
  stream?: boolean;
  /** Cap of a 2xx body; a larger one fails the attempt with a ResultInvalidError naming the limit. Default 64 MiB. */
  maxResponseBytes?: number;
  /** Thinking profile: a built-in name (`openai`, `qwen`, `anthropic_compat`, `deepseek`) or your own. Default `openai`. */
  profile?: string | ProviderProfile;
  /** Body keys added to every request (under the caller's sampling). */
  extraBody?: Record<string, unknown>;
  /** Whether a json_schema response format that meets the strict-mode rules is sent with `strict: true`. Default true; false for servers that reject the field. */
  strictSchema?: boolean;
  /** Efforts this source sends instead of the ones asked for, e.g. `{ xhigh: 'high', max: 'high' }` for models that accept fewer levels. Default: none. */
  effortMap?: EffortMap;
  /** The undici dispatcher to send through (a client's shared Agent, a ProxyAgent, a MockAgent…); never closed by the model. Default: an own Agent. */
  dispatcher?: Dispatcher;
  /** Bounds of a streamed answer: first token, gap between tokens, total. */
  liveness?: LivenessOptions;
  /** Where non-fatal oddities go (e.g. a non-finite Retry-After). Default `console.warn`. */
  warn?: (message: string) => void;
  /** Wall clock for HTTP-date Retry-After and `ttftMs`. Default `Date.now`. */
  now?: Clock;
  userAgent?: string;
}

const DEFAULT_USER_AGENT = 'pgw-transport-openai/0.1';
export const FACTORY = 'openaiCompatible';

export interface ResolvedOptions {
  model: string;
  stream: boolean;
  maxResponseBytes: number;
  profile: ProviderProfile;
  extraBody: Readonly<Record<string, unknown>>;
  strictSchema: boolean;
  effortMap: EffortMap;
  dispatcher: Dispatcher | undefined;
  liveness: ResolvedLiveness;
  warn: (message: string) => void;
  now: Clock;
  userAgent: string;
}

const name = (key: string) => `${FACTORY}(options.${key})`;

export function resolveOptions(options: OpenAICompatibleOptions): ResolvedOptions {
  if (!isRecord(options)) throw new TypeError(`${FACTORY}(options) must be an object`);
  return {
    model: checkNonEmptyString(options.model, name('model')),
    stream: boolean(options.stream, true, 'stream'),
    maxResponseBytes: checkMaxResponseBytes(options.maxResponseBytes, name('maxResponseBytes')),
    profile: profileOf(options.profile),
    extraBody: Object.freeze({ ...record(options.extraBody, 'extraBody') }),
    strictSchema: boolean(options.strictSchema, true, 'strictSchema'),
    effortMap: checkEffortMap(options.effortMap, name('effortMap')),
    dispatcher: checkDispatcher(options.dispatcher, name('dispatcher')),
    liveness: checkLiveness(options.liveness, (field) => name(`liveness.${field}`)),
    warn: checkFunction(options.warn, name('warn')) ?? ((message) => console.warn(message)),
    now: checkFunction(options.now, name('now')) ?? Date.now,
    userAgent: options.userAgent === undefined ? DEFAULT_USER_AGENT : checkNonEmptyString(options.userAgent, name('userAgent')),
  };
}

function profileOf(profile: unknown): ProviderProfile {
  if (profile === undefined) return providerProfile('openai');
  if (typeof profile === 'string') return providerProfile(profile, name('profile'));
  const valid =
    isRecord(profile) &&
    typeof profile['name'] === 'string' &&
    Array.isArray(profile['managedKeys']) &&
    typeof profile['applyEffort'] === 'function' &&
    typeof profile['supportsJsonSchema'] === 'boolean';
  if (!valid) throw new TypeError(`${name('profile')} must be a built-in profile name or a ProviderProfile { name, managedKeys, applyEffort, supportsJsonSchema }`);
  return profile as unknown as ProviderProfile;
}

function boolean(value: unknown, fallback: boolean, key: string): boolean {
  if (value === undefined) return fallback;
  if (typeof value !== 'boolean') throw new TypeError(`${name(key)} must be true or false`);
  return value;
}

function record(value: unknown, key: string): Record<string, unknown> {
  if (value === undefined) return {};
  if (!isRecord(value)) throw new TypeError(`${name(key)} must be an object`);
  return value;
}
