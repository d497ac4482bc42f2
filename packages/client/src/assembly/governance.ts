/**
 * The governance of a program that governs calls other than a model's (the server's MCP tool calls):
 * the governor and the telemetry recorder a scope's settings name, built exactly as a client builds
 * them (memory or Redis standalone/Sentinel/Cluster; the telemetry store), without a model or a cache.
 */
import type { GatewaySettings, Governor, TelemetryRecorder } from '@pgw/core';
import { gatewaySettings } from '../settings/construct.js';
import { assembling } from '../client-lifecycle.js';
import { assembleComponents } from './components.js';
import type { OwnedResources } from './owned-resources.js';

export interface Governance {
  readonly governor: Governor;
  /** The store of the settings' PGW_TELEMETRY_BACKEND; undefined for `none` or when not asked for. */
  readonly recorder?: TelemetryRecorder;
  /** Closes what was built (the recorder flushes first, the Redis connection last). Idempotent. */
  close(): Promise<void>;
}

export interface GovernanceOptions {
  /** Whether to open the telemetry store too (one scope of a program writes the rows). */
  telemetry: boolean;
  warn?: (message: string) => void;
}

/** Builds the governor (and the recorder) of `settings`; a bad setting is a SettingsError naming its key. */
export async function openGovernance(settings: GatewaySettings, options: GovernanceOptions): Promise<Governance> {
  const valid = gatewaySettings(settings);
  const input = options.telemetry ? valid : { ...valid, backends: { ...valid.backends, telemetry: 'none' as const } };
  const { value, owned } = await assembling((owned: OwnedResources) => assembleComponents(input, { cache: false, ...(options.warn && { warn: options.warn }) }, owned));
  return { governor: value.governor, ...(value.recorder && { recorder: value.recorder }), close: () => owned.close() };
}
