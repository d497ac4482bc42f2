// STUB — being implemented (issue 2). Signatures are the contract.
import type { Effort, ThinkingObservation } from './types.js';
export const EFFORT_ORDER: readonly Effort[] = ['none', 'low', 'medium', 'high', 'max'];
/** Validates an effort name; throws RangeError naming `origin` for anything else. */
export function coerceEffort(value: unknown, origin = 'reasoningEffort'): Effort {
  void origin;
  return value as Effort;
}
export interface ProviderProfile {
  name: string;
  /** Raw body keys this profile manages; a caller's `sampling` may not set them. */
  managedKeys: readonly string[];
  /** Puts the effort on the wire (mutates the request body). Undefined effort = provider default. */
  applyEffort(body: Record<string, unknown>, effort: Effort | undefined): void;
  /** Whether native `response_format: json_schema` is supported. */
  supportsJsonSchema: boolean;
}
export function registerProvider(profile: ProviderProfile): void {
  void profile;
}
/** Throws RangeError for an unknown profile name. */
export function getProvider(name: string): ProviderProfile {
  return { name, managedKeys: [], applyEffort: () => {}, supportsJsonSchema: true };
}
/** Throws RangeError naming `origin` and the key when `sampling` sets a key the profile manages. */
export function assertNoManagedKeys(profile: ProviderProfile, sampling: Record<string, unknown>, origin: string): void {
  void profile;
  void sampling;
  void origin;
}
export interface ThinkingSignals {
  reasoningText?: string;
  reasoningTokens?: number;
}
/** Reasoning text outranks usage details; `unknown` = cannot tell. */
export function observeThinking(signals: ThinkingSignals): ThinkingObservation {
  void signals;
  return 'unknown';
}
/** Warns once per (source, model, effective effort) when the requested effort and the observation contradict. */
export class ThinkingContradictions {
  constructor(private readonly warn: (message: string) => void) {}
  check(source: string, model: string, effort: Effort | undefined, observation: ThinkingObservation): void {
    void source;
    void model;
    void effort;
    void observation;
    void this.warn;
  }
}
