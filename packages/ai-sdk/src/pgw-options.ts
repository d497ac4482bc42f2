/**
 * The per-call options of a governed call as AI SDK code gives them: `providerOptions.pgw`.
 * Unknown keys are refused (a misspelt option must not be silently ignored); the values are
 * validated by the client like those of a direct call.
 */
import type { SharedV3ProviderOptions } from '@ai-sdk/provider';
import type { Effort } from '@pgw/core';

export interface PgwCallOptions {
  tenantId?: string;
  sessionId?: string;
  parentCallId?: string;
  /** This call's deadline in milliseconds (undefined inherits the client's). */
  callDeadlineMs?: number;
  cacheBypass?: boolean;
  meta?: Record<string, unknown>;
  /** How hard the model should think (`none` … `max`), mapped by each source's provider profile. */
  reasoningEffort?: Effort;
}

const KEYS = ['tenantId', 'sessionId', 'parentCallId', 'callDeadlineMs', 'cacheBypass', 'meta', 'reasoningEffort'];

/** The `pgw` entry of an AI SDK call's provider options, checked for unknown keys. */
export function pgwOptions(providerOptions: SharedV3ProviderOptions | undefined): PgwCallOptions {
  const pgw = providerOptions?.['pgw'];
  if (pgw === undefined) return {};
  if (typeof pgw !== 'object' || pgw === null || Array.isArray(pgw)) throw new TypeError('providerOptions.pgw must be an object');
  const unknown = Object.keys(pgw).find((key) => !KEYS.includes(key));
  if (unknown !== undefined) throw new TypeError(`providerOptions.pgw has no key '${unknown}'; known: ${KEYS.join(', ')}`);
  return Object.fromEntries(Object.entries(pgw).filter(([, value]) => value !== undefined)) as PgwCallOptions;
}
